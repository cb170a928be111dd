package structscan

import (
	"database/sql"
	"errors"
	"strings"
	"testing"
	"time"

	"cloud.google.com/go/civil"
	"cloud.google.com/go/spanner"
	"google.golang.org/protobuf/types/known/structpb"
)

type nulls struct {
	S   *string
	I   *int64
	F   spanner.NullFloat64
	B   sql.NullBool
	T   spanner.NullTime
	D   spanner.NullDate
	Raw []byte
	J   spanner.NullJSON // through the official client's decoder
}

var nullableType = structOf(fld("s", tString), fld("i", tInt64), fld("f", tFloat), fld("b", tBool),
	fld("t", tTime), fld("d", tDate), fld("raw", tBytes), fld("j", tJSON))

// TestScanNulls: NULL fields into pointers, spanner.Null*, sql.Null* and
// []byte are nil / invalid; values into them are set.
func TestScanNulls(t *testing.T) {
	var got nulls
	if err := One(&got).Scan(row(t, nullableType, list(null, null, null, null, null, null, null, null))); err != nil {
		t.Fatal(err)
	}
	if got.S != nil || got.I != nil || got.F.Valid || got.B.Valid || got.T.Valid || got.D.Valid || got.Raw != nil || got.J.Valid {
		t.Fatalf("NULLs: %+v", got)
	}
	v := list(str("s"), str("-9"), str("-Infinity"), structpb.NewBoolValue(true), str("2024-01-02T03:04:05.123456789Z"),
		str("2024-02-29"), str("aGk="), str(`{"a":1}`))
	if err := One(&got).Scan(row(t, nullableType, v)); err != nil {
		t.Fatal(err)
	}
	ts := time.Date(2024, 1, 2, 3, 4, 5, 123456789, time.UTC)
	if *got.S != "s" || *got.I != -9 || got.F.Float64 > -1e308 || !got.B.Bool || !got.T.Time.Equal(ts) ||
		got.D.Date != (civil.Date{Year: 2024, Month: 2, Day: 29}) || string(got.Raw) != "hi" || got.J.String() != `{"a":1}` {
		t.Fatalf("values: %+v", got)
	}
}

// TestScanNullIntoNonNullable: a NULL field into a Go type without NULL is
// a *FieldError naming the Go field and the STRUCT field; a NULL STRUCT
// into a struct value names the type; into a pointer it is nil.
func TestScanNullIntoNonNullable(t *testing.T) {
	var p person
	err := One(&p).Scan(row(t, personType, list(str("1"), null, structpb.NewNumberValue(1), structpb.NewBoolValue(false))))
	var fe *FieldError
	if !errors.As(err, &fe) || fe.Path != "Name" || fe.Field != "name" || !errors.Is(err, errNull) {
		t.Fatalf("err = %v", err)
	}
	for _, want := range []string{`"name"`, "structscan.person.Name", "NULL"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q does not name %s", err, want)
		}
	}
	if err := One(&p).Scan(nil); !errors.Is(err, errNull) || !strings.Contains(err.Error(), "person") {
		t.Fatalf("NULL STRUCT into a value: %v", err)
	}
	pp := &person{}
	if err := One(&pp).Scan(spanner.NullRow{}); err != nil || pp != nil {
		t.Fatalf("NULL STRUCT into a pointer: %v, %v", pp, err)
	}
}

type address struct {
	City string
	Zip  *string
}

type customer struct {
	ID     int64
	Home   address
	Work   *address
	Others []address
	Past   []*address
}

var (
	addressType  = structOf(fld("city", tString), fld("zip", tString))
	customerType = structOf(fld("id", tInt64), fld("home", addressType), fld("work", addressType),
		fld("others", arrayOf(addressType)), fld("past", arrayOf(addressType)))
)

// TestScanNested: STRUCT fields into struct values and pointers, and
// ARRAY<STRUCT> fields into []S and []*S (a NULL element nil), at any depth.
func TestScanNested(t *testing.T) {
	a := func(city string) *structpb.Value { return list(str(city), null) }
	var c customer
	v := list(str("1"), a("home"), null, list(a("o1"), a("o2")), list(a("p1"), null))
	if err := One(&c).Scan(row(t, customerType, v)); err != nil {
		t.Fatal(err)
	}
	if c.ID != 1 || c.Home.City != "home" || c.Work != nil || len(c.Others) != 2 || c.Others[1].City != "o2" ||
		len(c.Past) != 2 || c.Past[0].City != "p1" || c.Past[1] != nil {
		t.Fatalf("got %+v", c)
	}
	// A NULL element of a nested []S names the element and the fields.
	v = list(str("1"), a("home"), null, list(a("o1"), null), null)
	err := One(&c).Scan(row(t, customerType, v))
	if err == nil || !strings.Contains(err.Error(), "element 1") || !strings.Contains(err.Error(), "Others") {
		t.Fatalf("err = %v", err)
	}
	// A nested field's mismatch names the whole path.
	type wrongHome struct {
		ID   int64
		Home struct {
			City int64
			Zip  *string
		}
	}
	var w wrongHome
	err = One(&w).Scan(row(t, structOf(fld("id", tInt64), fld("home", addressType)), list(str("1"), a("x"))))
	var fe *FieldError
	if !errors.As(err, &fe) || fe.Field != "home.city" || fe.Path != "Home.City" {
		t.Fatalf("err = %v", err)
	}
}

// TestScanSlices: ARRAY<STRUCT> into []S and []*S; NULL elements; a NULL
// array; a plan error and an element's error name the element.
func TestScanSlices(t *testing.T) {
	src := rows(t, personType, personValue("1", "a"), null, personValue("3", "c"))
	var ptrs []*person
	if err := Slice(&ptrs).Scan(src); err != nil {
		t.Fatal(err)
	}
	if len(ptrs) != 3 || ptrs[0].ID != 1 || ptrs[1] != nil || ptrs[2].Name != "c" {
		t.Fatalf("got %v", ptrs)
	}
	var vals []person
	err := Slice(&vals).Scan(src)
	var fe *FieldError
	if !errors.As(err, &fe) || fe.Element != 1 || !strings.Contains(err.Error(), "element 1") {
		t.Fatalf("NULL element into []person: %v", err)
	}
	vals = []person{{}}
	if err := Slice(&vals).Scan([]spanner.NullRow(nil)); err != nil || vals != nil {
		t.Fatalf("NULL array: %v %v", vals, err)
	}
	bad := rows(t, personType, personValue("1", "a"), personValue("x", "b"))
	err = Slice(&vals).Scan(bad)
	if !errors.As(err, &fe) || fe.Element != 1 || fe.Path != "ID" || fe.Field != "id" {
		t.Fatalf("bad element: %v", err)
	}
	if err := Slice(&vals).Scan("text"); err == nil || !strings.Contains(err.Error(), "ARRAY<STRUCT>") {
		t.Fatalf("string source: %v", err)
	}
	var ints []int
	if err := Slice(&ints).Scan(src); err == nil || !strings.Contains(err.Error(), "[]int") && !strings.Contains(err.Error(), "int") {
		t.Fatalf("[]int target: %v", err)
	}
}
