package decode

import "google.golang.org/protobuf/types/known/structpb"

// Test hooks for the plan cache.

// ResetPlanCache empties the cache of option set o and bounds it to limit
// plans; it returns a function that restores the default limit.
func ResetPlanCache(o Options, limit int) (restore func()) {
	c := planCaches[o.index()]
	c.reset(limit)
	return func() { c.reset(planCacheLimit) }
}

// PlanCacheLen returns how many plans are cached for option set o.
func PlanCacheLen(o Options) int { return planCaches[o.index()].len() }

// PlanCached reports whether the plan for rowType is cached, without
// counting as a use.
func PlanCached(rowType []byte, o Options) bool {
	c := planCaches[o.index()]
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.m[string(rowType)] != nil
}

// ParseDecimalInt64 exposes the INT64 text parser to the fuzz test.
func ParseDecimalInt64(s []byte) (int64, bool) { return parseDecimalInt64(s) }

// SetStructInPlace switches STRUCT values between the Row built in place
// over values built by buildValues and spanner.NewRow over values from
// proto.Unmarshal; it returns the previous setting. Plans built before the
// switch keep no state of it.
func SetStructInPlace(on bool) (was bool) {
	was, rowLayoutOK, buildStructValues = rowLayoutOK && buildStructValues, on, on
	return was
}

// BuildValues exposes buildValues to its fuzz test.
func BuildValues(l []byte) ([]*structpb.Value, bool) { return buildValues(l) }
