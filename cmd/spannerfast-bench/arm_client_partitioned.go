package main

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"cloud.google.com/go/spanner"

	"github.com/spannerfast/spannerfast/cmd/spannerfast-bench/internal/scan"
	"github.com/spannerfast/spannerfast/cmd/spannerfast-bench/internal/workload"
)

// runPartitioned reads a partitioned workload as users of the official
// client do: a BatchReadOnlyTransaction, PartitionQuery with the partition
// count as max_partitions, then every partition's Execute in its own
// goroutine. The rows are checked as a whole (partition sizes are the
// server's business).
func (a *clientArm) runPartitioned(ctx context.Context, w *workload.Workload) (uint64, error) {
	var total uint64
	for q := 0; q < w.Queries; q++ {
		sum, n, err := a.readPartitions(ctx, w)
		if err == nil && n != w.Rows {
			err = fmt.Errorf("returned %d rows, want %d", n, w.Rows)
		}
		if err != nil {
			return 0, fmt.Errorf("query %d: %w", q, err)
		}
		total += sum
	}
	return total, nil
}

// readPartitions runs one partitioned query and returns the checksum and
// row count of all its partitions.
func (a *clientArm) readPartitions(ctx context.Context, w *workload.Workload) (uint64, int, error) {
	txn, err := a.c.BatchReadOnlyTransaction(ctx, spanner.StrongRead())
	if err != nil {
		return 0, 0, fmt.Errorf("BatchReadOnlyTransaction: %w", err)
	}
	defer txn.Close()
	parts, err := txn.PartitionQuery(ctx, spanner.Statement{SQL: w.SQL},
		spanner.PartitionOptions{MaxPartitions: int64(w.Partitions)})
	if err != nil {
		return 0, 0, fmt.Errorf("PartitionQuery: %w", err)
	}
	if len(parts) != w.Partitions {
		return 0, 0, fmt.Errorf("PartitionQuery returned %d partitions, want %d", len(parts), w.Partitions)
	}
	sums, counts, errs := make([]uint64, len(parts)), make([]int, len(parts)), make([]error, len(parts))
	var wg sync.WaitGroup
	for i, p := range parts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Each goroutine scans into its own variables.
			sums[i], counts[i], errs[i] = sumRows(txn.Execute(ctx, p), scan.NewDests(w, false), nil)
			if errs[i] != nil {
				errs[i] = fmt.Errorf("partition %d: %w", i, errs[i])
			}
		}()
	}
	wg.Wait()
	var total uint64
	n := 0
	for i := range parts {
		total += sums[i]
		n += counts[i]
	}
	return total, n, errors.Join(errs...)
}
