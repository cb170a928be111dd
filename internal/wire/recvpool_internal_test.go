package wire

import (
	"runtime"
	"testing"
)

// A buffer given back is handed out again after garbage collections, which
// empty gRPC's default (sync.Pool) pool.
func TestRecvPoolKeepsBuffersAcrossCollections(t *testing.T) {
	p := newRecvPool()
	b := p.Get(900 << 10)
	if len(*b) != 900<<10 || cap(*b) != 1<<20 {
		t.Fatalf("Get(900 KiB): len %d cap %d, want 900 KiB in the 1 MiB tier", len(*b), cap(*b))
	}
	p.Put(b)
	for range 3 {
		runtime.GC()
		got := p.Get(700 << 10)
		if got != b {
			t.Fatalf("after a collection Get returned a new buffer, not the one kept")
		}
		p.Put(got)
	}
}

// A tier keeps at most recvPoolKeep bytes; what it keeps is dropped once
// it handed out nothing for a whole collection cycle.
func TestRecvPoolBound(t *testing.T) {
	p := newRecvPool()
	tier := p.tier(16 << 10)
	var bufs []*[]byte
	for range tier.keep + 10 {
		bufs = append(bufs, p.Get(16<<10))
	}
	for _, b := range bufs {
		p.Put(b)
	}
	if n := tier.count(); n != tier.keep || n*tier.size != recvPoolKeep {
		t.Fatalf("16 KiB tier keeps %d buffers, want %d (%d bytes)", n, tier.keep, recvPoolKeep)
	}
	p.trim() // the tier was used in this cycle: kept
	if n := tier.count(); n != tier.keep {
		t.Fatalf("after a cycle of use the tier keeps %d, want %d", n, tier.keep)
	}
	p.trim() // unused for a whole cycle: given back
	if n := tier.count(); n != 0 {
		t.Fatalf("after an idle cycle the tier keeps %d buffers, want 0", n)
	}
}

// Sizes outside the tiers, and buffers of other capacities, go to gRPC's
// default pool and are never kept.
func TestRecvPoolOutsideTiers(t *testing.T) {
	p := newRecvPool()
	big := p.Get(3 << 20)
	if len(*big) != 3<<20 {
		t.Fatalf("Get(3 MiB) len %d", len(*big))
	}
	p.Put(big)
	odd := make([]byte, 10, 5000)
	p.Put(&odd)
	for i := range p.tiers {
		if n := p.tiers[i].count(); n != 0 {
			t.Fatalf("tier %d keeps %d buffers of foreign size", p.tiers[i].size, n)
		}
	}
}

func (t *recvTier) count() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.free)
}
