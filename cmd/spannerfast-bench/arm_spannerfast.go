//go:build !nospannerfast

package main

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/spannerfast/spannerfast/cmd/spannerfast-bench/internal/workload"

	_ "github.com/spannerfast/spannerfast/driver" // registers "spannerfast"
)

// spannerfastBuilt reports that the spannerfast arms are compiled in.
const spannerfastBuilt = true

func init() {
	register(armSpec{id: armFastSafe, title: "spannerfast-safe", order: 50, available: true, verify: true,
		open: func(ctx context.Context, e *env) (arm, error) { return openSpannerfast(ctx, e, false) }})
	register(armSpec{id: armFastRaw, title: "spannerfast-raw", order: 60, available: true, verify: true,
		open: func(ctx context.Context, e *env) (arm, error) { return openSpannerfast(ctx, e, true) }})
}

// spannerfastDSN is the DSN of the fake server at addr.
func spannerfastDSN(addr, database string, raw bool) string {
	dsn := addr + "/" + database + ";usePlainText=true"
	if raw {
		dsn += ";rawDecode=true"
	}
	return dsn
}

type spannerfastArm struct {
	db    *sql.DB
	dests map[string]*dests
}

func openSpannerfast(_ context.Context, e *env, raw bool) (arm, error) {
	db, err := sql.Open("spannerfast", spannerfastDSN(e.addr, e.database, raw))
	if err != nil {
		return nil, fmt.Errorf("sql.Open: %w", err)
	}
	// No Ping: the warm-up queries of the run check the connection.
	a := &spannerfastArm{db: db, dests: map[string]*dests{}}
	for _, w := range e.workloads {
		// Raw mode scans STRING and BYTES into sql.RawBytes (no copy when
		// the driver hands out bytes that alias its receive buffer).
		a.dests[w.SQL] = newDests(w, raw)
	}
	return a, nil
}

func (a *spannerfastArm) run(ctx context.Context, w *workload.Workload, hs *heapSampler) (uint64, error) {
	return runSQL(ctx, a.db, w, a.dests[w.SQL], hs)
}

func (a *spannerfastArm) close() error { return a.db.Close() }
