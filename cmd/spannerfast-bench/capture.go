//go:build !nospannerfast

package main

import (
	"context"

	"github.com/spannerfast/spannerfast/cmd/spannerfast-bench/internal/bare"
	"github.com/spannerfast/spannerfast/cmd/spannerfast-bench/internal/workload"
)

func init() { captureCalls = capture }

// capture learns what the spannerfast driver sends, in safe mode with the
// DSN of the spannerfast-safe arm, for one operation of each workload of e
// that selects (bare.Capture).
func capture(ctx context.Context, e *env, selects func(*workload.Workload) bool) (map[string][]bare.Call, error) {
	return bare.Capture(ctx, e.workloads, selects, func(addr string) (bare.Runner, func() error, error) {
		one, err := workload.Select("select1", 1)
		if err != nil {
			return nil, nil, err
		}
		a, err := openSpannerfast(ctx, &env{addr: addr, database: e.database, workloads: append(e.workloads, one[0])}, false)
		if err != nil {
			return nil, nil, err
		}
		run := func(ctx context.Context, w *workload.Workload) error {
			_, err := a.run(ctx, w, nil)
			return err
		}
		return run, a.close, nil
	})
}
