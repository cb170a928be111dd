package stream

import (
	"context"
	"reflect"
	"sync/atomic"
)

// The cancellable context of a streaming query, reused by the connection's
// next query when that query comes with the same caller context (the
// connection's ContextPool).
//
// A query needs a context of its own so that closing its rows early can end
// the call. context.WithCancel costs about five allocations per query (the
// context, its cancel function, its Done channel and, because gRPC derives
// the call's context from it, a children map). A call read to its end
// leaves that context unused and uncancelled (one ended by a message marked
// last is read to its end in the background, see drainAfterLast), so the
// connection keeps it (ContextPool) and the next query made with the same
// caller context takes it instead of making another: the loop of a batch
// job, a handler running several queries with its request's context, a
// benchmark.
//
// Ownership is decided by one atomic state per query (Query.ctxState):
// a context whose call was cancelled is never reused, and a context handed
// back is never cancelled by the query that gave it back, whichever of the
// consumer, the read-ahead goroutine or Close gets there first.

// reusableContext is a cancellable child of a caller's context.
type reusableContext struct {
	parent context.Context
	ctx    context.Context
	cancel context.CancelFunc
}

// States of Query.ctxState.
const (
	ctxLive      = iota // the query's call may be running
	ctxCancelled        // cancelled: never reused
	ctxReturned         // the call ended normally; handed back to the connection
)

// ContextPool is a connection's two slots for the spare contexts of
// queries whose calls ended normally, for the next queries made with the
// same caller context, and the connection's drainer, which reads the ends
// of its calls (drain.go). The zero value is an empty pool. Atomic: a
// read-ahead or draining goroutine hands contexts back.
//
// Two slots, because the end of a call (the status behind a message marked
// last) is read by the drainer after the rows are closed, so the
// connection's next query may start before the previous one's context is
// back: with one slot that query made a context, and the hand-back that
// followed cancelled the older spare. One concurrent-point query in eight
// (one point query in 25) made and cancelled a context under the caller's
// that way, each taking the caller context's lock, which every goroutine
// sharing that context contends for; with two slots, one in 14 (one in
// 500), as consecutive queries alternate between the spares.
type ContextPool struct {
	spare  [2]atomic.Pointer[reusableContext]
	drains drainer
}

// connClosed is the spare slots' value once the pool is closed: a
// call that ends after that (a draining or read-ahead goroutine) cancels
// its context instead of leaving it registered under the caller's.
var connClosed = new(reusableContext)

// take returns a cancellable context derived from parent: a spare one
// when it was made from this very parent and is still live, else a new one
// (in a spare's struct when there is one). Spares made from another
// parent are cancelled.
func (p *ContextPool) take(parent context.Context) *reusableContext {
	var rc *reusableContext
	for i := range p.spare {
		// Compare-and-swap, never a Swap and a Store back: a closed
		// slot stays closed, and a context a hand-back stores meanwhile
		// stays there.
		s := p.spare[i].Load()
		if s == nil || s == connClosed || !p.spare[i].CompareAndSwap(s, nil) {
			continue
		}
		switch {
		case sameContext(s.parent, parent) && s.ctx.Err() == nil:
			return s
		default:
			s.cancel() // made for another caller context: unregister it there
			rc = s
		}
	}
	if rc == nil {
		rc = new(reusableContext)
	}
	rc.parent = parent
	rc.ctx, rc.cancel = context.WithCancel(parent)
	return rc
}

// put keeps rc for a later query in a free slot, else in place of the
// first slot's spare, which is cancelled; rc is cancelled when the pool is
// closed.
func (p *ContextPool) put(rc *reusableContext) {
	for i := range p.spare {
		if p.spare[i].CompareAndSwap(nil, rc) {
			return
		}
	}
	for {
		old := p.spare[0].Load()
		if old == connClosed {
			rc.cancel()
			return
		}
		if p.spare[0].CompareAndSwap(old, rc) {
			if old != nil {
				old.cancel()
			}
			return
		}
	}
}

// Close cancels the spare contexts, keeps the pool from holding others
// and ends the drainer (the connection closed).
func (p *ContextPool) Close() {
	p.drains.stop()
	for i := range p.spare {
		if rc := p.spare[i].Swap(connClosed); rc != nil && rc != connClosed {
			rc.cancel()
		}
	}
}

// sameContext reports whether a and b are the same context object. Only
// pointers (every context of package context but Background and TODO) are
// compared: == on two values of one non-comparable type would panic.
func sameContext(a, b context.Context) bool {
	if reflect.TypeOf(a).Kind() == reflect.Pointer {
		return a == b
	}
	bg, todo := context.Background(), context.TODO()
	return (a == bg && b == bg) || (a == todo && b == todo)
}

// Cancel cancels the query's call (for a caller's context that bounds the
// wait for the first response); safe from any goroutine.
func (q *Query) Cancel() { q.cancel() }

// cancel is callControl.cancel for a query's call.
func (q *Query) cancel() {
	if q.ctxState.CompareAndSwap(ctxLive, ctxCancelled) {
		q.ctx.cancel()
	}
}

// ended is callControl.ended: the call is over, so a context that the
// connection may reuse goes back to it; one that it may not (with a
// statement_timeout deadline) is released.
func (q *Query) ended() {
	if q.pool == nil {
		q.cancel()
		return
	}
	if q.ctxState.CompareAndSwap(ctxLive, ctxReturned) {
		q.pool.put(q.ctx)
	}
}
