package decode

import (
	"database/sql/driver"
	"fmt"
	"reflect"
	"runtime"
	"testing"
	"time"

	"cloud.google.com/go/civil"
	"cloud.google.com/go/spanner"
)

func TestPointerFree(t *testing.T) {
	for _, c := range []struct {
		t    reflect.Type
		want bool
	}{
		{reflect.TypeFor[spanner.NullInt64](), true},
		{reflect.TypeFor[spanner.NullBool](), true},
		{reflect.TypeFor[spanner.NullFloat32](), true},
		{reflect.TypeFor[spanner.NullDate](), true},
		{reflect.TypeFor[civil.Date](), true},
		{reflect.TypeFor[[3]int64](), true},
		{reflect.TypeFor[spanner.NullTime](), false}, // *time.Location
		{reflect.TypeFor[time.Time](), false},
		{reflect.TypeFor[spanner.NullString](), false},
		{reflect.TypeFor[spanner.NullNumeric](), false},
		{reflect.TypeFor[[]byte](), false},
		{reflect.TypeFor[[2]*int](), false},
		{reflect.TypeFor[uintptr](), false}, // not worth the doubt
	} {
		if got := pointerFree(c.t); got != c.want {
			t.Errorf("pointerFree(%v) = %v, want %v", c.t, got, c.want)
		}
	}
}

// TestArrayAllocator: a pointer-free array is one allocation, header
// included, and the slice outlives the interface that carried it.
func TestArrayAllocator(t *testing.T) {
	alloc := arrayAllocator[spanner.NullInt64]()
	if a := testing.AllocsPerRun(100, func() { _, _ = alloc(4) }); a != 1 {
		t.Errorf("ARRAY<INT64> of 4: %v allocations, want 1", a)
	}
	var kept [][]spanner.NullInt64
	for i := range 1000 {
		out, v := alloc(1 + i%7)
		for j := range out {
			out[j] = spanner.NullInt64{Int64: int64(i*10 + j), Valid: true}
		}
		kept = append(kept, v.([]spanner.NullInt64)) // the interface is dropped here
	}
	runtime.GC()
	for range 1000 {
		_ = make([]int64, 8) // reuse of any freed block would show below
	}
	runtime.GC()
	for i, s := range kept {
		if len(s) != 1+i%7 || cap(s) != len(s) {
			t.Fatalf("array %d: len %d cap %d", i, len(s), cap(s))
		}
		for j, e := range s {
			if e != (spanner.NullInt64{Int64: int64(i*10 + j), Valid: true}) {
				t.Fatalf("array %d element %d = %v", i, j, e)
			}
		}
	}
	// Empty arrays are non-nil and empty; element types with pointers
	// keep the ordinary slice.
	if out, v := alloc(0); out == nil || len(v.([]spanner.NullInt64)) != 0 || v.([]spanner.NullInt64) == nil {
		t.Errorf("empty array: %#v %#v", out, v)
	}
	var v driver.Value
	_, v = arrayAllocator[spanner.NullString]()(2)
	if s := v.([]spanner.NullString); len(s) != 2 {
		t.Errorf("ARRAY<STRING> of 2: %#v", s)
	}
}

