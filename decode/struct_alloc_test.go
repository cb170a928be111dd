package decode_test

import (
	"database/sql/driver"
	"fmt"
	"reflect"
	"testing"

	"cloud.google.com/go/spanner"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/spannerfast/spannerfast/decode"
)

// arrayOfStructs is an ARRAY<STRUCT> value of n elements of five fields
// (INT64, STRING, FLOAT64, BOOL, TIMESTAMP), encoded.
func arrayOfStructs(n int) []byte {
	var elems []*structpb.Value
	for i := range n {
		elems = append(elems, list(str(fmt.Sprint(i)), str(fmt.Sprintf("item %d", i)), num(float64(i)),
			boolv(i%2 == 0), str("2024-05-06T07:08:09.123456Z")))
	}
	elems = append(elems, null(), list(null(), null(), null(), null(), null()))
	return enc(list(elems...))
}

var itemStruct = structOf(fld("id", tInt64), fld("name", tString), fld("price", tFloat64), fld("instock", tBool), fld("updated", tTimestamp))

// TestAllocsArrayOfStruct: an ARRAY<STRUCT> of 100 elements of five fields
// decodes in at most 20 allocations per element in both modes (58 when
// each element's Row came from spanner.NewRow, which the layout check
// falls back to), and both ways give rows that read back the same through
// the official client's Row methods.
func TestAllocsArrayOfStruct(t *testing.T) {
	v := arrayOfStructs(100)
	decodeWith := func(t *testing.T, raw, inPlace bool) ([]spanner.NullRow, float64) {
		defer decode.SetRowLayoutOK(decode.SetRowLayoutOK(inPlace))
		p := mustPlan(t, decode.Options{Raw: raw}, fld("c", arrayOf(itemStruct)))
		d := decode.NewRowDecoder(p, false)
		dest := make([]driver.Value, 1)
		n := testing.AllocsPerRun(20, func() {
			if err := d.Decode([][]byte{v}, dest); err != nil {
				t.Fatal(err)
			}
		})
		return dest[0].([]spanner.NullRow), n
	}
	for _, raw := range []bool{false, true} {
		fast, n := decodeWith(t, raw, true)
		if per := n / 100; per > 20 {
			t.Errorf("raw=%v: %.1f allocations per element, want at most 20", raw, per)
		}
		slow, _ := decodeWith(t, raw, false)
		if len(fast) != 102 || len(slow) != 102 {
			t.Fatalf("%d and %d elements", len(fast), len(slow))
		}
		type item struct {
			ID      spanner.NullInt64
			Name    spanner.NullString
			Price   spanner.NullFloat64
			InStock spanner.NullBool
			Updated spanner.NullTime
		}
		for i := range fast {
			if fast[i].Valid != slow[i].Valid || !fast[i].Valid {
				continue
			}
			var a, b item
			if err := fast[i].Row.ToStruct(&a); err != nil {
				t.Fatal(err)
			}
			if err := slow[i].Row.ToStruct(&b); err != nil {
				t.Fatal(err)
			}
			if a != b || fast[i].Row.String() != slow[i].Row.String() || !reflect.DeepEqual(fast[i].Row.ColumnNames(), slow[i].Row.ColumnNames()) {
				t.Fatalf("element %d: %v, NewRow's %v", i, fast[i].Row.String(), slow[i].Row.String())
			}
		}
	}
	if !decode.SetRowLayoutOK(true) {
		t.Error("spanner.Row's layout check failed: STRUCT values go through spanner.NewRow")
	}
}
