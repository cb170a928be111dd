package decode_test

import (
	"database/sql/driver"
	"fmt"
	"runtime"
	"testing"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/spannerfast/spannerfast/decode"
)

func encRow(vs ...*structpb.Value) [][]byte {
	row := make([][]byte, len(vs))
	for i, v := range vs {
		row[i] = enc(v)
	}
	return row
}

// TestAllocsSafeRow: safe-mode rows of (INT64, STRING, FLOAT64) share
// their memory: one allocation for every 4 KiB of rows, at most 1/64 of an
// allocation per row (48 bytes a row: 85 rows a chunk).
func TestAllocsSafeRow(t *testing.T) {
	p := mustPlan(t, decode.Options{}, fld("id", tInt64), fld("name", tString), fld("score", tFloat64))
	d := decode.NewRowDecoder(p, false)
	row := encRow(str("123456"), str("sixteen bytes!!!"), num(98.5))
	dest := make([]driver.Value, 3)
	allocs := mallocsPerRun(6400, func() {
		if err := d.Decode(row, dest); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 1.0/64 || allocs == 0 {
		t.Errorf("safe (INT64, STRING, FLOAT64) row: %v allocations, want at most 1/64", allocs)
	}
	if dest[0] != int64(123456) || dest[1] != "sixteen bytes!!!" || dest[2] != 98.5 {
		t.Errorf("decoded %v", dest)
	}
	// A fresh decoder's first row gets a chunk of its own size, not 4 KiB
	// (a point read would pay for the whole chunk).
	fresh := decode.NewRowDecoder(p, false)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if err := fresh.Decode(row, dest); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	// 48 = 8 + 16 (string header) + 16 (its bytes, unpadded) + 8.
	if b := after.TotalAlloc - before.TotalAlloc; b != 48 {
		t.Errorf("first row of a decoder: %d bytes allocated, want its 48", b)
	}
	// A row larger than a chunk costs one allocation of its own.
	big := mustPlan(t, decode.Options{}, fld("s", tString))
	bd := decode.NewRowDecoder(big, false)
	bigRow := encRow(str(string(make([]byte, 5000))))
	if a := testing.AllocsPerRun(100, func() { _ = bd.Decode(bigRow, dest[:1]) }); a != 1 {
		t.Errorf("5000-byte row: %v allocations, want 1", a)
	}
	// NULLs cost nothing.
	nulls := encRow(null(), null(), null())
	if a := mallocsPerRun(6400, func() { _ = d.Decode(nulls, dest) }); a > 1.0/64 {
		t.Errorf("row of NULLs: %v allocations, want at most 1/64", a)
	}
}

// mallocsPerRun is testing.AllocsPerRun without its rounding down to a
// whole number: the fraction is the point when rows share allocations.
func mallocsPerRun(runs int, f func()) float64 {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	f()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range runs {
		f()
	}
	runtime.ReadMemStats(&after)
	return float64(after.Mallocs-before.Mallocs) / float64(runs)
}

// TestAllocsRawRow: a raw-mode row of (INT64, STRING, FLOAT64, BOOL,
// TIMESTAMP) allocates nothing once the slab exists.
func TestAllocsRawRow(t *testing.T) {
	for _, poison := range []bool{false, true} {
		p := mustPlan(t, decode.Options{Raw: true}, fld("id", tInt64), fld("name", tString), fld("score", tFloat64),
			fld("ok", tBool), fld("at", tTimestamp))
		d := decode.NewRowDecoder(p, poison)
		rows := [][][]byte{
			encRow(str("1"), str("sixteen bytes!!!"), num(1.5), boolv(true), str("2024-02-29T12:00:00.123456789Z")),
			encRow(null(), str(""), str("NaN"), null(), null()),
			encRow(str("-9223372036854775808"), str("x"), num(-2), boolv(false), str("0001-01-01T00:00:00Z")),
		}
		dest := make([]driver.Value, 5)
		i := 0
		allocs := testing.AllocsPerRun(1000, func() {
			if err := d.Decode(rows[i%len(rows)], dest); err != nil {
				t.Fatal(err)
			}
			i++
		})
		if allocs != 0 {
			t.Errorf("poison=%v: raw row: %v allocations, want 0", poison, allocs)
		}
	}
	// A fresh raw decoder's first narrow row uses the decoder's own inline
	// slab (a point read pays no slab allocation); a wider row allocates
	// one, and both decode right.
	p := mustPlan(t, decode.Options{Raw: true}, fld("id", tInt64), fld("name", tString), fld("score", tFloat64),
		fld("ok", tBool), fld("at", tTimestamp))
	point := encRow(str("7"), str("Alice"), num(4.5), boolv(true), str("2024-02-29T12:00:00Z"))
	dest := make([]driver.Value, 5)
	var d *decode.RowDecoder
	if a := testing.AllocsPerRun(100, func() {
		d = decode.NewRowDecoder(p, false)
		if err := d.Decode(point, dest); err != nil {
			t.Fatal(err)
		}
	}); a != 1 {
		t.Errorf("fresh raw decoder and its first narrow row: %v allocations, want 1 (the decoder)", a)
	}
	if dest[0] != int64(7) || string(dest[1].([]byte)) != "Alice" || dest[2] != 4.5 || dest[3] != true {
		t.Errorf("decoded %v", dest)
	}
	var fields []*spannerpb.StructType_Field
	var vals []*structpb.Value
	for i := range 20 {
		fields = append(fields, fld(fmt.Sprintf("c%d", i), tInt64))
		vals = append(vals, str(fmt.Sprint(i)))
	}
	wp := mustPlan(t, decode.Options{Raw: true}, fields...)
	wrow := encRow(vals...)
	wdest := make([]driver.Value, 20)
	if a := testing.AllocsPerRun(100, func() { _ = decode.NewRowDecoder(wp, false).Decode(wrow, wdest) }); a != 2 {
		t.Errorf("fresh raw decoder and a first 160-byte row: %v allocations, want 2 (the decoder and its slab)", a)
	}
	if wdest[19] != int64(19) {
		t.Errorf("wide raw row decoded %v", wdest)
	}
}

var planCacheRun int

// TestAllocsPlanCache: a cached PlanFor is allocation-free and builds no
// plan again.
func TestAllocsPlanCache(t *testing.T) {
	// A shape no other run has used: the cache is process-wide and
	// -count=N runs this test N times.
	planCacheRun++
	var cols []*spannerpb.StructType_Field
	for i := range 101 {
		cols = append(cols, fld(fmt.Sprintf("alloc_test_col_%03d_run%d", i, planCacheRun), tString))
	}
	rt := rowType(cols...)
	before := decode.PlanMisses()
	p1, err := decode.PlanFor(rt, decode.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var p *decode.Plan
	allocs := testing.AllocsPerRun(10000, func() {
		p, _ = decode.PlanFor(rt, decode.Options{})
	})
	if allocs != 0 {
		t.Errorf("cached PlanFor: %v allocations, want 0", allocs)
	}
	if p != p1 {
		t.Error("cached PlanFor returned another plan")
	}
	if misses := decode.PlanMisses() - before; misses != 1 {
		t.Errorf("10,001 lookups of one shape built %d plans, want 1", misses)
	}
	// Other options are another plan; a copy of the bytes is the same one.
	if q, _ := decode.PlanFor(rt, decode.Options{Raw: true}); q == p1 || q.Options() != (decode.Options{Raw: true}) {
		t.Error("Raw plan is not a separate plan")
	}
	if q, _ := decode.PlanFor(append([]byte(nil), rt...), decode.Options{}); q != p1 {
		t.Error("equal row type bytes gave another plan")
	}
}

// TestAllocsWideColumns: what one value of each heap-allocated column type
// of the wide row costs, in both modes: a JSON object of two scalars is
// its map (header and slots) plus one allocation for the NullJSON, its
// numbers and its strings (up to a block sized from the document: 40, 104
// or 232 bytes); an array in it is one more; a NUMERIC of up to 18 digits is one; an
// ARRAY<INT64> is one, slice header included.
func TestAllocsWideColumns(t *testing.T) {
	for _, c := range []struct {
		typ  *spannerpb.Type
		in   *structpb.Value
		want float64
	}{
		{tJSON, str(`{"a":1,"b":"xy"}`), 3},
		// Longer documents get a larger first block with their NullJSON.
		{tJSON, str(`{"active":false,"id":12345,"name":"abcdefgh"}`), 3},
		{tJSON, str(`{"active":true,"id":98765,"name":"abcdefgh","tags":["one","two","three"],"score":12.5}`), 4},
		{tNumeric, str("12345.678901"), 1},
		{tNumeric, str("-0.5"), 1},
		{arrayOf(tInt64), list(str("1"), null(), str("333")), 1},
		{arrayOf(tFloat64), list(num(1), null()), 1},
		{arrayOf(tBool), list(boolv(true)), 1},
	} {
		for _, raw := range []bool{false, true} {
			d := decode.NewRowDecoder(mustPlan(t, decode.Options{Raw: raw}, fld("c", c.typ)), false)
			row := encRow(c.in)
			dest := make([]driver.Value, 1)
			if a := testing.AllocsPerRun(200, func() {
				if err := d.Decode(row, dest); err != nil {
					t.Fatal(err)
				}
			}); a != c.want {
				t.Errorf("%s %s raw=%v: %v allocations, want %v", decode.TypeName(c.typ), pbCanon(c.in), raw, a, c.want)
			}
		}
	}
}

// TestAllocsPostgreSQLMatchesGoogleSQL: a PostgreSQL-annotated column costs
// what its GoogleSQL counterpart costs, in both modes: PG_JSONB what JSON
// does (one allocation holds the PGJsonB with the document's first block),
// PG_OID what INT64 does, PG_NUMERIC what NUMERIC as text does (both are
// the decimal text), and their arrays what go-sql-spanner's counterparts
// do (ARRAY<NUMERIC> is []spanner.NullNumeric whatever the options).
func TestAllocsPostgreSQLMatchesGoogleSQL(t *testing.T) {
	asText := decode.Options{NumericAsString: true}
	for _, c := range []struct {
		pg, gsql *spannerpb.Type
		o        decode.Options // of the GoogleSQL column
		in       *structpb.Value
	}{
		{tPGJSONB, tJSON, decode.Options{}, str(`{"a":1,"b":"xy"}`)},
		{tPGJSONB, tJSON, decode.Options{}, str(`{"active":false,"id":12345,"name":"abcdefgh"}`)},
		{tPGJSONB, tJSON, decode.Options{}, str(`{"active":true,"id":98765,"name":"abcdefgh","tags":["one","two","three"],"score":12.5}`)},
		{tPGJSONB, tJSON, decode.Options{}, str(`[1,2,3]`)},
		{tPGJSONB, tJSON, decode.Options{}, null()},
		{tPGOID, tInt64, decode.Options{}, str("4294967295")},
		{tPGOID, tInt64, decode.Options{}, null()},
		{tPGNumeric, tNumeric, asText, str("12345.678901")},
		{tPGNumeric, tNumeric, asText, str("NaN")},
		{tPGNumeric, tNumeric, asText, null()},
		{arrayOf(tPGOID), arrayOf(tInt64), decode.Options{}, list(str("1"), null(), str("333"))},
		{arrayOf(tPGJSONB), arrayOf(tJSON), decode.Options{}, list(str(`{"k":1}`), null())},
		{arrayOf(tPGNumeric), arrayOf(tNumeric), decode.Options{}, list(str("1.5"), null(), str("-2"))},
	} {
		for _, raw := range []bool{false, true} {
			allocs := func(typ *spannerpb.Type, o decode.Options) float64 {
				o.Raw = raw
				d := decode.NewRowDecoder(mustPlan(t, o, fld("c", typ)), false)
				row := encRow(c.in)
				dest := make([]driver.Value, 1)
				return testing.AllocsPerRun(200, func() {
					if err := d.Decode(row, dest); err != nil {
						t.Fatal(err)
					}
				})
			}
			pg, gsql := allocs(c.pg, decode.Options{}), allocs(c.gsql, c.o)
			if pg != gsql {
				t.Errorf("%s %s raw=%v: %v allocations, %s %v", decode.TypeName(c.pg), pbCanon(c.in), raw, pg, decode.TypeName(c.gsql), gsql)
			}
		}
	}
}

// TestAllocsNumericText: NUMERIC as text (decode_numeric_to_string) and
// PG_NUMERIC are checked in place and copied into the row's chunk (safe
// mode) or aliased (raw mode): no allocation of their own.
func TestAllocsNumericText(t *testing.T) {
	for _, c := range []struct {
		typ *spannerpb.Type
		o   decode.Options
	}{{tNumeric, decode.Options{NumericAsString: true}}, {tPGNumeric, decode.Options{}}} {
		for _, raw := range []bool{false, true} {
			o := c.o
			o.Raw = raw
			d := decode.NewRowDecoder(mustPlan(t, o, fld("c", c.typ)), false)
			row := encRow(str("-12345.678901"))
			dest := make([]driver.Value, 1)
			if a := testing.AllocsPerRun(200, func() {
				if err := d.Decode(row, dest); err != nil {
					t.Fatal(err)
				}
			}); a != 0 {
				t.Errorf("%s %+v: %v allocations, want 0", decode.TypeName(c.typ), o, a)
			}
		}
	}
}
