package bare

import (
	"context"
	"fmt"
	"strings"

	"github.com/spannerfast/spannerfast/cmd/spannerfast-bench/internal/benchserver"
	"github.com/spannerfast/spannerfast/cmd/spannerfast-bench/internal/workload"
)

// CaptureMaxRows bounds the results the recording server encodes: a read
// with more rows per query is refused after its request arrived, which is
// all a capture needs of a read.
const CaptureMaxRows = 1_000

// Runner runs one operation of a workload with a driver.
type Runner func(ctx context.Context, w *workload.Workload) error

// Capture learns what a driver sends for one operation of each workload of
// ws that selects: it starts a fake server in this process that records
// every request (method, headers, message bytes), opens the driver on it
// (open gets its address and returns the driver's Runner and its close
// function), runs SELECT 1 (the calls of a first use, such as creating
// the session, belong to no operation), then one operation of each
// workload, and returns each one's calls by workload name, ready to send.
// The server answers as the benchmark's does and keeps no state, so the
// calls (their session name, transaction ids and precommit token
// included) are valid on the benchmark's server any number of times.
func Capture(ctx context.Context, ws []*workload.Workload, selects func(*workload.Workload) bool,
	open func(addr string) (Runner, func() error, error)) (map[string][]Call, error) {
	one, err := workload.Select("select1", 1)
	if err != nil {
		return nil, err
	}
	var served []*workload.Workload
	for _, w := range ws {
		if selects(w) && (!w.HasResult() || w.Rows <= CaptureMaxRows) {
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
	run, closeDriver, err := open(addr)
	if err != nil {
		return nil, err
	}
	defer closeDriver()
	if err := run(ctx, one[0]); err != nil {
		return nil, fmt.Errorf("SELECT 1: %w", err)
	}
	out := map[string][]Call{}
	for _, w := range ws {
		if !selects(w) {
			continue
		}
		op := *w
		op.Queries, op.Concurrency, op.Share, op.PeakHeap = 1, 0, false, false
		log.Take()
		err := run(ctx, &op)
		var calls []Call
		for _, c := range log.Take() {
			if !strings.HasSuffix(c.Method, "Session") && !strings.HasSuffix(c.Method, "Sessions") {
				calls = append(calls, NewCall(c.Method, c.MD, c.Req))
			}
		}
		// A read the server did not encode fails after its request
		// arrived; everything else must succeed.
		if err != nil && (w.Op != workload.OpQuery || w.Rows <= CaptureMaxRows || len(calls) != 1) {
			return nil, fmt.Errorf("%s: %w", w.Name, err)
		}
		if len(calls) == 0 {
			return nil, fmt.Errorf("%s: the driver made no call", w.Name)
		}
		out[w.Name] = calls
	}
	return out, nil
}
