package conn

import (
	"bytes"
	"context"
	"sync/atomic"
	"time"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"

	"github.com/spannerfast/spannerfast/decode"
	"github.com/spannerfast/spannerfast/internal/transport"
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
	// begins is the query whose request begins a transaction inline and
	// has not seen the new id yet: each message is checked for it. Nil for
	// every other query, so they pay nothing.
	begins *queryStream
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
	client  *transport.Client // each attempt takes the next channel
	req     *spannerpb.ExecuteSqlRequest
	attempt grpcStream
	frames  frameSlab
	md      transport.MDContext // the caller's context with the session's metadata
	// begunID is the transaction the request began inline, once a
	// response named it; every later attempt selects it by id. begunTS is
	// the read timestamp that response gave (read-only transactions).
	begunID []byte
	begunTS time.Time

	ctx      *reusableContext // the call's context (streamctx.go)
	owner    *Conn            // takes ctx back after a normal end; nil: not reusable
	ctxState atomic.Int32
}

// open starts an attempt that continues after token: the request is copied
// for a resumed attempt, so the one the caller holds never changes.
//
// This is the one place a streaming request is sent again. A request that
// began a transaction inline must not begin another when it is re-sent
// once the server named the new transaction (in the first message's
// metadata, which may have arrived in an attempt that failed before any
// row was handed out): the next attempt selects that transaction by id, so
// every row of the query, and every later statement and the commit, belong
// to one transaction. Before any id arrived the request is re-sent as it
// is, as the official client does: a transaction the failed attempt may
// have begun is never used, and Spanner ends it on its own.
func (q *queryStream) open(ctx context.Context, token []byte) (frameSource, error) {
	r := q.req
	if len(token) > 0 || q.begunID != nil {
		r = proto.Clone(q.req).(*spannerpb.ExecuteSqlRequest)
		r.ResumeToken = token
		if q.begunID != nil {
			r.Transaction = &spannerpb.TransactionSelector{Selector: &spannerpb.TransactionSelector_Id{Id: q.begunID}}
		}
	}
	q.attempt = grpcStream{frames: &q.frames}
	if q.begunID == nil && r.GetTransaction().GetBegin() != nil {
		q.attempt.begins = q
	}
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
	q := s.begins
	s.begins = nil // only the first message carries metadata
	if md, err := decode.ParseMetadata(f.Msg.Metadata); err == nil && len(md.TransactionID) > 0 {
		q.begunID = bytes.Clone(md.TransactionID)
		q.begunTS = md.ReadTimestamp
	}
}

// streamBeginning is stream for a request that may begin a transaction
// inline. It also returns the new transaction's id and read timestamp,
// which the first rows carry unless the attempt that named them broke off
// before any row was handed out and the query restarted by id (queryStream.open).
func (c *Conn) streamBeginning(ctx context.Context, req *spannerpb.ExecuteSqlRequest, leader bool, ro rows.Options) (*rows.Rows, []byte, time.Time, error) {
	qr := new(queryRows)
	r, err := c.streamIn(ctx, qr, req, leader, ro)
	if err != nil {
		return nil, nil, time.Time{}, err
	}
	id, ts := r.TransactionID(), r.ReadTimestamp()
	if len(id) == 0 && qr.stream.begunID != nil {
		id, ts = qr.stream.begunID, qr.stream.begunTS
	}
	return r, id, ts, nil
}

// Close does nothing: see grpcStream.
func (s *grpcStream) Close() error { return nil }
