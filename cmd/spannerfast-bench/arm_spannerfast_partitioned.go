//go:build !nospannerfast

package main

import (
	spannerdriver "github.com/spannerfast/spannerfast/driver"

	"github.com/spannerfast/spannerfast/cmd/spannerfast-bench/internal/workload"
)

// partitionedOptions makes a query of w an auto-partitioned one: the
// driver begins a batch read-only transaction, asks for w.Partitions
// partitions (max_partitions) and reads them all into the one *sql.Rows,
// one stream per partition at once, as the client arm's goroutines do.
func partitionedOptions(w *workload.Workload) spannerdriver.QueryOptions {
	on := true
	return spannerdriver.QueryOptions{AutoPartition: &on, MaxParallelism: w.Partitions, MaxPartitions: int64(w.Partitions)}
}
