package stream

import (
	"context"
	"io"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/spannerfast/spannerfast/internal/wire"
)

// liveQuery is a Query as Query.Prepare sets it up on a connection's
// pool, for the context hand-over alone.
func liveQuery(c *ContextPool, parent context.Context) *Query {
	q := &Query{pool: c}
	q.ctx = c.take(parent)
	return q
}

func TestStreamContextReusedAfterNormalEnd(t *testing.T) {
	c := &ContextPool{}
	ctx := context.Background()
	q1 := liveQuery(c, ctx)
	first := q1.ctx
	q1.ended()
	q1.cancel() // Close after the end: must not cancel what was handed back
	if first.ctx.Err() != nil {
		t.Fatal("a context handed back was cancelled by its old query's Close")
	}
	q2 := liveQuery(c, ctx)
	if q2.ctx != first {
		t.Fatal("the next query with the same caller context did not reuse the spare context")
	}
	q1.cancel()
	if q2.ctx.ctx.Err() != nil {
		t.Fatal("a late Cancel of the old query cancelled the new one's context")
	}
}

// The next query of a connection often starts before the previous one's
// call has ended (its end is read by the drainer): two contexts handed back
// late are both kept, and the next two queries take them instead of making
// new ones.
func TestStreamContextTwoSpares(t *testing.T) {
	c := &ContextPool{}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	q1 := liveQuery(c, ctx)
	q2 := liveQuery(c, ctx) // q1's call has not ended yet
	q1.ended()
	q2.ended()
	q3 := liveQuery(c, ctx)
	q4 := liveQuery(c, ctx)
	if q3.ctx == q4.ctx || (q3.ctx != q1.ctx && q3.ctx != q2.ctx) || (q4.ctx != q1.ctx && q4.ctx != q2.ctx) {
		t.Fatal("a query made a context while a spare was kept")
	}
	if q3.ctx.ctx.Err() != nil || q4.ctx.ctx.Err() != nil {
		t.Fatal("a spare context was cancelled")
	}
}

func TestStreamContextNotReused(t *testing.T) {
	type key struct{}
	c := &ContextPool{}
	parent := context.WithValue(context.Background(), key{}, 1)

	// Cancelled (rows closed early): never handed back.
	q := liveQuery(c, parent)
	q.cancel()
	q.ended()
	if q.ctx.ctx.Err() == nil || c.spare[0].Load() != nil || c.spare[1].Load() != nil {
		t.Fatal("a cancelled query's context was kept")
	}

	// Another caller context: a new context, and the spare is cancelled.
	q = liveQuery(c, parent)
	q.ended()
	spare := q.ctx.ctx
	other := context.WithValue(context.Background(), key{}, 2)
	q2 := liveQuery(c, other)
	if q2.ctx.ctx.Value(key{}) != 2 {
		t.Fatal("the query's context does not carry its caller's values")
	}
	if spare.Err() == nil {
		t.Fatal("the spare made for another caller context was not cancelled")
	}

	// A caller context cancelled since: not reused.
	pctx, cancel := context.WithCancel(context.Background())
	q = liveQuery(c, pctx)
	q.ended()
	cancel()
	if q3 := liveQuery(c, pctx); q3.ctx.ctx.Err() != context.Canceled {
		t.Fatal("want the cancelled caller's context to show through")
	}

	// Close drops the spare.
	q = liveQuery(c, parent)
	q.ended()
	c.Close()
	if q.ctx.ctx.Err() == nil {
		t.Fatal("Close left the spare context live")
	}
}

// valueCtx is a context of a non-comparable type: comparing two of them
// with == would panic.
type valueCtx struct {
	context.Context
	tags []string
}

func TestSameContextNeverPanics(t *testing.T) {
	a := valueCtx{context.Background(), []string{"a"}}
	b := valueCtx{context.Background(), []string{"a"}}
	if sameContext(a, b) || sameContext(a, a) {
		t.Fatal("values of a non-comparable type are never the same context")
	}
	if !sameContext(context.Background(), context.Background()) || sameContext(context.Background(), context.TODO()) {
		t.Fatal("Background and TODO compare by identity")
	}
	p := &valueCtx{Context: context.Background()}
	if !sameContext(p, p) || sameContext(p, &valueCtx{Context: context.Background()}) {
		t.Fatal("pointers compare by identity")
	}
}