// TestInt64ArrayFastPathAgrees: whatever the list encoding (canonical,
// unknown fields between elements, long elements, truncated), the
// ARRAY<INT64> fast path gives the general decoder's value or error.
func TestInt64ArrayFastPathAgrees(t *testing.T) {
	elem := func(payload []byte) []byte {
		return append([]byte{fieldListValues<<3 | 2, byte(len(payload))}, payload...)
	}
	strVal := func(s string) []byte { return append([]byte{fieldString<<3 | 2, byte(len(s))}, s...) }
	nullVal := []byte{fieldNull << 3, 0}
	long := append([]byte{fieldListValues<<3 | 2, 0x83, 0x01, fieldString<<3 | 2, 0x80, 0x01}, make([]byte, 128)...)
	for i := range 128 {
		long[6+i] = '0'
	}
	long[len(long)-1] = '7'
	lists := [][]byte{
		{},
		append(elem(strVal("1")), append(elem(nullVal), elem(strVal("-22"))...)...),
		append(elem(strVal("1")), append([]byte{0x10, 0x05}, elem(strVal("2"))...)...), // unknown varint field
		append(elem(strVal("3")), long...),                                             // 131-byte element
		elem(strVal("1"))[:3],                                                          // truncated
		append(elem(strVal("x")), elem(nullVal)...),                                    // not a number
		elem([]byte{fieldNumber<<3 | 1, 0, 0, 0, 0, 0, 0, 0xf0, 0x3f}),                 // a number, not a string
	}
	general := arrayDecoder(nullable(parseInt64, func(n int64) spanner.NullInt64 { return spanner.NullInt64{Int64: n, Valid: true} }))
	fast := int64ArrayDecoder(general)
	for i, l := range lists {
		v := Value{Kind: KindList, Bytes: l}
		got, gerr := fast(v, nil)
		want, werr := general(v, nil)
		if (gerr != nil) != (werr != nil) || (gerr == nil && !reflect.DeepEqual(got, want)) {
			t.Errorf("list %d: fast %#v, %v; general %#v, %v", i, got, gerr, want, werr)
		}
	}
}

// TestStringArrayBlock: ARRAY<STRING> costs three allocations whatever its
// length (elements, slice header, one block of bytes), agrees with the
// general decoder on every encoding, and its strings survive collection.
func TestStringArrayBlock(t *testing.T) {
	elem := func(payload []byte) []byte {
		return append([]byte{fieldListValues<<3 | 2, byte(len(payload))}, payload...)
	}
	strVal := func(s string) []byte { return append([]byte{fieldString<<3 | 2, byte(len(s))}, s...) }
	nullVal := []byte{fieldNull << 3, 0}
	var l []byte
	for _, s := range []string{"alpha", "", "b", "gamma delta", "é日本"} {
		l = append(l, elem(strVal(s))...)
	}
	l = append(l, elem(nullVal)...)
	general := arrayDecoder(nullable(parseString, func(s string) spanner.NullString { return spanner.NullString{StringVal: s, Valid: true} }))
	fast := stringArrayDecoder(general)
	if a := testing.AllocsPerRun(100, func() { _, _ = fast(Value{Kind: KindList, Bytes: l}, nil) }); a != 3 {
		t.Errorf("6-element ARRAY<STRING>: %v allocations, want 3", a)
	}
	for i, list := range [][]byte{l, {}, append(elem(strVal("x")), 0x10, 0x01), elem(strVal("a"))[:3],
		elem([]byte{fieldBool << 3, 1}), append(elem(nullVal), elem(nullVal)...)} {
		v := Value{Kind: KindList, Bytes: list}
		got, gerr := fast(v, nil)
		want, werr := general(v, nil)
		if (gerr != nil) != (werr != nil) || (gerr == nil && !reflect.DeepEqual(got, want)) {
			t.Errorf("list %d: fast %#v, %v; general %#v, %v", i, got, gerr, want, werr)
		}
	}
	var kept [][]spanner.NullString
	for i := range 500 {
		b := append(elem(strVal(fmt.Sprintf("first %d", i))), elem(strVal(fmt.Sprintf("second %d", i)))...)
		got, err := fast(Value{Kind: KindList, Bytes: b}, nil)
		if err != nil {
			t.Fatal(err)
		}
		for j := range b {
			b[j] = 0xAA // the input is gone
		}
		kept = append(kept, got.([]spanner.NullString))
	}
	runtime.GC()
	for range 10000 {
		_ = make([]byte, 16)
	}
	runtime.GC()
	for i, s := range kept {
		if s[0].StringVal != fmt.Sprintf("first %d", i) || s[1].StringVal != fmt.Sprintf("second %d", i) {
			t.Fatalf("array %d: %v", i, s)
		}
	}
}
