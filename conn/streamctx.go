package conn

import (
	"context"
	"reflect"
)

// The cancellable context of a streaming query, reused by the connection's
// next query when that query comes with the same caller context.
//
// A query needs a context of its own so that closing its rows early can end
// the call. context.WithCancel costs about five allocations per query (the
// context, its cancel function, its Done channel and, because gRPC derives
// the call's context from it, a children map). A call read to its end
// leaves that context unused and uncancelled (one ended by a message marked
// last is read to its end in the background, see drainAfterLast), so the
// connection keeps it (Conn.spareCtx) and the next query made with the same
// caller context takes it instead of making another: the loop of a batch
// job, a handler running several queries with its request's context, a
// benchmark.
//
// Ownership is decided by one atomic state per query (queryStream.ctxState):
// a context whose call was cancelled is never reused, and a context handed
// back is never cancelled by the query that gave it back, whichever of the
// consumer, the read-ahead goroutine or Close gets there first.

// reusableContext is a cancellable child of a caller's context.
type reusableContext struct {
	parent context.Context
	ctx    context.Context
	cancel context.CancelFunc
}

// States of queryStream.ctxState.
const (
	ctxLive      = iota // the query's call may be running
	ctxCancelled        // cancelled: never reused
	ctxReturned         // the call ended normally; handed back to the connection
)

// connClosed is the spare slot's value once the connection is closed: a
// call that ends after that (a draining or read-ahead goroutine) cancels
// its context instead of leaving it registered under the caller's.
var connClosed = new(reusableContext)

// takeStreamContext returns a cancellable context derived from parent: the
// connection's spare one when it was made from this very parent and is
// still live, else a new one (in the spare's struct when there is one).
func (c *Conn) takeStreamContext(parent context.Context) *reusableContext {
	rc := c.spareCtx.Swap(nil)
	switch {
	case rc == connClosed:
		c.spareCtx.Store(connClosed)
		rc = new(reusableContext)
	case rc == nil:
		rc = new(reusableContext)
	case sameContext(rc.parent, parent) && rc.ctx.Err() == nil:
		return rc
	default:
		rc.cancel() // made for another caller context: unregister it there
	}
	rc.parent = parent
	rc.ctx, rc.cancel = context.WithCancel(parent)
	return rc
}

// putStreamContext keeps rc for the next query; the spare it replaces is
// cancelled, and so is rc when the connection is closed.
func (c *Conn) putStreamContext(rc *reusableContext) {
	for {
		old := c.spareCtx.Load()
		if old == connClosed {
			rc.cancel()
			return
		}
		if c.spareCtx.CompareAndSwap(old, rc) {
			if old != nil {
				old.cancel()
			}
			return
		}
	}
}

// dropStreamContext cancels the spare context and keeps the connection
// from holding another (Conn.Close).
func (c *Conn) dropStreamContext() {
	if rc := c.spareCtx.Swap(connClosed); rc != nil && rc != connClosed {
		rc.cancel()
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

// cancel is callControl.cancel for a query's call.
func (q *queryStream) cancel() {
	if q.ctxState.CompareAndSwap(ctxLive, ctxCancelled) {
		q.ctx.cancel()
	}
}

// ended is callControl.ended: the call is over, so a context that the
// connection may reuse goes back to it; one that it may not (with a
// statement_timeout deadline) is released.
func (q *queryStream) ended() {
	if q.owner == nil {
		q.cancel()
		return
	}
	if q.ctxState.CompareAndSwap(ctxLive, ctxReturned) {
		q.owner.putStreamContext(q.ctx)
	}
}
