package wire

import (
	"runtime"
	"sync"
	"sync/atomic"

	"google.golang.org/grpc/mem"
)

// RecvPool is the buffer pool of the driver's gRPC channels (installed with
// experimental.WithBufferPool) and of StreamCodec: the HTTP/2 DATA frames
// gRPC reads and the whole messages StreamCodec joins them into.
//
// gRPC's default pool keeps its buffers in sync.Pools, which every garbage
// collection empties (after one cycle in the victim cache) and which clear
// every buffer they hand out. A reader that allocates per row (safe mode)
// collects every few megabytes, so after each collection the next messages
// allocate their receive buffers again (and clear them), adding to the
// allocation that brings the next collection. RecvPool keeps a bounded
// number of buffers per size across collections and does not clear them:
// every buffer it hands out is written over its whole length by its user
// (gRPC reads a frame into it, StreamCodec copies a message into it).
//
// Bound: the process keeps at most recvPoolKeep bytes per tier (20 MiB in
// all, whatever the number of connections), and a tier that handed out no
// buffer between two garbage collections gives all it keeps back to the
// heap at the second, so an idle process (whose runtime still collects at
// least every two minutes) returns to the default pool's footprint. Sizes
// outside the tiers go to gRPC's default pool.
var RecvPool mem.BufferPool = newRecvPool()

// recvPoolKeep is the most bytes one tier keeps.
const recvPoolKeep = 4 << 20

// recvTiers are the pooled sizes, in steps of four: HTTP/2 DATA frames
// (gRPC pools those of 1 KiB and more; 16 KiB is the largest it reads) and
// messages joined from frames up to 1 MiB (a message takes the smallest
// tier that holds it, where the default pool's tiers jump from 32 KiB to
// 1 MiB).
var recvTiers = [...]int{4 << 10, 16 << 10, 64 << 10, 256 << 10, 1 << 20}

type recvPool struct {
	tiers    [len(recvTiers)]recvTier
	fallback mem.BufferPool
}

type recvTier struct {
	size int
	keep int // most buffers kept

	mu   sync.Mutex
	free []*[]byte
	used atomic.Bool // a buffer was handed out since the last collection
}

var _ mem.BufferPool = (*recvPool)(nil)

func newRecvPool() *recvPool {
	p := &recvPool{fallback: mem.DefaultBufferPool()}
	for i, size := range recvTiers {
		p.tiers[i] = recvTier{size: size, keep: recvPoolKeep / size}
	}
	p.armTrim()
	return p
}

// tier returns the tier for a buffer of length n, nil when none holds it.
func (p *recvPool) tier(n int) *recvTier {
	for i := range p.tiers {
		if n <= p.tiers[i].size {
			return &p.tiers[i]
		}
	}
	return nil
}

// Get returns a buffer of length n whose contents are undefined.
func (p *recvPool) Get(n int) *[]byte {
	t := p.tier(n)
	if t == nil {
		return p.fallback.Get(n)
	}
	if !t.used.Load() {
		t.used.Store(true)
	}
	t.mu.Lock()
	if k := len(t.free); k > 0 {
		b := t.free[k-1]
		t.free[k-1] = nil
		t.free = t.free[:k-1]
		t.mu.Unlock()
		*b = (*b)[:n]
		return b
	}
	t.mu.Unlock()
	b := make([]byte, n, t.size)
	return &b
}

// Put keeps b for a later Get when its tier has room; a buffer of another
// capacity (not one of ours) goes to the default pool.
func (p *recvPool) Put(b *[]byte) {
	c := cap(*b)
	t := p.tier(c)
	if t == nil || t.size != c {
		p.fallback.Put(b)
		return
	}
	t.mu.Lock()
	if len(t.free) < t.keep {
		t.free = append(t.free, b)
	}
	t.mu.Unlock()
}

// armTrim runs trim after the next garbage collection, and again after
// each one following.
func (p *recvPool) armTrim() {
	runtime.AddCleanup(new(trimSentinel), func(p *recvPool) { p.trim(); p.armTrim() }, p)
}

// trimSentinel is garbage as soon as armTrim returns; it holds a pointer
// so that it is not batched with other tiny objects, whose block may
// outlive it.
type trimSentinel struct{ _ *int }

// trim drops what a tier keeps when it handed out nothing since the last
// collection.
func (p *recvPool) trim() {
	for i := range p.tiers {
		t := &p.tiers[i]
		if t.used.Swap(false) {
			continue
		}
		t.mu.Lock()
		clear(t.free)
		t.free = t.free[:0]
		t.mu.Unlock()
	}
}
