package structscan

import (
	"database/sql"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"cloud.google.com/go/civil"
	"cloud.google.com/go/spanner"
	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/protobuf/types/known/structpb"
)

type fzInner struct {
	A int64
	B *string
}

type fzWide struct {
	ID    int64 `spanner:"id"`
	Name  string
	Score spanner.NullFloat64
	OK    *bool
	When  time.Time
	Day   civil.Date
	Data  []byte
	J     spanner.NullJSON
	In    fzInner
	InP   *fzInner
	Ins   []fzInner
	InPs  []*fzInner
	Ints  []int64
	Skip  int `spanner:"-"`
}

type fzNull struct {
	ID    *int64
	NAME  sql.NullString
	Score *float64
	OK    sql.NullBool
	When  spanner.NullTime
	Day   spanner.NullDate
	Embed
}

type Embed struct {
	Data []byte
	In   *fzInner
}

// fuzzer reads choices from the fuzz input, 0 when it runs out.
type fuzzer struct{ b []byte }

func (f *fuzzer) n(k int) int {
	if len(f.b) == 0 {
		return 0
	}
	c := int(f.b[0]) % k
	f.b = f.b[1:]
	return c
}

var (
	fzNames     = []string{"id", "name", "Score", "ok", "WHEN", "day", "data", "j", "in", "inp", "ins", "inps", "ints", "skip", "nope", ""}
	fzInnerType = structOf(fld("a", tInt64), fld("b", tString))
)

func (f *fuzzer) typ(depth int) *spannerpb.Type {
	switch f.n(10) {
	case 0:
		return tInt64
	case 1:
		return tString
	case 2:
		return tFloat
	case 3:
		return tBool
	case 4:
		return tTime
	case 5:
		return tDate
	case 6:
		return tBytes
	case 7:
		return tJSON
	case 8:
		if depth < 2 {
			if f.n(2) == 0 {
				return fzInnerType
			}
			return arrayOf(fzInnerType)
		}
		return tInt64
	default:
		return arrayOf(tInt64)
	}
}

// value is mostly well formed for t, sometimes of a wrong kind or text.
func (f *fuzzer) value(t *spannerpb.Type, depth int) *structpb.Value {
	switch f.n(8) {
	case 0:
		return null
	case 1:
		return []*structpb.Value{str("x"), str("NaN"), structpb.NewNumberValue(2), structpb.NewBoolValue(true), list(), str("")}[f.n(6)]
	}
	switch t.GetCode() {
	case spannerpb.TypeCode_INT64:
		return str(fmt.Sprint([]int64{0, -1, 1 << 62, 7}[f.n(4)]))
	case spannerpb.TypeCode_STRING:
		return str([]string{"", "a", "日本", "名前"}[f.n(4)])
	case spannerpb.TypeCode_FLOAT64:
		return []*structpb.Value{structpb.NewNumberValue(1.5), str("Infinity"), str("-Infinity"), str("NaN")}[f.n(4)]
	case spannerpb.TypeCode_BOOL:
		return structpb.NewBoolValue(f.n(2) == 0)
	case spannerpb.TypeCode_TIMESTAMP:
		return str([]string{"2024-01-02T03:04:05Z", "0001-01-01T00:00:00.000000001Z", "2024-13-01T00:00:00Z"}[f.n(3)])
	case spannerpb.TypeCode_DATE:
		return str([]string{"2024-02-29", "9999-12-31", "2023-02-29"}[f.n(3)])
	case spannerpb.TypeCode_BYTES:
		return str([]string{"", "aGk=", "!!"}[f.n(3)])
	case spannerpb.TypeCode_JSON:
		return str([]string{"{}", `{"a":[1,null]}`, "{"}[f.n(3)])
	case spannerpb.TypeCode_STRUCT:
		var vs []*structpb.Value
		for _, fl := range t.GetStructType().GetFields() {
			vs = append(vs, f.value(fl.GetType(), depth+1))
		}
		if f.n(8) == 0 && len(vs) > 0 {
			vs = vs[1:] // too few values
		}
		return list(vs...)
	case spannerpb.TypeCode_ARRAY:
		var vs []*structpb.Value
		for range f.n(4) {
			vs = append(vs, f.value(t.GetArrayElementType(), depth+1))
		}
		return list(vs...)
	}
	return null
}

// FuzzScan: STRUCT shapes and values of every kind (wrong ones included)
// into Go structs, one and as an ARRAY<STRUCT>: never a panic; an error
// names the STRUCT field or the element; where the official client's
// Row.ToStruct decodes a value, structscan decodes the same value.
func FuzzScan(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{3, 0, 0, 2, 1, 2, 1, 1, 4, 3, 2, 2, 5})
	f.Add([]byte{14, 8, 0, 8, 1, 9, 8, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3})
	f.Add([]byte{5, 0, 1, 1, 15, 2, 3, 3, 0, 4})
	f.Fuzz(func(t *testing.T, in []byte) {
		fz := &fuzzer{b: in}
		n := fz.n(6)
		var fields []*spannerpb.StructType_Field
		for range n {
			fields = append(fields, fld(fzNames[fz.n(len(fzNames))], fz.typ(0)))
		}
		st := &spannerpb.Type{Code: spannerpb.TypeCode_STRUCT, StructType: &spannerpb.StructType{Fields: fields}}
		var vals []*structpb.Value
		for range 3 {
			var vs []*structpb.Value
			for _, fl := range fields {
				vs = append(vs, fz.value(fl.GetType(), 0))
			}
			vals = append(vals, list(vs...))
		}
		if fz.n(4) == 0 {
			vals[1] = null
		}
		elems := rows(t, st, vals...)
		fuzzOne[fzWide](t, elems)
		fuzzOne[fzNull](t, elems)
		var wide []fzWide
		checkErr(t, Slice(&wide).Scan(elems))
		var ptrs []*fzNull
		checkErr(t, Slice(&ptrs).Scan(elems))
	})
}

func fuzzOne[T any](t *testing.T, elems []spanner.NullRow) {
	for _, e := range elems {
		var got T
		err := One(&got).Scan(e)
		checkErr(t, err)
		if !e.Valid {
			continue
		}
		var want T
		var clientErr error
		func() {
			defer func() {
				if recover() != nil {
					clientErr = errors.New("official client panicked")
				}
			}()
			clientErr = e.Row.ToStruct(&want)
		}()
		if clientErr != nil || strings.Contains(e.Row.String(), "NaN") {
			continue
		}
		if err != nil {
			t.Fatalf("%v: official client decodes %v, structscan fails: %v", reflect.TypeFor[T](), e.Row.String(), err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%v from %v:\n got %+v\nwant %+v", reflect.TypeFor[T](), e.Row.String(), got, want)
		}
	}
}

// checkErr: an error is a *FieldError naming a STRUCT field or an element
// (or the NULL STRUCT's Go type).
func checkErr(t *testing.T, err error) {
	if err == nil {
		return
	}
	var fe *FieldError
	if !errors.As(err, &fe) {
		t.Fatalf("error without field: %v", err)
	}
	if fe.GoType == nil || (fe.Field == "" && fe.Element < 0 && !errors.Is(err, errNull)) {
		t.Fatalf("error names no field: %#v", fe)
	}
	if fe.Field != "" && !strings.Contains(err.Error(), fmt.Sprintf("%q", fe.Field)) {
		t.Fatalf("message %q does not name field %q", err, fe.Field)
	}
}
