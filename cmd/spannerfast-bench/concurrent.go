package main

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"

	"github.com/spannerfast/spannerfast/cmd/spannerfast-bench/internal/scan"
	"github.com/spannerfast/spannerfast/cmd/spannerfast-bench/internal/workload"
)

// destSet holds an arm's scan targets, one set per workload, made once so
// that scanning allocates nothing of the tool's own. A share of a concurrent
// workload gets a fresh set: its goroutines must not scan into the same
// variables.
type destSet struct {
	raw bool
	m   map[string]*scan.Dests
}

func newDestSet(ws []*workload.Workload, raw bool) destSet {
	s := destSet{raw: raw, m: map[string]*scan.Dests{}}
	for _, w := range ws {
		s.m[w.SQL] = scan.NewDests(w, raw)
	}
	return s
}

func (s destSet) get(w *workload.Workload) *scan.Dests {
	if w.Share {
		return scan.NewDests(w, s.raw)
	}
	return s.m[w.SQL]
}

// runWorkload runs w once with a: in this goroutine, or, for a concurrent
// workload, split over w.Concurrency goroutines.
func runWorkload(ctx context.Context, a arm, w *workload.Workload, hs *heapSampler) (uint64, error) {
	if w.Concurrency <= 1 {
		return a.run(ctx, w, hs)
	}
	return runConcurrent(ctx, a, w)
}

// shares splits w's queries between at most w.Concurrency goroutines, as
// evenly as they divide.
func shares(w *workload.Workload) []*workload.Workload {
	n := min(w.Concurrency, w.Queries)
	out := make([]*workload.Workload, n)
	for g := range out {
		s := *w
		s.Concurrency, s.Share = 0, true
		s.Queries = w.Queries / n
		if g < w.Queries%n {
			s.Queries++
		}
		out[g] = &s
	}
	return out
}

// runConcurrent runs every share of w at once on the same arm (one
// *sql.DB, client or gRPC connection) and adds up their checksums. The
// first error cancels the other goroutines.
func runConcurrent(ctx context.Context, a arm, w *workload.Workload) (uint64, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	parts := shares(w)
	errs := make([]error, len(parts))
	var total atomic.Uint64
	var wg sync.WaitGroup
	for g, s := range parts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sum, err := a.run(ctx, s, nil)
			if err != nil {
				errs[g] = err
				cancel()
				return
			}
			total.Add(sum)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return 0, err
	}
	return total.Load(), nil
}
