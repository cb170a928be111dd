package decode_test

import (
	"fmt"
	"sync"
	"testing"

	"cloud.google.com/go/spanner/apiv1/spannerpb"

	"github.com/spannerfast/spannerfast/decode"
)

// planCacheOpts is an option set no other test uses, so resetting its cache
// disturbs nothing else.
var planCacheOpts = decode.Options{Raw: true, NativeArrays: true, NumericAsString: true}

func shape(name string) []byte { return rowType(fld(name, tInt64), fld("v", tString)) }

func planOf(t *testing.T, rt []byte) *decode.Plan {
	t.Helper()
	p, err := decode.PlanFor(rt, planCacheOpts)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestPlanCacheEviction: a full cache makes room by evicting the entry least
// recently used (CLOCK: not used since the hand last passed), never by
// dropping everything; a used entry survives.
func TestPlanCacheEviction(t *testing.T) {
	defer decode.ResetPlanCache(planCacheOpts, 3)()
	a, b, c, d, e, f := shape("a"), shape("b"), shape("c"), shape("d"), shape("e"), shape("f")
	pa := planOf(t, a)
	planOf(t, b)
	planOf(t, c)
	if planOf(t, a) != pa { // a hit: a is now recently used
		t.Fatal("a hit returned another plan")
	}
	planOf(t, d) // full: evicts b, the oldest entry not used since
	checkCached(t, map[string][]byte{"a": a, "c": c, "d": d}, map[string][]byte{"b": b})
	planOf(t, e) // a used its second chance above: c goes
	checkCached(t, map[string][]byte{"a": a, "d": d, "e": e}, map[string][]byte{"c": c})
	planOf(t, f) // a unused since the hand passed: a goes
	checkCached(t, map[string][]byte{"d": d, "e": e, "f": f}, map[string][]byte{"a": a})
	if n := decode.PlanCacheLen(planCacheOpts); n != 3 {
		t.Errorf("cache holds %d plans, want 3", n)
	}
	// A hot shape among a stream of cold ones stays cached.
	hot := shape("hot")
	planOf(t, hot)
	before := decode.PlanMisses()
	for i := range 50 {
		planOf(t, shape(fmt.Sprintf("cold%d", i)))
		planOf(t, hot)
	}
	if built := decode.PlanMisses() - before; built != 50 {
		t.Errorf("built %d plans for 50 cold shapes and one hot one, want 50 (the hot one was evicted)", built)
	}
}

func checkCached(t *testing.T, in, out map[string][]byte) {
	t.Helper()
	for name, rt := range in {
		if !decode.PlanCached(rt, planCacheOpts) {
			t.Errorf("shape %s evicted, want it cached", name)
		}
	}
	for name, rt := range out {
		if decode.PlanCached(rt, planCacheOpts) {
			t.Errorf("shape %s still cached, want it evicted", name)
		}
	}
}

// TestPlanCacheConcurrent: many goroutines over more shapes than the cache
// holds always get the plan of the shape they asked for, and the cache stays
// bounded (run with -race).
func TestPlanCacheConcurrent(t *testing.T) {
	const limit, shapes, workers, rounds = 8, 40, 16, 300
	defer decode.ResetPlanCache(planCacheOpts, limit)()
	rts := make([][]byte, shapes)
	for i := range rts {
		rts[i] = shape(fmt.Sprintf("s%02d", i))
	}
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range rounds {
				i := (w*7 + r*(w+1)) % shapes
				if r%3 == 0 {
					i %= 4 // a few hot shapes
				}
				p, err := decode.PlanFor(rts[i], planCacheOpts)
				if err != nil {
					errs <- err
					return
				}
				if want := fmt.Sprintf("s%02d", i); p.Names[0] != want || p.Options() != planCacheOpts {
					errs <- fmt.Errorf("shape %s got the plan of %s %+v", want, p.Names[0], p.Options())
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if n := decode.PlanCacheLen(planCacheOpts); n > limit {
		t.Errorf("cache holds %d plans, limit %d", n, limit)
	}
}

// TestPlanKeyHasAnnotation: a PostgreSQL-annotated column and its GoogleSQL
// counterpart of the same name are different shapes, each its own cached
// plan (the key is the encoded row type, annotation included), and each hit
// afterwards.
func TestPlanKeyHasAnnotation(t *testing.T) {
	defer decode.ResetPlanCache(planCacheOpts, 16)()
	for _, pair := range [][2]*spannerpb.Type{{tNumeric, tPGNumeric}, {tJSON, tPGJSONB}, {tInt64, tPGOID}, {arrayOf(tNumeric), arrayOf(tPGNumeric)}} {
		g, p := rowType(fld("c", pair[0])), rowType(fld("c", pair[1]))
		before := decode.PlanMisses()
		pg, pp := planOf(t, g), planOf(t, p)
		if pg == pp || decode.PlanMisses()-before != 2 {
			t.Errorf("%s and %s share a plan", decode.TypeName(pair[0]), decode.TypeName(pair[1]))
		}
		if planOf(t, g) != pg || planOf(t, p) != pp || decode.PlanMisses()-before != 2 {
			t.Errorf("%s / %s: a second lookup built a plan again", decode.TypeName(pair[0]), decode.TypeName(pair[1]))
		}
	}
}
