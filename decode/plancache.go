package decode

import (
	"sync"
	"sync/atomic"
)

// planCacheLimit bounds the number of cached shapes per option set. ORMs
// produce many result shapes; past the limit the least recently used ones
// make room (CLOCK), so a hot shape stays cached however many cold ones pass.
const planCacheLimit = 1024

// planCache is a bounded CLOCK cache of plans keyed by the encoded row type.
//
// A hit takes the read lock, reads the map (m[string(b)] does not allocate)
// and sets the entry's reference bit, only when it is not set already, so
// hot entries do not bounce a cache line between cores. A miss takes the
// write lock, and if the cache is full advances the clock hand over the ring,
// clearing reference bits, to the first entry not used since the hand last
// passed it, and replaces that entry: O(1) amortized, no copying.
type planCache struct {
	mu    sync.RWMutex
	m     map[string]*planEntry
	ring  []*planEntry // entries in insertion slots; len(ring) <= limit
	hand  int          // next ring slot the clock looks at
	limit int
}

type planEntry struct {
	key  string
	plan *Plan
	ref  atomic.Bool // used since the clock hand last passed
}

func newPlanCache(limit int) *planCache {
	return &planCache{m: make(map[string]*planEntry, limit), limit: max(limit, 1)}
}

// get returns the cached plan for key, or nil.
func (c *planCache) get(key []byte) *Plan {
	c.mu.RLock()
	e := c.m[string(key)]
	c.mu.RUnlock()
	if e == nil {
		return nil
	}
	if !e.ref.Load() {
		e.ref.Store(true)
	}
	return e.plan
}

// add caches p under key and returns the plan now cached for key: p, or the
// plan another goroutine cached first (so that every caller shares one).
func (c *planCache) add(key []byte, p *Plan) *Plan {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e := c.m[string(key)]; e != nil {
		e.ref.Store(true)
		return e.plan
	}
	e := &planEntry{key: string(key), plan: p}
	if len(c.ring) < c.limit {
		c.ring = append(c.ring, e)
	} else {
		c.ring[c.evict()] = e
	}
	c.m[e.key] = e
	return p
}

// evict frees the ring slot of the first entry the hand finds unreferenced,
// giving referenced ones a second chance, and returns that slot.
func (c *planCache) evict() int {
	for {
		i := c.hand
		c.hand = (c.hand + 1) % len(c.ring)
		if e := c.ring[i]; e.ref.Load() {
			e.ref.Store(false)
			continue
		}
		delete(c.m, c.ring[i].key)
		return i
	}
}

// reset empties the cache and sets its limit (tests).
func (c *planCache) reset(limit int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m, c.ring, c.hand, c.limit = make(map[string]*planEntry, limit), nil, 0, max(limit, 1)
}

// len returns the number of cached plans (tests).
func (c *planCache) len() int {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return len(c.m)
}

// One cache per option set (Options.index).
var (
	planCaches = func() (cs [8]*planCache) {
		for i := range cs {
			cs[i] = newPlanCache(planCacheLimit)
		}
		return cs
	}()
	planMisses atomic.Int64
)

// PlanFor returns the plan for an encoded StructType (ResultSetMetadata's
// row_type), from the cache when the same bytes were seen recently.
func PlanFor(rowType []byte, o Options) (*Plan, error) {
	cache := planCaches[o.index()]
	if p := cache.get(rowType); p != nil {
		return p, nil
	}
	p, err := buildPlan(rowType, o)
	if err != nil {
		return nil, err
	}
	return cache.add(rowType, p), nil
}

// PlanMisses counts plans built since start (for tests and benchmarks).
func PlanMisses() int64 { return planMisses.Load() }
