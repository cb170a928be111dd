package benchserver

import (
	"bytes"
	"context"
	"slices"
	"testing"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"

	"github.com/spannerfast/spannerfast/cmd/spannerfast-bench/internal/workload"
)

// TestRecordCalls checks that a recording server logs each request of a
// unary and a streaming call in order, with its method, the headers the
// client set (not gRPC's own) and the message bytes as sent.
func TestRecordCalls(t *testing.T) {
	ws, err := workload.Select("point", 0.001)
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(ws)
	if err != nil {
		t.Fatal(err)
	}
	log := &CallLog{}
	s.Record(log.Add)
	c := serve(t, s)
	ctx := metadata.AppendToOutgoingContext(context.Background(), "x-bench", "1")
	sreq := &spannerpb.CreateSessionRequest{Database: "projects/p/instances/i/databases/d", Session: &spannerpb.Session{Multiplexed: true}}
	sess, err := c.CreateSession(ctx, sreq)
	if err != nil {
		t.Fatal(err)
	}
	qreq := &spannerpb.ExecuteSqlRequest{Session: sess.Name, Sql: ws[0].SQL}
	if _, err := readAll(t, c, qreq); err != nil {
		t.Fatal(err)
	}
	calls := log.Take()
	if len(calls) != 2 || len(log.Take()) != 0 {
		t.Fatalf("%d calls logged, then more: %+v", len(calls), calls)
	}
	for i, want := range []struct {
		method string
		req    proto.Message
	}{{"/google.spanner.v1.Spanner/CreateSession", sreq}, {"/google.spanner.v1.Spanner/ExecuteStreamingSql", qreq}} {
		b, err := proto.Marshal(want.req)
		if err != nil {
			t.Fatal(err)
		}
		got := calls[i]
		if got.Method != want.method || !bytes.Equal(got.Req, b) {
			t.Errorf("call %d: %s, %d bytes; want %s, %d bytes", i, got.Method, len(got.Req), want.method, len(b))
		}
		var keys []string
		for k := range got.MD {
			keys = append(keys, k)
		}
		if i == 0 && !slices.Equal(keys, []string{"x-bench"}) {
			t.Errorf("call %d: headers %v, want only x-bench", i, got.MD)
		}
		if i == 1 && len(keys) != 0 {
			t.Errorf("call %d: headers %v, want none", i, got.MD)
		}
	}
}
