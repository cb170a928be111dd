package e2e

import (
	"context"
	"errors"
	"io"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"

	"github.com/spannerfast/spannerfast/internal/fakespanner"
)

// TestPointQueryAllocations holds a point read's allocations to a promise:
// at most pointAllocBudget more than the same request made with gRPC alone
// (the transport floor: pre-marshalled, responses only counted, the stream
// read to its end), both measured here against the same in-process fake
// server, whose own allocations are in both counts. The budget is what
// database/sql takes per query (9 with a cancellable context: its Rows,
// the context it watches and the goroutine that watches it), plus the
// driver's: its Rows, stream and request (1), gRPC's slice of the
// encoded request (1) and the row's memory in safe mode (1), or in raw mode
// database/sql copying the two []byte into *string (2), plus 1 for a
// garbage collection emptying a buffer pool during the run, plus the
// request id header (5: the id string, and the context that carries it in
// gRPC's outgoing metadata, which metadata.AppendToOutgoingContext makes
// with 4 allocations; the floor sends a header of the same size, so that
// the server's parsing of it is in both counts). The query's
// cancellable context is not in it: each query reuses the one of the query
// before (internal/stream/streamctx.go). The race detector adds raceAllocs: under it
// sync.Pool drops pooled buffers at random.
func TestPointQueryAllocations(t *testing.T) {
	const pointAllocBudget = 20 + raceAllocs
	s := fakespanner.Start(t)
	s.AddResult(pointQuery, pointResult())
	ctx, cancel := context.WithCancel(context.Background()) // as a service's request context
	defer cancel()

	// The floor sends the driver's own request, so that the server does the
	// same work for both.
	if _, _, err := readCanon(ctx, openFake(t, s), pointQuery); err != nil {
		t.Fatal(err)
	}
	sent := s.RequestsFor("ExecuteStreamingSql")
	s.SetRecording(false)
	floor := transportFloorAllocs(t, s, ctx, sent[len(sent)-1])
	for _, mode := range []string{"rawDecode=false", "rawDecode=true"} {
		c, err := openFake(t, s, mode).Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var dest pointRow
		got := testing.AllocsPerRun(300, func() { dest.read(t, ctx, c) })
		t.Logf("%s: %.1f allocations per point query, transport floor %.1f (+%.1f)", mode, got, floor, got-floor)
		if got-floor > pointAllocBudget {
			t.Errorf("%s: %.1f allocations per point query, %.1f above the transport floor's %.1f; the budget is %d",
				mode, got, got-floor, floor, pointAllocBudget)
		}
		c.Close()
	}
}

// transportFloorAllocs measures the point query made with gRPC alone, as
// cmd/spannerfast-bench's transport floor makes it: a pre-marshalled
// request, responses only counted, the stream read to io.EOF.
func transportFloorAllocs(t *testing.T, s *fakespanner.Server, ctx context.Context, sent fakespanner.Request) float64 {
	cc, err := s.Dial()
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	req, err := proto.Marshal(sent.ExecuteSQL())
	if err != nil {
		t.Fatal(err)
	}
	mdCtx := metadata.AppendToOutgoingContext(ctx, "google-cloud-resource-prefix", fakeDB,
		"x-goog-spanner-request-id", sent.Header.Get("x-goog-spanner-request-id")[0])
	desc := &grpc.StreamDesc{StreamName: "ExecuteStreamingSql", ServerStreams: true}
	opt := grpc.ForceCodecV2(countingCodec{})
	var n int
	return testing.AllocsPerRun(300, func() {
		st, err := cc.NewStream(mdCtx, desc, "/google.spanner.v1.Spanner/ExecuteStreamingSql", opt)
		if err != nil {
			t.Fatal(err)
		}
		if err := st.SendMsg(req); err != nil {
			t.Fatal(err)
		}
		if err := st.CloseSend(); err != nil {
			t.Fatal(err)
		}
		for {
			err := st.RecvMsg(&n)
			if errors.Is(err, io.EOF) {
				return
			}
			if err != nil {
				t.Fatal(err)
			}
		}
	})
}

// countingCodec sends pre-marshalled bytes and counts the responses'.
type countingCodec struct{}

func (countingCodec) Marshal(v any) (mem.BufferSlice, error) {
	return mem.BufferSlice{mem.SliceBuffer(v.([]byte))}, nil
}

func (countingCodec) Unmarshal(data mem.BufferSlice, v any) error {
	*v.(*int) += data.Len()
	return nil
}

func (countingCodec) Name() string { return "" }
