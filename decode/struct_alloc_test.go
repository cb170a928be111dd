package decode_test

import (
	"database/sql/driver"
	"fmt"
	"math"
	"reflect"
	"testing"

	"cloud.google.com/go/spanner"
	"google.golang.org/protobuf/proto"
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
// decodes in at most 10 allocations per element in both modes (58 with
// proto.Unmarshal and spanner.NewRow, which the layout check falls back
// to), and both ways give rows that read back the same through the
// official client's Row methods.
func TestAllocsArrayOfStruct(t *testing.T) {
	v := arrayOfStructs(100)
	decodeWith := func(t *testing.T, raw, inPlace bool) ([]spanner.NullRow, float64) {
		defer decode.SetStructInPlace(decode.SetStructInPlace(inPlace))
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
		if per := n / 100; per > 10 {
			t.Errorf("raw=%v: %.1f allocations per element, want at most 10", raw, per)
		}
		t.Logf("raw=%v: %.1f allocations per element", raw, n/100)
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
	if !decode.SetStructInPlace(true) {
		t.Error("spanner.Row's layout check failed: STRUCT values go through spanner.NewRow")
	}
}

// FuzzBuildValues: where buildValues builds the values of an encoded
// ListValue, proto.Unmarshal reads the same values (members, numbers bit
// for bit, strings, nested lists); where it declines, the caller's
// proto.Unmarshal decides. Never a panic.
func FuzzBuildValues(f *testing.F) {
	f.Add([]byte{})
	f.Add(arrayOfStructs(3))
	f.Add(enc(list(str("日本"), num(math.NaN()), boolv(true), null(), list(), list(str(""), list(num(-0.0))))))
	f.Add(enc(list(&structpb.Value{}, structpb.NewStructValue(&structpb.Struct{}))))
	f.Fuzz(func(t *testing.T, b []byte) {
		// b is an encoded Value; a list's payload is what STRUCT decoding
		// hands to buildValues.
		v, err := decode.ParseValue(b)
		if err != nil || v.Kind != decode.KindList {
			return
		}
		got, ok := decode.BuildValues(v.Bytes)
		if !ok {
			return
		}
		var want structpb.ListValue
		if err := proto.Unmarshal(v.Bytes, &want); err != nil {
			t.Fatalf("built %v where proto.Unmarshal fails: %v", got, err)
		}
		if !sameValues(got, want.Values) {
			t.Fatalf("built %v, proto.Unmarshal %v", got, want.Values)
		}
	})
}

func sameValues(a, b []*structpb.Value) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		switch x := a[i].GetKind().(type) {
		case *structpb.Value_NullValue:
			if _, ok := b[i].GetKind().(*structpb.Value_NullValue); !ok {
				return false
			}
		case *structpb.Value_BoolValue:
			if y, ok := b[i].GetKind().(*structpb.Value_BoolValue); !ok || x.BoolValue != y.BoolValue {
				return false
			}
		case *structpb.Value_NumberValue:
			if y, ok := b[i].GetKind().(*structpb.Value_NumberValue); !ok || math.Float64bits(x.NumberValue) != math.Float64bits(y.NumberValue) {
				return false
			}
		case *structpb.Value_StringValue:
			if y, ok := b[i].GetKind().(*structpb.Value_StringValue); !ok || x.StringValue != y.StringValue {
				return false
			}
		case *structpb.Value_ListValue:
			y, ok := b[i].GetKind().(*structpb.Value_ListValue)
			if !ok || !sameValues(x.ListValue.GetValues(), y.ListValue.GetValues()) {
				return false
			}
		default:
			return false
		}
	}
	return true
}
