//go:build !nospannerfast

package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/spannerfast/spannerfast/cmd/spannerfast-bench/internal/workload"

	_ "github.com/spannerfast/spannerfast/driver" // registers "spannerfast"
)

// spannerfastBuilt reports that the spannerfast arms are compiled in.
const spannerfastBuilt = true

func init() {
	register(armSpec{id: armFastSafe, title: "spannerfast-safe", order: 50, available: true, verify: true,
		applies: func(*workload.Workload) bool { return true },
		open:    func(ctx context.Context, e *env) (arm, error) { return openSpannerfast(ctx, e, false) }})
	// Raw decoding changes reads only; of the writes, raw runs the
	// transaction reads (the checksum cost with raw scans).
	register(armSpec{id: armFastRaw, title: "spannerfast-raw", order: 60, available: true, verify: true,
		applies: func(w *workload.Workload) bool { return !w.Op.Write() || w.Op == workload.OpTxRead },
		open:    func(ctx context.Context, e *env) (arm, error) { return openSpannerfast(ctx, e, true) }})
	// Opt-in: spannerfast-safe with compression=gzip (requests and
	// responses gzip-compressed), for what compression costs in CPU.
	register(armSpec{id: armFastGzip, title: "spannerfast-gzip", order: 55, available: true, verify: true, optIn: true,
		applies: func(w *workload.Workload) bool { return !w.Op.Write() },
		open: func(ctx context.Context, e *env) (arm, error) {
			return openSpannerfastDSN(ctx, e, spannerfastDSN(e.addr, e.database, false)+";compression=gzip", false)
		}})
}

// spannerfastDSN is the DSN of the fake server at addr.
func spannerfastDSN(addr, database string, raw bool) string {
	dsn := addr + "/" + database + ";usePlainText=true"
	if raw {
		dsn += ";rawDecode=true"
	}
	return dsn
}

// noRetryProperty turns off the replay of aborted transactions, and with
// it the checksums of the rows they read.
const noRetryProperty = ";retry_aborts_internally=false"

type spannerfastArm struct {
	db      *sql.DB
	noRetry *sql.DB // the same DSN with noRetryProperty
	dests   destSet
	writes  sqlWrites
}

func openSpannerfast(ctx context.Context, e *env, raw bool) (arm, error) {
	return openSpannerfastDSN(ctx, e, spannerfastDSN(e.addr, e.database, raw), raw)
}

func openSpannerfastDSN(_ context.Context, e *env, dsn string, raw bool) (arm, error) {
	db, err := sql.Open("spannerfast", dsn)
	if err != nil {
		return nil, fmt.Errorf("sql.Open: %w", err)
	}
	noRetry, err := sql.Open("spannerfast", dsn+noRetryProperty)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("sql.Open with %s: %w", noRetryProperty, err)
	}
	// No Ping: the warm-up queries of the run check the connection.
	// An application serving concurrent requests keeps their connections
	// idle between them; database/sql's default keeps two and would close
	// and reopen the rest around every concurrent-point query.
	db.SetMaxIdleConns(workload.ConcurrentStreams)
	// Raw mode scans STRING and BYTES into sql.RawBytes (no copy when the
	// driver hands out bytes that alias its receive buffer).
	a := &spannerfastArm{db: db, noRetry: noRetry, dests: newDestSet(e.workloads, raw), writes: newSQLWrites(e.workloads)}
	return a, nil
}

func (a *spannerfastArm) run(ctx context.Context, w *workload.Workload, hs *heapSampler) (uint64, error) {
	if w.Op.Write() {
		return a.runWrite(ctx, w, hs)
	}
	if w.Partitions > 0 {
		return runSQL(ctx, a.db, w, a.dests.get(w), hs, partitionedOptions(w))
	}
	return runSQL(ctx, a.db, w, a.dests.get(w), hs)
}

func (a *spannerfastArm) close() error { return errors.Join(a.db.Close(), a.noRetry.Close()) }
