package stream

import (
	"context"
	"io"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/spannerfast/spannerfast/internal/wire"
)

// endedQuery is a connection's query whose message marked last has just
// been read: drainAfterLast hands its attempt, src, over.
func endedQuery(q *Query, c *ContextPool, parent context.Context, src Source) {
	*q = Query{pool: c, conn: c}
	q.ctx = c.take(parent)
	q.resumableStream = resumableStream{call: q, src: src}
}

// waitState waits until q's context was handed back or cancelled.
func waitState(t *testing.T, q *Query) int32 {
	deadline := time.Now().Add(10 * time.Second)
	for {
		if s := q.ctxState.Load(); s != ctxLive {
			return s
		}
		if time.Now().After(deadline) {
			t.Fatal("the end of the call was never read")
		}
		runtime.Gosched()
	}
}

// TestDrainerReusesItsGoroutine: the ends of a connection's calls are
// read by the connection's drainer, with no goroutine, timer or other
// allocation per call, and each call's context goes back to the pool.
func TestDrainerReusesItsGoroutine(t *testing.T) {
	c := &ContextPool{}
	defer c.Close()
	parent := context.Background()
	const runs = 200
	qs := make([]Query, runs+2)
	srcs := make([]frames, runs+2)
	i := 0
	allocs := testing.AllocsPerRun(runs, func() {
		srcs[i] = frames{err: io.EOF}
		q := &qs[i]
		endedQuery(q, c, parent, &srcs[i])
		q.drainAfterLast()
		if s := waitState(t, q); s != ctxReturned {
			t.Fatalf("call %d: state %d, want its context handed back", i, s)
		}
		i++
	})
	if allocs != 0 {
		t.Fatalf("reading the end of a call allocates %.1f times, want 0 (a goroutine and a timer per call?)", allocs)
	}
}

// blockingSource blocks in Recv until its call is cancelled.
type blockingSource struct{ done chan struct{} }

func (b *blockingSource) Recv() (*wire.Frame, error) {
	<-b.done
	return nil, context.Canceled
}
func (b *blockingSource) Close() error { return nil }

// cancelRecord is a callControl whose cancel ends a blockingSource.
type cancelRecord struct {
	src           *blockingSource
	cancels, ends atomic.Int32
}

func (c *cancelRecord) cancel() {
	if c.cancels.Add(1) == 1 && c.src != nil {
		close(c.src.done)
	}
}
func (c *cancelRecord) ended() { c.ends.Add(1) }

// TestDrainerTimeLimit: a call whose status never comes is cancelled at
// the time limit; the next call, which waited behind it, ends normally
// (the limit does not carry over), and a third, sent while the drainer is
// busy and one already waits, is read by a goroutine of its own at once.
func TestDrainerTimeLimit(t *testing.T) {
	defer func(d time.Duration) { lastDrainLimit = d }(lastDrainLimit)
	lastDrainLimit = 200 * time.Millisecond
	c := &ContextPool{}
	hung := &cancelRecord{src: &blockingSource{done: make(chan struct{})}}
	var second, third cancelRecord
	start := time.Now()
	c.drains.submit(hung.src, hung)
	waitFor(t, func() bool {
		c.drains.mu.Lock()
		defer c.drains.mu.Unlock()
		return c.drains.call == hung
	})
	c.drains.submit(&frames{err: io.EOF}, &second)
	c.drains.submit(&frames{n: 1, err: io.EOF}, &third)
	waitFor(t, func() bool { return third.ends.Load() == 1 })
	if time.Since(start) >= lastDrainLimit {
		t.Error("a call waited behind the hung one although another already waited")
	}
	waitFor(t, func() bool { return second.ends.Load()+second.cancels.Load() > 0 })
	if hung.cancels.Load() == 0 || hung.ends.Load() != 0 {
		t.Errorf("hung call: cancelled %d, ended %d; want cancelled", hung.cancels.Load(), hung.ends.Load())
	}
	if second.ends.Load() != 1 || second.cancels.Load() != 0 {
		t.Errorf("call after the hung one: ended %d, cancelled %d; want ended", second.ends.Load(), second.cancels.Load())
	}
	c.Close()
	goleak.VerifyNone(t, ignoreOpenCensus)
}

// TestDrainerStops: closing the connection ends its drainer; a call that
// ends afterwards is still read to its end.
func TestDrainerStops(t *testing.T) {
	c := &ContextPool{}
	var first, late cancelRecord
	c.drains.submit(&frames{err: io.EOF}, &first)
	waitFor(t, func() bool { return first.ends.Load() == 1 })
	c.Close()
	goleak.VerifyNone(t, ignoreOpenCensus)
	c.drains.submit(&frames{err: io.EOF}, &late)
	waitFor(t, func() bool { return late.ends.Load() == 1 })
	goleak.VerifyNone(t, ignoreOpenCensus)
}

// ignoreOpenCensus: the official client's dependency starts a worker at
// init.
var ignoreOpenCensus = goleak.IgnoreTopFunction("go.opencensus.io/stats/view.(*worker).start")

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("timed out")
		}
		time.Sleep(time.Millisecond)
	}
}
