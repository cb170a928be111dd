package rows

import (
	"sync"
	"sync/atomic"

	"github.com/spannerfast/spannerfast/internal/wire"
)

// prefetcher reads frames ahead of the consumer on one goroutine and hands
// them over through a bounded single-producer/single-consumer ring. Both
// sides touch only atomics while the ring is neither empty nor full; a side
// parks on a one-slot channel only when it has to wait.
type prefetcher struct {
	src Stream

	slots []prefetchSlot
	mask  uint64
	head  atomic.Uint64 // next slot the consumer reads
	tail  atomic.Uint64 // next slot the producer writes

	notEmpty chan struct{} // producer -> consumer wake-up
	notFull  chan struct{} // consumer -> producer wake-up
	stop     chan struct{} // closed by Close
	exited   sync.WaitGroup
	closed   bool
}

type prefetchSlot struct {
	frame *wire.Frame
	err   error
}

// startPrefetch starts reading src ahead, at most depth frames (rounded up
// to a power of two).
func startPrefetch(src Stream, depth int) *prefetcher {
	n := 1
	for n < depth {
		n <<= 1
	}
	p := &prefetcher{
		src:      src,
		slots:    make([]prefetchSlot, n),
		mask:     uint64(n - 1),
		notEmpty: make(chan struct{}, 1),
		notFull:  make(chan struct{}, 1),
		stop:     make(chan struct{}),
	}
	p.exited.Add(1)
	go p.produce()
	return p
}

func (p *prefetcher) produce() {
	defer p.exited.Done()
	defer p.src.Close()
	for {
		f, err := p.src.Recv()
		if !p.push(prefetchSlot{f, err}) {
			f.Release(false)
			return
		}
		if err != nil {
			return
		}
	}
}

// push waits for room; false means the consumer closed.
func (p *prefetcher) push(s prefetchSlot) bool {
	tail := p.tail.Load()
	for tail-p.head.Load() > p.mask {
		select {
		case <-p.notFull:
		case <-p.stop:
			return false
		}
	}
	p.slots[tail&p.mask] = s
	p.tail.Store(tail + 1)
	select {
	case p.notEmpty <- struct{}{}:
	default:
	}
	return true
}

// Recv returns the next frame read ahead, waiting when none is ready.
func (p *prefetcher) Recv() (*wire.Frame, error) {
	head := p.head.Load()
	for head == p.tail.Load() {
		<-p.notEmpty
	}
	s := p.slots[head&p.mask]
	p.slots[head&p.mask] = prefetchSlot{}
	p.head.Store(head + 1)
	select {
	case p.notFull <- struct{}{}:
	default:
	}
	return s.frame, s.err
}

// Cancel aborts the source from any goroutine.
func (p *prefetcher) Cancel() { p.src.Cancel() }

// Close cancels the source, waits for the reader goroutine to leave and
// releases the frames it read ahead.
func (p *prefetcher) Close() error {
	if p.closed {
		return nil
	}
	p.closed = true
	close(p.stop)
	p.src.Cancel()
	p.exited.Wait()
	for i := p.head.Load(); i != p.tail.Load(); i++ {
		p.slots[i&p.mask].frame.Release(false)
		p.slots[i&p.mask] = prefetchSlot{}
	}
	return nil
}
