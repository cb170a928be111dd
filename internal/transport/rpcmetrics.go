package transport

import (
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/spannerfast/spannerfast/internal/telemetry"
)

// RPC metrics. Every gRPC call on the client's channels is one attempt
// (spannerfast retries by calling again, and resumes a stream by opening
// another), measured by the channel's interceptors (requestid.go), the
// one place every call passes. An operation, in the official client's sense, is a logical
// request with all its attempts: the request ids number both
// (requestid.go). An attempt that ends with a failure the driver's retry
// loops call again after leaves its operation pending under its request
// number, and the next attempt of that request continues it; an attempt
// that ends any other way ends its operation. When nobody listens, the
// interceptors ask once and pass the call through: no clock read, no
// allocation.

// spannerMethodPrefix starts the Spanner API's methods, the calls the
// driver retries.
const spannerMethodPrefix = "/google.spanner.v1.Spanner/"

// rpcMeter measures one client's calls.
type rpcMeter struct {
	client  *Client
	pending sync.Map // request number (uint32) → *rpcOp whose last attempt will be retried
}

// rpcOp is an RPC operation across its attempts.
type rpcOp struct {
	method   string
	start    time.Time
	attempts int
	unary    bool
	last     telemetry.RPCAttempt // the latest attempt
	code     codes.Code           // how the latest attempt ended
	finished time.Time            // when it ended
	stop     func() bool          // stops the context watch of a pending operation
	ended    atomic.Bool
}

// rpcAttempt is one attempt of op being measured.
type rpcAttempt struct {
	meter   *rpcMeter
	ctx     context.Context
	op      *rpcOp
	request uint32
	done    atomic.Bool
}

// attempt starts measuring the attempt numbered attempt (from 1) of the
// request numbered request (0: a call whose request the client did not
// number, its own operation) of method, made with ctx; nil when nobody
// listens.
func (m *rpcMeter) attempt(ctx context.Context, method string, request, attempt uint32, unary bool) *rpcAttempt {
	a := m.client.Telemetry().StartRPCAttempt(method)
	if !a.Active() {
		return nil
	}
	var op *rpcOp
	if request != 0 && attempt > 1 {
		if v, ok := m.pending.LoadAndDelete(request); ok {
			if p := v.(*rpcOp); p.stop() {
				op = p
				op.attempts++
				op.last = a
			}
		}
	}
	if op == nil {
		op = &rpcOp{method: method, start: a.Start(), attempts: 1, unary: unary, last: a}
	}
	return &rpcAttempt{meter: m, ctx: ctx, op: op, request: request}
}

// end ends the attempt with err (nil, or io.EOF for a stream, is
// success), once. A nil a (nobody listened) does nothing.
func (a *rpcAttempt) end(err error) {
	if a == nil || !a.done.CompareAndSwap(false, true) {
		return
	}
	op, ctx, m := a.op, a.ctx, a.meter
	op.code = codeOf(err)
	op.finished = op.last.End(ctx, int64(op.code), op.code.String())
	if a.request != 0 && retriedFailure(ctx, op, err) {
		// Ends when the next attempt continues it, or with the context
		// (no attempt follows then).
		op.stop = context.AfterFunc(ctx, func() {
			m.pending.CompareAndDelete(a.request, op)
			op.record(ctx)
		})
		m.pending.Store(a.request, op)
		return
	}
	op.record(ctx)
}

// record ends op, once.
func (op *rpcOp) record(ctx context.Context) {
	if op.ended.CompareAndSwap(false, true) {
		op.last.EndRPCOperation(ctx, op.finished.Sub(op.start), op.attempts, int64(op.code), op.code.String())
	}
}

// retriedFailure reports whether err is a failure the driver's retry loops
// call again after, with the rules of those loops: a commit's UNAVAILABLE
// and RESOURCE_EXHAUSTED (txn.CallCommit), the transient failures of
// RetryDelay for the Spanner API's other calls (CallUnary, session
// creation, a stream's resumption), while the context lasts and, for a
// unary call, the attempts are below the limit. Every such failure is
// followed by another attempt or by the end of the context, so no
// operation stays pending.
func retriedFailure(ctx context.Context, op *rpcOp, err error) bool {
	if err == nil || errors.Is(err, io.EOF) || ctx.Err() != nil ||
		op.unary && op.attempts >= MaxUnaryAttempts || !strings.HasPrefix(op.method, spannerMethodPrefix) {
		return false
	}
	if op.method == spannerMethodPrefix+"Commit" {
		c := status.Code(err)
		return c == codes.Unavailable || c == codes.ResourceExhausted
	}
	retry, _ := RetryDelay(err)
	return retry
}

// codeOf is the gRPC code an attempt ended with: OK for nil and io.EOF
// (a stream's normal end), the context's for a context error.
func codeOf(err error) codes.Code {
	switch {
	case err == nil, errors.Is(err, io.EOF):
		return codes.OK
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		if _, ok := status.FromError(err); !ok {
			return status.FromContextError(err).Code()
		}
	}
	return status.Code(err)
}

// stream returns cs measured by a: the attempt ends when a receive fails
// (io.EOF is the normal end), a send fails, or the call's context ends (a
// stream its reader abandons, rows closed early). A nil a returns cs.
func (a *rpcAttempt) stream(cs grpc.ClientStream) grpc.ClientStream {
	if a == nil {
		return cs
	}
	s := &measuredStream{ClientStream: cs, attempt: a}
	s.stop = context.AfterFunc(a.ctx, func() { a.end(a.ctx.Err()) })
	return s
}

type measuredStream struct {
	grpc.ClientStream
	attempt *rpcAttempt
	stop    func() bool
}

func (s *measuredStream) RecvMsg(msg any) error {
	err := s.ClientStream.RecvMsg(msg)
	if err != nil {
		s.stop()
		s.attempt.end(err)
	}
	return err
}

func (s *measuredStream) SendMsg(msg any) error {
	err := s.ClientStream.SendMsg(msg)
	if err != nil && err != io.EOF { // io.EOF: the status comes with RecvMsg
		s.stop()
		s.attempt.end(err)
	}
	return err
}
