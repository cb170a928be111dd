package structscan

import (
	"fmt"
	"testing"
	"time"

	"cloud.google.com/go/spanner"
	"google.golang.org/protobuf/types/known/structpb"
)

// item is the benchmark's element: five fields of the commonest types.
type item struct {
	ID      int64
	Name    string
	Price   float64
	InStock bool
	Updated time.Time
}

var itemType = structOf(fld("id", tInt64), fld("name", tString), fld("price", tFloat), fld("instock", tBool), fld("updated", tTime))

func items(t testing.TB, n int) []spanner.NullRow {
	vs := make([]*structpb.Value, n)
	for i := range vs {
		vs[i] = list(str(fmt.Sprint(i)), str(fmt.Sprintf("item %d", i)), structpb.NewNumberValue(float64(i)/4),
			structpb.NewBoolValue(i%2 == 0), str("2024-05-06T07:08:09.123456Z"))
	}
	return rows(t, itemType, vs...)
}

// TestAllocsSlice: an ARRAY<STRUCT> of 100 elements scans into []item in
// one allocation (the slice; strings are the NullRows' own) and into
// []*item in three (the slice, and the one block of items with its
// header); no allocation per element.
func TestAllocsSlice(t *testing.T) {
	var src any = items(t, 100) // boxed once, as Next leaves it in dest
	var vals []item
	var ptrs []*item
	for _, c := range []struct {
		name string
		scan func() error
		max  float64
	}{
		{"values", func() error { return Slice(&vals).Scan(src) }, 1},
		{"pointers", func() error { return Slice(&ptrs).Scan(src) }, 3},
	} {
		if err := c.scan(); err != nil {
			t.Fatal(err)
		}
		if n := testing.AllocsPerRun(50, func() { _ = c.scan() }); n > c.max {
			t.Errorf("%s: %v allocations per scan of 100 elements, want at most %v", c.name, n, c.max)
		}
	}
	if vals[99].Name != "item 99" || ptrs[99].Price != 99.0/4 || !vals[98].InStock {
		t.Fatalf("got %+v %+v", vals[99], ptrs[99])
	}
}

// BenchmarkScanSlice: the conversion alone (the NullRows are made by Next
// in any case) against the hand-written Row.ToStruct loop it replaces.
func BenchmarkScanSlice(b *testing.B) {
	rows := items(b, 100)
	var src any = rows // boxed once, as Next leaves it in dest
	b.Run("Structs", func(b *testing.B) {
		b.ReportAllocs()
		var vals []item
		for b.Loop() {
			if err := Slice(&vals).Scan(src); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("StructPtrs", func(b *testing.B) {
		b.ReportAllocs()
		var vals []*item
		for b.Loop() {
			if err := Slice(&vals).Scan(src); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("ToStructLoop", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			vals := make([]item, len(rows))
			for i := range rows {
				if err := rows[i].Row.ToStruct(&vals[i]); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}
