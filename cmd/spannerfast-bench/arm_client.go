package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"

	"cloud.google.com/go/spanner"
	"google.golang.org/api/iterator"

	"github.com/spannerfast/spannerfast/cmd/spannerfast-bench/internal/workload"
)

func init() {
	register(armSpec{id: armClient, title: "client", order: 30, available: true, verify: true,
		open: func(ctx context.Context, e *env) (arm, error) { return openClient(ctx, e, false) }})
	note := ""
	if !borrowBuilt {
		note = "needs a build with -tags spanner_vtproto (without it ExperimentalBorrowRows is ignored)"
	}
	register(armSpec{id: armBorrow, title: "client-borrow", order: 40, available: borrowBuilt, verify: true,
		note: note,
		open: func(ctx context.Context, e *env) (arm, error) { return openClient(ctx, e, true) }})
}

var emulatorEnvOnce sync.Once

// setEmulatorHost points the official client at the fake server the way
// its emulator support does (plain text, no credentials) and, as a side
// effect, turns off its built-in metrics export. The fake server's address
// is the same for the whole run.
func setEmulatorHost(addr string) error {
	var err error
	emulatorEnvOnce.Do(func() {
		err = os.Setenv("SPANNER_EMULATOR_HOST", addr)
	})
	if got := os.Getenv("SPANNER_EMULATOR_HOST"); err == nil && got != addr {
		err = fmt.Errorf("SPANNER_EMULATOR_HOST is %q, want %q (one server per process)", got, addr)
	}
	return err
}

type clientArm struct {
	c      *spanner.Client
	borrow bool
	dests  map[string]*dests
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
	a := &clientArm{c: c, borrow: borrow, dests: map[string]*dests{}}
	for _, w := range e.workloads {
		a.dests[w.SQL] = newDests(w, false)
	}
	return a, nil
}

func (a *clientArm) run(ctx context.Context, w *workload.Workload, hs *heapSampler) (uint64, error) {
	d := a.dests[w.SQL]
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
		n := 0
		for {
			row, err := it.Next()
			if errors.Is(err, iterator.Done) {
				break
			}
			if err != nil {
				it.Stop()
				return 0, fmt.Errorf("query %d row %d: %w", q, n, err)
			}
			if err := row.Columns(d.ptrs...); err != nil {
				it.Stop()
				return 0, fmt.Errorf("query %d row %d: Columns: %w", q, n, err)
			}
			total += d.sum()
			n++
			if hs != nil {
				hs.tick()
			}
		}
		it.Stop()
		if n != w.Rows {
			return 0, fmt.Errorf("query %d returned %d rows, want %d", q, n, w.Rows)
		}
	}
	return total, nil
}

func (a *clientArm) close() error {
	a.c.Close()
	return nil
}
