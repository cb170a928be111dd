//go:build !nospannerfast

package main

import (
	"context"

	"github.com/spannerfast/spannerfast/cmd/spannerfast-bench/internal/workload"
	sfdriver "github.com/spannerfast/spannerfast/driver"
)

// copyFrom is spannerfast's bulk load: driver.CopyFrom of the rows, with
// its default of four commits in flight.
func (a *spannerfastArm) copyFrom(ctx context.Context, w *workload.Workload) (uint64, error) {
	n, err := sfdriver.CopyFrom(ctx, a.db, workload.CopyTable, workload.CopyColumns, sfdriver.CopyFromRows(copyRowsOf(w)))
	return uint64(n), err
}
