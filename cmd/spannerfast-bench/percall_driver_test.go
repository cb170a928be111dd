//go:build !nospannerfast

package main

import (
	"context"
	"slices"
	"strings"
	"testing"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/protobuf/proto"

	"github.com/spannerfast/spannerfast/cmd/spannerfast-bench/internal/benchserver"
	"github.com/spannerfast/spannerfast/cmd/spannerfast-bench/internal/workload"
)

// recordingServer starts a fake server for ws that records every request.
func recordingServer(t *testing.T, ws []*workload.Workload) (addr string, take func() []benchserver.Call) {
	t.Helper()
	srv, err := benchserver.New(ws)
	if err != nil {
		t.Fatal(err)
	}
	log := &benchserver.CallLog{}
	srv.Record(log.Add)
	addr, err = srv.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
	return addr, log.Take
}

// TestBareSendsDriverRequests checks that the bare arm sends, for one
// operation of every per-call workload, the requests spannerfast-safe
// sends: the same methods, message bytes and header names.
func TestBareSendsDriverRequests(t *testing.T) {
	if !spannerfastBuilt {
		t.Skip("the bare arm replays the spannerfast driver's requests")
	}
	ws, err := workload.Select(workload.GroupPerCall+",select1", 0.001)
	if err != nil {
		t.Fatal(err)
	}
	addr, take := recordingServer(t, ws)
	ctx := context.Background()
	e := &env{addr: addr, database: databasePath, workloads: ws}
	// spannerfast first: its session is the server's first, as in the
	// capture.
	safe, err := openSpannerfast(ctx, e, false)
	if err != nil {
		t.Fatal(err)
	}
	defer safe.close()
	if _, err := safe.run(ctx, ws[len(ws)-1], nil); err != nil { // SELECT 1
		t.Fatal(err)
	}
	bare, err := openTransport(ctx, e)
	if err != nil {
		t.Fatal(err)
	}
	defer bare.close()
	take()
	for _, w := range ws[:len(ws)-1] {
		op := *w
		op.Queries, op.Concurrency = 1, 0
		if _, err := safe.run(ctx, &op, nil); err != nil {
			t.Fatalf("%s: spannerfast: %v", w.Name, err)
		}
		want := take()
		if _, err := bare.run(ctx, &op, nil); err != nil {
			t.Fatalf("%s: bare: %v", w.Name, err)
		}
		got := take()
		if len(got) != len(want) || len(want) == 0 {
			t.Fatalf("%s: bare made %d calls, spannerfast %d", w.Name, len(got), len(want))
		}
		for i := range want {
			// The driver writes the parameters (proto maps) in Go's map
			// order, which changes from call to call: the bare arm's bytes
			// are one of those orders. Same size, same message.
			if got[i].Method != want[i].Method || len(got[i].Req) != len(want[i].Req) || !sameRequest(t, got[i], want[i]) {
				t.Errorf("%s call %d: bare sent %s (%d bytes), spannerfast %s (%d bytes)\n%q\n%q", w.Name, i,
					got[i].Method, len(got[i].Req), want[i].Method, len(want[i].Req), got[i].Req, want[i].Req)
			}
			if !slices.Equal(mdKeys(got[i].MD), mdKeys(want[i].MD)) {
				t.Errorf("%s call %d: bare sent headers %v, spannerfast %v", w.Name, i, mdKeys(got[i].MD), mdKeys(want[i].MD))
			}
		}
	}
}

// sameRequest reports whether two requests of a method decode to the same
// message.
func sameRequest(t *testing.T, a, b benchserver.Call) bool {
	t.Helper()
	var ma, mb proto.Message
	switch strings.TrimPrefix(a.Method, "/google.spanner.v1.Spanner/") {
	case "ExecuteSql", "ExecuteStreamingSql":
		ma, mb = &spannerpb.ExecuteSqlRequest{}, &spannerpb.ExecuteSqlRequest{}
	case "ExecuteBatchDml":
		ma, mb = &spannerpb.ExecuteBatchDmlRequest{}, &spannerpb.ExecuteBatchDmlRequest{}
	case "Commit":
		ma, mb = &spannerpb.CommitRequest{}, &spannerpb.CommitRequest{}
	case "BeginTransaction":
		ma, mb = &spannerpb.BeginTransactionRequest{}, &spannerpb.BeginTransactionRequest{}
	default:
		t.Fatalf("unexpected method %s", a.Method)
	}
	if err := proto.Unmarshal(a.Req, ma); err != nil {
		t.Fatal(err)
	}
	if err := proto.Unmarshal(b.Req, mb); err != nil {
		t.Fatal(err)
	}
	return proto.Equal(ma, mb)
}

func mdKeys(md map[string][]string) []string {
	var out []string
	for k := range md {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
