package main

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spannerfast/spannerfast/cmd/spannerfast-bench/internal/workload"
)

// countingArm records how many runs overlap and what each run was given.
type countingArm struct {
	mu           sync.Mutex
	inFlight     int
	peak         int
	queries      int
	release      chan struct{}
	failOnSecond bool
	calls        int
}

func (a *countingArm) run(ctx context.Context, w *workload.Workload, _ *heapSampler) (uint64, error) {
	a.mu.Lock()
	a.inFlight++
	a.peak = max(a.peak, a.inFlight)
	a.queries += w.Queries
	a.calls++
	fail := a.failOnSecond && a.calls == 2
	if !w.Share || w.Concurrency != 0 {
		a.mu.Unlock()
		return 0, errors.New("a share must be marked and not concurrent itself")
	}
	a.mu.Unlock()
	if fail {
		return 0, errors.New("boom")
	}
	select {
	case <-a.release:
	case <-ctx.Done():
		return 0, ctx.Err()
	}
	a.mu.Lock()
	a.inFlight--
	a.mu.Unlock()
	return uint64(w.Queries), nil
}

func (a *countingArm) close() error { return nil }

// TestRunConcurrentOverlaps: concurrent-point's queries are split over 64
// goroutines that all run at once on the same arm, every query is run
// once, and the checksums add up.
func TestRunConcurrentOverlaps(t *testing.T) {
	ws, err := workload.Select("concurrent-point", 1)
	if err != nil {
		t.Fatal(err)
	}
	w := ws[0]
	if w.Concurrency != workload.ConcurrentStreams || w.Queries%w.Concurrency != 0 {
		t.Fatalf("concurrent-point: %d goroutines, %d queries", w.Concurrency, w.Queries)
	}
	a := &countingArm{release: make(chan struct{})}
	done := make(chan struct{})
	var sum uint64
	go func() {
		defer close(done)
		sum, err = runWorkload(context.Background(), a, w, nil)
	}()
	// Every goroutine must be in flight at once before any is let go.
	deadline := time.Now().Add(10 * time.Second)
	for {
		a.mu.Lock()
		peak := a.peak
		a.mu.Unlock()
		if peak == w.Concurrency {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("only %d of %d goroutines ran at once", peak, w.Concurrency)
		}
		time.Sleep(time.Millisecond)
	}
	close(a.release)
	<-done
	if err != nil || sum != uint64(w.Queries) || a.queries != w.Queries {
		t.Errorf("sum %d, %d queries run, err %v; want %d", sum, a.queries, err, w.Queries)
	}
}

// TestRunConcurrentError: one goroutine's error is returned and cancels
// the others (which would otherwise wait forever).
func TestRunConcurrentError(t *testing.T) {
	w := &workload.Workload{Name: "c", Queries: 10, Concurrency: 4}
	a := &countingArm{release: make(chan struct{}), failOnSecond: true}
	if _, err := runWorkload(context.Background(), a, w, nil); err == nil || !containsBoom(err) {
		t.Fatalf("error %v, want one that holds boom", err)
	}
}

func containsBoom(err error) bool {
	j, ok := err.(interface{ Unwrap() []error })
	if !ok {
		return false
	}
	for _, e := range j.Unwrap() {
		if e.Error() == "boom" {
			return true
		}
	}
	return false
}

// TestSharesSplitEvenly: shares cover every query, differ by at most one,
// and never exceed the query count.
func TestSharesSplitEvenly(t *testing.T) {
	for _, c := range []struct{ queries, conc, parts int }{{6400, 64, 64}, {13, 64, 13}, {100, 64, 64}} {
		ss := shares(&workload.Workload{Queries: c.queries, Concurrency: c.conc})
		total, lo, hi := 0, c.queries, 0
		for _, s := range ss {
			total += s.Queries
			lo, hi = min(lo, s.Queries), max(hi, s.Queries)
		}
		if len(ss) != c.parts || total != c.queries || hi-lo > 1 {
			t.Errorf("%d queries / %d: %d shares, %d total, sizes %d..%d", c.queries, c.conc, len(ss), total, lo, hi)
		}
	}
}

// TestRunConcurrentPoint runs concurrent-point through the whole tool with
// every arm this build has, at the -quick scale: each arm's 64 goroutines
// read the right values (run compares the checksums) and the targets table
// checks the workload against the transport floor.
func TestRunConcurrentPoint(t *testing.T) {
	arms := []string{armTransport, armSQLFloor, armClient}
	if borrowBuilt {
		arms = append(arms, armBorrow)
	}
	if spannerfastBuilt {
		arms = append(arms, armFastSafe, armFastRaw)
	}
	cfg := config{workloads: "concurrent-point", arms: strings.Join(arms, ","), scale: quickScale, rounds: 1,
		inProcess: true, warmups: 2}
	rep, md, _ := runTool(t, cfg)
	if len(rep.Results) != len(arms) {
		t.Errorf("%d results, want %d", len(rep.Results), len(arms))
	}
	for _, r := range rep.Results {
		if r.Error != "" || r.CPUPerQueryUs <= 0 || r.Queries != 640 {
			t.Errorf("%s: %d queries, %.1f µs/query, error %q", r.Arm, r.Queries, r.CPUPerQueryUs, r.Error)
		}
	}
	if spannerfastBuilt && !strings.Contains(md, "| concurrent-point | spannerfast-safe | CPU/query vs bare gRPC (transport floor) |") {
		t.Errorf("no concurrent-point target in:\n%s", md)
	}
}
