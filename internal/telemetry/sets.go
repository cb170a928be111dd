package telemetry

import (
	"sync"
	"sync/atomic"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
)

// Measurements are recorded with attribute sets that repeat: the
// connector's base attributes plus a few values from small fixed sets (an
// operation kind, a gRPC method, a status code). Building one per
// measurement (a slice, attribute.NewSet's sort and copy, the option
// holding it, the variadic slice of Record or Add) cost four allocations
// and a sort each time, several times per query. setCache builds each set
// once per connector and keeps the options ready to pass as they are.

// setFamily says which measurement a cached set is for: keys of different
// families never share a set even when their values coincide.
type setFamily uint8

const (
	famBase      setFamily = iota // the base attributes alone
	famOperation                  // + db.operation.name (kind in n)
	famAttempt                    // + rpc.method, rpc.grpc.status_code
	famRetries                    // + rpc.method, spanner.retry.outcome
	famNative                     // native labels + method, status
	famAbort                      // + spanner.abort.action
	famReplay                     // + spanner.replay.outcome
	famGFE                        // + grpc_client_method
	famExport                     // method, directpath_*, status alone (nativeexport.go)
)

// setKey identifies a cached set: its family and the values its extra
// attributes were made of.
type setKey struct {
	family setFamily
	s1, s2 string
	n      int64
}

// measureOpts are the options that give a measurement its attribute set,
// as Record and Add take them.
type measureOpts struct {
	rec []metric.RecordOption
	add []metric.AddOption
}

func newMeasureOpts(set attribute.Set) *measureOpts {
	o := metric.WithAttributeSet(set)
	return &measureOpts{rec: []metric.RecordOption{o}, add: []metric.AddOption{o}}
}

// maxCachedSets bounds a connector's cache. The keys come from small fixed
// sets, so it is never reached in practice; past it, sets are built per
// measurement rather than kept.
const maxCachedSets = 512

// setCache is a copy-on-write map: a lookup is an atomic load and a map
// read, without a lock; adding copies the map (a few times per connector).
type setCache struct {
	mu   sync.Mutex
	sets atomic.Pointer[map[setKey]*measureOpts]
}

// get returns the options of the set base+extra, known by k. extra is
// read only when k is not cached yet.
func (c *setCache) get(k setKey, base []attribute.KeyValue, extra ...attribute.KeyValue) *measureOpts {
	if m := c.sets.Load(); m != nil {
		if o, ok := (*m)[k]; ok {
			return o
		}
	}
	attrs := make([]attribute.KeyValue, 0, len(base)+len(extra))
	attrs = append(attrs, base...)
	attrs = append(attrs, extra...)
	o := newMeasureOpts(attribute.NewSet(attrs...))
	c.mu.Lock()
	defer c.mu.Unlock()
	old := c.sets.Load()
	if old != nil {
		if prev, ok := (*old)[k]; ok {
			return prev // built meanwhile by another goroutine
		}
		if len(*old) >= maxCachedSets {
			return o
		}
	}
	m := make(map[setKey]*measureOpts, 1+lenOf(old))
	if old != nil {
		for key, v := range *old {
			m[key] = v
		}
	}
	m[k] = o
	c.sets.Store(&m)
	return o
}

func lenOf(m *map[setKey]*measureOpts) int {
	if m == nil {
		return 0
	}
	return len(*m)
}

// opts returns the options of the connector's base attributes plus extra,
// cached under k.
func (t *Telemetry) opts(k setKey, extra ...attribute.KeyValue) *measureOpts {
	return t.sets.get(k, t.base, extra...)
}
