package main

import (
	"context"

	"cloud.google.com/go/spanner"

	"github.com/spannerfast/spannerfast/cmd/spannerfast-bench/internal/workload"
)

// copyRows are the rows of the copyfrom workload, built once: both arms
// start from the same [][]any, as an application holding its data would.
var copyRows [][]any

func copyRowsOf(w *workload.Workload) [][]any {
	for i := len(copyRows); i < w.Rows; i++ {
		copyRows = append(copyRows, workload.CopyRow(i))
	}
	return copyRows[:w.Rows]
}

// copyFrom is the client's bulk load: an insert mutation per row (what
// Apply takes), applied in batches of the rows of one of CopyFrom's
// commits, each one Commit (ApplyAtLeastOnce, as CopyFrom's commits).
func (a *clientArm) copyFrom(ctx context.Context, w *workload.Workload) (uint64, error) {
	rows := copyRowsOf(w)
	batch := make([]*spanner.Mutation, 0, workload.CopyBatchRows)
	for i, row := range rows {
		batch = append(batch, spanner.Insert(workload.CopyTable, workload.CopyColumns, row))
		if len(batch) == workload.CopyBatchRows || i == len(rows)-1 {
			if _, err := a.c.Apply(ctx, batch, spanner.ApplyAtLeastOnce()); err != nil {
				return 0, err
			}
			batch = batch[:0]
		}
	}
	return uint64(len(rows)), nil
}
