package structscan

import (
	"errors"
	"reflect"
	"testing"

	"cloud.google.com/go/spanner"
	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/protobuf/types/known/structpb"
)

type person struct {
	ID      int64  `spanner:"id"`
	Name    string // matched ignoring case
	Skipped string `spanner:"-"`
	Score   float64
	Active  bool
	private string //nolint:unused // ignored: unexported
}

var personType = structOf(fld("id", tInt64), fld("name", tString), fld("SCORE", tFloat), fld("active", tBool))

func personValue(id, name string) *structpb.Value {
	return list(str(id), str(name), structpb.NewNumberValue(1.5), structpb.NewBoolValue(true))
}

// Base is embedded through a pointer: the official client needs it set
// (it panics on a nil one), structscan allocates it.
type Base struct {
	A int64
	B string `spanner:"bee"`
}

// TestScanMatchesToStruct: each Go shape decodes as the official client's
// Row.ToStruct decodes it, and fails where ToStruct fails.
func TestScanMatchesToStruct(t *testing.T) {
	type base struct {
		A int64
		B string `spanner:"bee"`
	}
	type embedsPtr struct {
		*Base
		C string
	}
	type embedsVal struct {
		base
		A string // shallower: wins over base.A
	}
	type x1 struct{ X int64 }
	type x2 struct{ X int64 }
	type hidden struct { // X at equal depth twice: hidden
		x1
		x2
		Y int64
	}
	type tagWins struct {
		Name  string
		Other string `spanner:"name"` // tagged wins at equal depth
	}
	type exactFirst struct {
		NAME string
		Name string
		name string //nolint:unused // unexported: ignored
	}
	type extra struct { // Go fields without a STRUCT field keep their value
		A, B, Z int64
	}
	st := structOf(fld("a", tInt64), fld("bee", tString))
	cases := []struct {
		name string
		st   *spannerpb.Type
		v    *structpb.Value
		dst  func() any
	}{
		{"tags and case", personType, personValue("7", "ann"), func() any { return &person{Skipped: "keep"} }},
		{"embedded pointer", structOf(fld("a", tInt64), fld("bee", tString), fld("c", tString)), list(str("1"), str("b"), str("c")), func() any { return &embedsPtr{Base: &Base{}} }},
		{"shallower wins", structOf(fld("a", tString), fld("bee", tString)), list(str("top"), str("b")), func() any { return &embedsVal{} }},
		{"hidden names", structOf(fld("X", tInt64)), list(str("1")), func() any { return &hidden{} }},
		{"tag wins", structOf(fld("name", tString)), list(str("n")), func() any { return &tagWins{} }},
		{"exact first", structOf(fld("Name", tString), fld("NAME", tString)), list(str("exact"), str("upper")), func() any { return &exactFirst{} }},
		{"missing Go field", structOf(fld("a", tInt64), fld("nope", tInt64)), list(str("1"), str("2")), func() any { return &extra{} }},
		{"extra Go fields", st, list(str("1"), str("2")), func() any { return &extra{Z: 9} }},
		{"wrong type", structOf(fld("a", tString)), list(str("x")), func() any { return &extra{} }},
		{"duplicate STRUCT fields", structOf(fld("a", tInt64), fld("a", tInt64)), list(str("1"), str("2")), func() any { return &extra{} }},
		{"unnamed STRUCT field", structOf(fld("a", tInt64), fld("", tInt64)), list(str("1"), str("2")), func() any { return &extra{} }},
		{"NULL into int64", st, list(null, str("x")), func() any { return &extra{} }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := row(t, c.st, c.v)
			want := c.dst()
			wantErr := r.Row.ToStruct(want)
			got := c.dst()
			gotErr := scanOneAny(got, r)
			if (gotErr == nil) != (wantErr == nil) {
				t.Fatalf("error %v, official client's %v", gotErr, wantErr)
			}
			if gotErr == nil && !reflect.DeepEqual(got, want) {
				t.Fatalf("got %+v, official client %+v", got, want)
			}
		})
	}
}

// scanOneAny runs One over a pointer to any struct type through reflection,
// for the table above.
func scanOneAny(dst any, src any) error {
	v := reflect.ValueOf(dst)
	p := planFor(v.Type().Elem(), src)
	if p == nil {
		return errors.New("not a row")
	}
	r := src.(spanner.NullRow)
	return p.decodeRow(v.UnsafePointer(), &r.Row)
}

func planFor(t reflect.Type, src any) *plan {
	r, ok := src.(spanner.NullRow)
	if !ok || !r.Valid {
		return nil
	}
	return planForRow(t, &r.Row)
}

// TestScanNilEmbeddedPointer: a nil embedded pointer is allocated, where
// the official client panics.
func TestScanNilEmbeddedPointer(t *testing.T) {
	type embeds struct {
		*Base
		C string
	}
	st := structOf(fld("a", tInt64), fld("bee", tString), fld("c", tString))
	var got embeds
	if err := One(&got).Scan(row(t, st, list(str("1"), str("b"), str("c")))); err != nil {
		t.Fatal(err)
	}
	if got.Base == nil || *got.Base != (Base{1, "b"}) || got.C != "c" {
		t.Fatalf("got %+v", got)
	}
}

// TestScanStartsFromZero: One fills a zero struct, so a Go field without a
// STRUCT field keeps nothing of the variable's previous value.
func TestScanStartsFromZero(t *testing.T) {
	type extra struct{ A, Z int64 }
	got := extra{A: 1, Z: 9}
	if err := One(&got).Scan(row(t, structOf(fld("a", tInt64)), list(str("2")))); err != nil {
		t.Fatal(err)
	}
	if got != (extra{A: 2}) {
		t.Fatalf("got %+v", got)
	}
}
