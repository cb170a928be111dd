//go:build !nospannerfast

package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/spannerfast/spannerfast/cmd/spannerfast-bench/internal/benchserver"
	"github.com/spannerfast/spannerfast/cmd/spannerfast-bench/internal/workload"
)

func init() { captureCalls = capture }

// captureMaxRows bounds the results the capturing server encodes: a read
// with more rows per query is refused after its request arrived, which is
// all the capture needs of a read.
const captureMaxRows = 1_000

// capture learns what the spannerfast driver (safe mode, the DSN of the
// spannerfast-safe arm) sends for one operation of each workload of e that
// runs selects: it runs the operation against a fake server in this
// process that records every request (method, headers, message bytes),
// and returns the calls by workload name. The server answers as the
// benchmark's server does and keeps no state between calls, so the bare
// arm can send the same bytes (the same session name, transaction ids and
// precommit token included) to the benchmark's server, any number of
// times.
func capture(ctx context.Context, e *env, selects func(*workload.Workload) bool) (map[string][]benchserver.Call, error) {
	one, err := workload.Select("select1", 1)
	if err != nil {
		return nil, err
	}
	var served []*workload.Workload
	for _, w := range e.workloads {
		if selects(w) && (!w.HasResult() || w.Rows <= captureMaxRows) {
			served = append(served, w)
		}
	}
	srv, err := benchserver.New(served)
	if err != nil {
		return nil, err
	}
	var log benchserver.CallLog
	srv.Record(log.Add)
	addr, err := srv.Start("127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	defer srv.Stop()
	a, err := openSpannerfast(ctx, &env{addr: addr, database: e.database, workloads: append(e.workloads, one[0])}, false)
	if err != nil {
		return nil, err
	}
	defer a.close()
	// The first query creates the session (and whatever else a first use
	// does): those calls belong to no operation.
	if _, err := a.run(ctx, one[0], nil); err != nil {
		return nil, fmt.Errorf("SELECT 1: %w", err)
	}
	out := map[string][]benchserver.Call{}
	for _, w := range e.workloads {
		if !selects(w) {
			continue
		}
		op := *w
		op.Queries, op.Concurrency, op.Share, op.PeakHeap = 1, 0, false, false
		log.Take()
		_, err := a.run(ctx, &op, nil)
		var calls []benchserver.Call
		for _, c := range log.Take() {
			if !strings.HasSuffix(c.Method, "Session") && !strings.HasSuffix(c.Method, "Sessions") {
				calls = append(calls, c)
			}
		}
		// A read the server did not encode fails after its request
		// arrived; everything else must succeed.
		if err != nil && (w.Op != workload.OpQuery || w.Rows <= captureMaxRows || len(calls) != 1) {
			return nil, fmt.Errorf("%s: %w", w.Name, err)
		}
		if len(calls) == 0 {
			return nil, fmt.Errorf("%s: the driver made no call", w.Name)
		}
		out[w.Name] = calls
	}
	return out, nil
}
