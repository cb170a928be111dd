package stream

import (
	"context"
	"sync/atomic"
	"time"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"

	"github.com/spannerfast/spannerfast/decode"
	"github.com/spannerfast/spannerfast/internal/telemetry"
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

var (
	_ rows.Stream = (*Query)(nil)
	_ rows.Stream = (*Resumable)(nil)
	_ Source      = (*grpcStream)(nil)
	_ opener      = (*Query)(nil)
	_ callControl = (*Query)(nil)
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
	// begins is the Reselector of a query whose request begins a
	// transaction inline and has not seen the new id yet: each message is
	// checked for it. Nil for every other query, so they pay nothing.
	begins Reselector
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

// Channels hands out the gRPC channel of each attempt (the connector's
// client, which takes them round-robin).
type Channels interface {
	Channel() *grpc.ClientConn
	// Telemetry is the connector's: each query is an operation of it.
	Telemetry() *telemetry.Telemetry
}

// Reselector is the caller's say in a request that is sent again (a retry,
// or a resumption after a resume token). The engine knows no transaction:
// a request that begins one inline must, once a response named it, select
// it by id when it is sent again, and only the caller knows that (conn's
// transaction code supplies a Reselector for such a request only).
type Reselector interface {
	// Selector returns the transaction selector a request sent again
	// carries in place of its own; nil sends it as it is, and the first
	// message of the next attempt is then passed to Began.
	Selector() *spannerpb.TransactionSelector
	// Began receives the transaction id (never empty) and read timestamp
	// that the first message's metadata name. id aliases the message:
	// copy it to keep it.
	Began(id []byte, readTS time.Time)
}

// Query is the resumable stream of one streaming query with its request and
// its current attempt in a single allocation; the caller embeds it in the
// allocation of the query's rows. Prepare, then Start, then hand it to
// rows.Rows.Init (which reads the first response).
type Query struct {
	resumableStream
	channels Channels // each attempt takes the next channel
	req      *spannerpb.ExecuteSqlRequest
	attempt  grpcStream
	frames   frameSlab
	resend   Reselector // nil: the request is sent again as it is

	ctx      *reusableContext // the call's context (streamctx.go)
	pool     *ContextPool     // takes ctx back after a normal end; nil: not reusable
	conn     *ContextPool     // the connection's, whose drainer reads the call's end
	ctxState atomic.Int32

	op telemetry.Op // the query's operation until its rows take it (TakeOp)
}

// Prepare sets q, which must be new, up to run req on channels and returns
// the context of its call, on which the caller puts the call's metadata
// before Start: on top, so that the cancellable context below them depends
// on ctx only. With a deadline (statement_timeout, the transaction's
// transaction_timeout) the call has a context of its own; without, it takes
// pool's spare one when made from this same ctx and hands it back there
// when the call ends normally.
//
// The query is an operation of channels' telemetry from here (its span is
// on the returned context); the rows that read it take the operation
// (TakeOp) and end it when they are closed.
func (q *Query) Prepare(ctx context.Context, req *spannerpb.ExecuteSqlRequest, channels Channels, pool *ContextPool, deadline time.Time, hasDeadline bool) context.Context {
	*q = Query{channels: channels, req: req, conn: pool}
	ctx, q.op = channels.Telemetry().StartStatement(ctx, telemetry.Query, req.GetSql(), req.GetRequestOptions())
	if hasDeadline {
		// A deadline of its own each time: nothing to reuse.
		tctx, cancel := context.WithDeadline(ctx, deadline)
		q.ctx = &reusableContext{parent: ctx, ctx: tctx, cancel: cancel}
	} else {
		q.ctx, q.pool = pool.take(ctx), pool
	}
	return q.ctx.ctx
}

// Start makes callCtx, the context Prepare returned with the call's
// metadata on it, the context of every attempt. Frames wait for a resume
// token up to maxBuffered bytes; retry decides on failures; resend, if not
// nil, follows a request that begins a transaction inline. Nothing is sent
// before the first Recv.
func (q *Query) Start(callCtx context.Context, maxBuffered int64, retry Backoff, resend Reselector) {
	q.resend = resend
	q.init(callCtx, q, q, maxBuffered, retry)
}

// open starts an attempt that continues after token: the request is copied
// for a resumed attempt, so the one the caller holds never changes.
//
// This is the one place a streaming request is sent again. A request that
// began a transaction inline must not begin another when it is re-sent
// once the server named the new transaction (in the first message's
// metadata, which may have arrived in an attempt that failed before any
// row was handed out): the next attempt selects that transaction by id (the
// Reselector's Selector), so every row of the query, and every later
// statement and the commit, belong to one transaction. Before any id
// arrived the request is re-sent as it is, as the official client does: a
// transaction the failed attempt may have begun is never used, and Spanner
// ends it on its own.
func (q *Query) open(ctx context.Context, token []byte) (Source, error) {
	var sel *spannerpb.TransactionSelector
	if q.resend != nil {
		sel = q.resend.Selector()
	}
	r := q.req
	if len(token) > 0 || sel != nil {
		r = proto.Clone(q.req).(*spannerpb.ExecuteSqlRequest)
		r.ResumeToken = token
		if sel != nil {
			r.Transaction = sel
		}
	}
	q.attempt = grpcStream{frames: &q.frames}
	if q.resend != nil && sel == nil {
		q.attempt.begins = q.resend
	}
	if err := q.attempt.start(ctx, q.channels.Channel(), r); err != nil {
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
	if s.begins != nil {
		s.noteBegun(f)
	}
	return f, nil
}

// noteBegun takes the id of the transaction the query began inline from the
// first message's metadata. A message that does not scan is left for the
// stream to report.
func (s *grpcStream) noteBegun(f *wire.Frame) {
	if f.Scan() != nil || len(f.Msg.Metadata) == 0 {
		return
	}
	hook := s.begins
	s.begins = nil // only the first message carries metadata
	if md, err := decode.ParseMetadata(f.Msg.Metadata); err == nil && len(md.TransactionID) > 0 {
		hook.Began(md.TransactionID, md.ReadTimestamp)
	}
}

// Close does nothing: see grpcStream.
func (s *grpcStream) Close() error { return nil }

// TakeOp hands the query's operation to the rows that read it
// (rows.Rows.Init), which end it.
func (q *Query) TakeOp() telemetry.Op {
	op := q.op
	q.op = telemetry.Op{}
	return op
}
