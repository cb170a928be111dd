package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"cloud.google.com/go/spanner"
	"google.golang.org/api/iterator"

	"github.com/spannerfast/spannerfast/cmd/spannerfast-bench/internal/scan"
	"github.com/spannerfast/spannerfast/cmd/spannerfast-bench/internal/workload"
)

func init() {
	register(armSpec{id: armClient, title: "client", order: 30, available: true, verify: true,
		// The official client keeps no checksum of what a transaction
		// read: of the two transaction reads it runs the one without.
		applies: func(w *workload.Workload) bool { return w.Op != workload.OpTxRead || !w.RetryAborts },
		open:    func(ctx context.Context, e *env) (arm, error) { return openClient(ctx, e, false) }})
	note := ""
	if !borrowBuilt {
		note = "needs a build with -tags spanner_vtproto (without it ExperimentalBorrowRows is ignored)"
	}
	register(armSpec{id: armBorrow, title: "client-borrow", order: 40, available: borrowBuilt, verify: true,
		note: note,
		open: func(ctx context.Context, e *env) (arm, error) { return openClient(ctx, e, true) }})
}

// setEmulatorHost points the official client at the fake server the way
// its emulator support does (plain text, no credentials) and, as a side
// effect, turns off its built-in metrics export. The client reads the
// variable when it is created, and arms are opened one at a time, so each
// run (a test may make several, each with its own server) sets its own.
func setEmulatorHost(addr string) error {
	return os.Setenv("SPANNER_EMULATOR_HOST", addr)
}

type clientArm struct {
	c      *spanner.Client
	borrow bool
	dests  destSet
	writes clientWrites
}

func openClient(ctx context.Context, e *env, borrow bool) (arm, error) {
	if err := setEmulatorHost(e.addr); err != nil {
		return nil, err
	}
	cfg := spanner.ClientConfig{
		SessionPoolConfig:    spanner.DefaultSessionPoolConfig,
		DisableNativeMetrics: true,
		NumChannels:          1,
	}
	c, err := spanner.NewClientWithConfig(ctx, e.database, cfg)
	if err != nil {
		return nil, fmt.Errorf("creating the client: %w", err)
	}
	a := &clientArm{c: c, borrow: borrow, dests: newDestSet(e.workloads, false), writes: newClientWrites(e.workloads)}
	return a, nil
}

func (a *clientArm) run(ctx context.Context, w *workload.Workload, hs *heapSampler) (uint64, error) {
	if w.Op.Write() {
		return a.runWrite(ctx, w, hs)
	}
	if w.Partitions > 0 {
		return a.runPartitioned(ctx, w)
	}
	stmt := spanner.Statement{SQL: w.SQL}
	opts := spanner.QueryOptions{ExperimentalBorrowRows: true}
	var total uint64
	for q := 0; q < w.Queries; q++ {
		var it *spanner.RowIterator
		if a.borrow {
			it = a.c.Single().QueryWithOptions(ctx, stmt, opts)
		} else {
			it = a.c.Single().Query(ctx, stmt)
		}
		sum, err := a.readRows(it, w, hs)
		if err != nil {
			return 0, fmt.Errorf("query %d %w", q, err)
		}
		total += sum
	}
	return total, nil
}

// readRows reads it to the end (w.Rows rows) and stops it.
func (a *clientArm) readRows(it *spanner.RowIterator, w *workload.Workload, hs *heapSampler) (uint64, error) {
	total, n, err := sumRows(it, a.dests.get(w), hs)
	if err != nil {
		return 0, err
	}
	if n != w.Rows {
		return 0, fmt.Errorf("returned %d rows, want %d", n, w.Rows)
	}
	return total, nil
}

// sumRows reads it to the end into d, stops it, and returns the checksum
// and the number of rows.
func sumRows(it *spanner.RowIterator, d *scan.Dests, hs *heapSampler) (uint64, int, error) {
	defer it.Stop()
	var total uint64
	n := 0
	for {
		row, err := it.Next()
		if errors.Is(err, iterator.Done) {
			break
		}
		if err != nil {
			return 0, n, fmt.Errorf("row %d: %w", n, err)
		}
		if err := row.Columns(d.Ptrs...); err != nil {
			return 0, n, fmt.Errorf("row %d: Columns: %w", n, err)
		}
		total += d.Sum()
		n++
		if hs != nil {
			hs.tick()
		}
	}
	return total, n, nil
}

func (a *clientArm) close() error {
	a.c.Close()
	return nil
}