// TestStreamContextHandOverProperty: queries of one connection end, get
// cancelled (Close, the read-ahead goroutine) and start in random order from
// several goroutines, as a consumer and a read-ahead goroutine do. A context
// is never cancelled while a query that did not cancel it holds it.
func TestStreamContextHandOverProperty(t *testing.T) {
	c := &ContextPool{}
	ctx := context.Background()
	for round := range 2000 {
		rng := rand.New(rand.NewPCG(uint64(round), 7))
		old := liveQuery(c, ctx)
		var wg sync.WaitGroup
		// The old query ends and is cancelled concurrently, in either order.
		wg.Add(2)
		go func() { defer wg.Done(); old.ended() }()
		go func() { defer wg.Done(); old.cancel() }()
		next := liveQuery(c, ctx) // may or may not get old's context
		wg.Wait()
		if rng.IntN(2) == 0 {
			old.cancel() // a late Close
		}
		if next.ctx.ctx.Err() != nil {
			t.Fatalf("round %d: a new query got a cancelled context", round)
		}
		if next.ctx == old.ctx && old.ctxState.Load() != ctxReturned {
			t.Fatalf("round %d: a context reused without being handed back", round)
		}
		if rng.IntN(2) == 0 {
			next.ended()
		} else {
			next.cancel()
		}
	}
}

// A context with a statement_timeout deadline is never kept: ending its
// call releases it at once (its timer would otherwise run until the
// deadline).
func TestStreamContextWithDeadlineReleasedAtEnd(t *testing.T) {
	tctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	q := &Query{ctx: &reusableContext{parent: context.Background(), ctx: tctx, cancel: cancel}}
	q.ended()
	if tctx.Err() == nil {
		t.Fatal("a deadline context was left running after its call ended")
	}
}

// callRecord is a callControl that records what happened to the call.
type callRecord struct{ cancels, ends atomic.Int32 }

func (c *callRecord) cancel() { c.cancels.Add(1) }
func (c *callRecord) ended()  { c.ends.Add(1) }

// frames is a Source that returns n frames, then err.
type frames struct {
	n   int
	err error
}

func (f *frames) Recv() (*wire.Frame, error) {
	if f.n == 0 {
		return nil, f.err
	}
	f.n--
	return wire.NewFrame([]byte{}), nil
}
func (f *frames) Close() error { return nil }

// TestDrainAttempt: after a message marked last, a call read to io.EOF
// is reported ended (its context reusable); one that fails instead is
// cancelled; whatever arrives before the end is dropped.
func TestDrainAttempt(t *testing.T) {
	for _, c := range []struct {
		src                    *frames
		wantEnded, wantCancels int32
	}{
		{&frames{err: io.EOF}, 1, 0},
		{&frames{n: 2, err: io.EOF}, 1, 0},
		{&frames{err: context.Canceled}, 0, 1},
	} {
		var rec callRecord
		drainAttempt(c.src, &rec)
		if rec.ends.Load() != c.wantEnded || rec.cancels.Load() != c.wantCancels {
			t.Errorf("source ending with %v after %d frames: ended %d, cancelled %d; want %d, %d",
				c.src.err, c.src.n, rec.ends.Load(), rec.cancels.Load(), c.wantEnded, c.wantCancels)
		}
	}
}

// A call that ends after its connection closed (a draining goroutine is
// late) cancels its context instead of leaving it kept, and so registered
// under the caller's context, by a closed connection.
func TestStreamContextAfterClose(t *testing.T) {
	c := &ContextPool{}
	parent, cancel := context.WithCancel(context.Background())
	defer cancel()
	q := liveQuery(c, parent)
	c.Close()
	q.ended()
	if q.ctx.ctx.Err() == nil {
		t.Fatal("a context handed back to a closed connection was kept live")
	}
	if q2 := liveQuery(c, parent); q2.ctx.ctx.Err() != nil {
		t.Fatal("a query on a closed connection got a cancelled context")
	}
}
