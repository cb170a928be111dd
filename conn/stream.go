package conn

import (
	"context"
	"sync/atomic"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"

	"github.com/spannerfast/spannerfast/internal/wire"
	"github.com/spannerfast/spannerfast/rows"
)

const executeStreamingSQL = "/google.spanner.v1.Spanner/ExecuteStreamingSql"

var (
	streamingDesc = &grpc.StreamDesc{StreamName: "ExecuteStreamingSql", ServerStreams: true}
	// Made once: an option, or a variadic slice of them, per call is an
	// allocation.
	streamCallOpts = []grpc.CallOption{grpc.ForceCodecV2(wire.StreamCodec{})}
)

// grpcStream is one attempt of an ExecuteStreamingSql call whose responses
// arrive as wire.Frames instead of unmarshalled protos.
//
// An attempt has no context of its own: it ends either with an error from
// RecvMsg (which releases it, and is when a retry starts the next attempt)
// or when the query's context is cancelled by resumableStream.Close. That
// saves a context per query, and a stream that finished normally is never
// reset.
type grpcStream struct {
	cs     grpc.ClientStream
	frames *frameSlab
}

// frameSlab holds the first frames of a query in the query's own
// allocation: a short result needs no frame allocation. A point read is one
// message and then the end of the stream, which needs a frame to receive
// into too unless the message was marked last. Frames are never reused: each
// slot is handed out once.
type frameSlab struct {
	slots [2]wire.Frame
	used  int
}

// next returns the frame the next message is received into.
func (s *frameSlab) next() *wire.Frame {
	if s == nil || s.used == len(s.slots) {
		return new(wire.Frame)
	}
	return &s.slots[s.used]
}

// keep records that f, returned by next, now holds a message.
func (s *frameSlab) keep(f *wire.Frame) {
	if s != nil && s.used < len(s.slots) && f == &s.slots[s.used] {
		s.used++
	}
}

// start begins one attempt of the call in s. On error the caller cancels
// ctx.
func (s *grpcStream) start(ctx context.Context, cc *grpc.ClientConn, req *spannerpb.ExecuteSqlRequest) error {
	cs, err := cc.NewStream(ctx, streamingDesc, executeStreamingSQL, streamCallOpts...)
	if err != nil {
		return err
	}
	if err := cs.SendMsg(req); err != nil {
		return err
	}
	if err := cs.CloseSend(); err != nil {
		return err
	}
	s.cs = cs
	return nil
}

// queryRows is a streaming query's Rows and stream in one allocation, with
// its request when the query builds it in place (queryAutocommit).
type queryRows struct {
	rows   rows.Rows
	stream queryStream
	req    spannerpb.ExecuteSqlRequest
}

// queryStream is the resumable stream of one streaming query with its
// request and its current attempt in a single allocation.
type queryStream struct {
	resumableStream
	client  *Client // each attempt takes the next channel
	req     *spannerpb.ExecuteSqlRequest
	attempt grpcStream
	frames  frameSlab
	md      mdContext // the caller's context with the session's metadata

	ctx      *reusableContext // the call's context (streamctx.go)
	owner    *Conn            // takes ctx back after a normal end; nil: not reusable
	ctxState atomic.Int32
}

// open starts an attempt that continues after token: the request is copied
// for a resumed attempt, so the one the caller holds never changes.
func (q *queryStream) open(ctx context.Context, token []byte) (frameSource, error) {
	r := q.req
	if len(token) > 0 {
		r = proto.Clone(q.req).(*spannerpb.ExecuteSqlRequest)
		r.ResumeToken = token
	}
	q.attempt = grpcStream{frames: &q.frames}
	if err := q.attempt.start(ctx, q.client.Channel(), r); err != nil {
		return nil, err
	}
	return &q.attempt, nil
}

// Recv returns the next frame; io.EOF ends the stream.
func (s *grpcStream) Recv() (*wire.Frame, error) {
	f := s.frames.next()
	if err := s.cs.RecvMsg(f); err != nil {
		return nil, err // f holds nothing: the slot stays free
	}
	s.frames.keep(f)
	return f, nil
}

// Close does nothing: see grpcStream.
func (s *grpcStream) Close() error { return nil }
