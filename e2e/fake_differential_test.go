package e2e

import (
	"context"
	"database/sql"
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"cloud.google.com/go/spanner"
	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/spannerfast/spannerfast/decode"
	"github.com/spannerfast/spannerfast/internal/fakespanner"
	"github.com/spannerfast/spannerfast/internal/randrs"
)

// longValueLen is the size of the long STRING and BYTES values every
// differential run carries.
const longValueLen = 200 << 10

// TestFakeDifferential reads random result sets of every Spanner type, cut
// by the fake server into random messages with chunked values, resume tokens
// and a retried RST_STREAM, once with the official client and once with
// spannerfast in each decode mode, and requires the same values after
// mapping the official client's typed values to spannerfast's documented Go
// types.
func TestFakeDifferential(t *testing.T) {
	s := fakespanner.Start(t)
	client := officialClient(t, s)
	ctx := context.Background()

	variants := []mode{
		{},
		{raw: true},
		{numStr: true},
		{native: true},
		{raw: true, native: true, numStr: true},
	}
	dbs := map[mode]*sql.DB{}
	for i, m := range variants {
		// Vary the read-ahead depth with the variant.
		dbs[m] = openFake(t, s, append(m.props(), fmt.Sprintf("prefetch_messages=%d", 1+3*i))...)
	}

	runs := iterations(3, 6, 60)
	for seed := range runs {
		rng := rand.New(rand.NewPCG(uint64(seed), 0xd1ff))
		rs := differentialResultSet(rng)
		assertCoverage(t, seed, rs)
		rsNative := withoutNullElements(rs)
		split := fakespanner.SplitOptions{
			Random:           true,
			Seed:             int64(seed),
			MaxBytes:         []int{2 << 10, 16 << 10, 64 << 10}[rng.IntN(3)],
			ResumeTokenEvery: []int{1, 2, 4, fakespanner.NoResumeTokens}[rng.IntN(4)],
		}
		msgs := fakespanner.Split(rs, split)
		chunked := 0
		for _, m := range msgs {
			if m.GetChunkedValue() {
				chunked++
			}
		}
		if chunked == 0 {
			t.Fatalf("seed %d: the split has no chunked value", seed)
		}
		faultAt := rng.IntN(len(msgs) + 1)
		serve := func(sql string, r *spannerpb.ResultSet) {
			s.AddResult(sql, &fakespanner.Result{ResultSet: r, Split: split,
				Faults: []fakespanner.Fault{{AfterMessage: faultAt, Err: fakespanner.ErrRSTStream}}})
		}

		serve("q", rs)
		official, err := officialRows(ctx, client, "q")
		if err != nil {
			t.Fatalf("seed %d: official client: %v", seed, err)
		}
		serve("qn", rsNative)
		officialNative, err := officialRows(ctx, client, "qn")
		if err != nil {
			t.Fatalf("seed %d: official client (native): %v", seed, err)
		}
		if len(official) != len(rs.Rows) || len(officialNative) != len(rs.Rows) {
			t.Fatalf("seed %d: official client read %d and %d rows, want %d", seed, len(official), len(officialNative), len(rs.Rows))
		}

		for _, m := range variants {
			sql, r, off := "q", rs, official
			if m.native {
				sql, r, off = "qn", rsNative, officialNative
			}
			want := make([][]any, len(off))
			for i, row := range off {
				vals := make([]any, len(row))
				for j, g := range row {
					v, err := officialValue(g, m)
					if err != nil {
						t.Fatalf("seed %d %v: mapping row %d column %d (%s): %v", seed, m, i, j, decode.TypeName(g.Type), err)
					}
					vals[j] = v
				}
				want[i] = canonRow(vals)
			}
			serve(sql, r)
			got, kept, err := readCanon(ctx, dbs[m], sql)
			if err != nil {
				t.Fatalf("seed %d %v: spannerfast: %v", seed, m, err)
			}
			if d := diffRows(got, want); d != "" {
				t.Fatalf("seed %d %v (%d messages, fault at %d): %s", seed, m, len(msgs), faultAt, d)
			}
			if !m.raw {
				// Safe-mode values stay valid after later rows and Close.
				again := make([][]any, len(kept))
				for i, row := range kept {
					again[i] = canonRow(row)
				}
				if d := diffRows(again, want); d != "" {
					t.Fatalf("seed %d %v: a kept safe-mode value changed after Next/Close: %s", seed, m, d)
				}
			}
			checkValueCoverage(t, seed, m, r, kept)
		}
	}
}

// differentialResultSet has a column of every scalar type, an ARRAY of every
// scalar type, ARRAY<STRUCT>, a top-level STRUCT and a few random columns;
// random rows, plus rows that force a NULL in every column, an empty array
// and a NULL element in every array column, and 200 KiB STRING and BYTES
// values.
func differentialResultSet(rng *rand.Rand) *spannerpb.ResultSet {
	var cols []*spannerpb.Type
	for _, c := range randrs.ScalarCodes {
		cols = append(cols, randrs.Type(rng, randrs.Options{Types: []spannerpb.TypeCode{c}}))
	}
	for _, c := range randrs.ScalarCodes {
		elem := randrs.Type(rng, randrs.Options{Types: []spannerpb.TypeCode{c}})
		cols = append(cols, &spannerpb.Type{Code: spannerpb.TypeCode_ARRAY, ArrayElementType: elem})
	}
	st := sampleStructType()
	cols = append(cols,
		&spannerpb.Type{Code: spannerpb.TypeCode_ARRAY, ArrayElementType: st},
		st,
		&spannerpb.Type{Code: spannerpb.TypeCode_ARRAY, ArrayElementType: randomStructType(rng)},
	)
	for range 3 {
		cols = append(cols, randrs.Type(rng, randrs.Options{TopLevelStructs: true}))
	}
	rs := randrs.ResultSet(rng, randrs.Options{Columns: cols, MinRows: 6, MaxRows: 12, LongStringLen: 2000})
	rows := rs.Rows
	for j, t := range cols {
		rows[0].Values[j] = structpb.NewNullValue()
		if t.GetCode() == spannerpb.TypeCode_ARRAY {
			rows[1].Values[j] = structpb.NewListValue(&structpb.ListValue{})
			var elems []*structpb.Value
			if l := rows[2].Values[j].GetListValue(); l != nil {
				elems = l.Values
			}
			elems = append(elems, structpb.NewNullValue())
			rows[2].Values[j] = structpb.NewListValue(&structpb.ListValue{Values: elems})
		}
	}
	long := longText(longValueLen)
	longBytes := make([]byte, longValueLen)
	for i := range longBytes {
		longBytes[i] = byte(rng.Uint32())
	}
	for j, t := range cols {
		switch {
		case t.GetCode() == spannerpb.TypeCode_STRING:
			rows[3].Values[j] = structpb.NewStringValue(long)
		case t.GetCode() == spannerpb.TypeCode_BYTES:
			rows[3].Values[j] = structpb.NewStringValue(base64.StdEncoding.EncodeToString(longBytes))
		case t.GetArrayElementType().GetCode() == spannerpb.TypeCode_STRING:
			rows[4].Values[j] = structpb.NewListValue(&structpb.ListValue{Values: []*structpb.Value{
				structpb.NewStringValue("a"), structpb.NewStringValue(long), structpb.NewNullValue(),
			}})
		}
	}
	return rs
}

// longText is a string of n bytes mixing 1- to 4-byte UTF-8 characters, so
// chunk points land inside and between multi-byte characters.
func longText(n int) string {
	var b strings.Builder
	pattern := "abc日本語é😀xyz\n\"\\"
	for b.Len()+len(pattern) <= n {
		b.WriteString(pattern)
	}
	for b.Len() < n {
		b.WriteByte('.')
	}
	return b.String()
}

func scalarType(c spannerpb.TypeCode) *spannerpb.Type { return &spannerpb.Type{Code: c} }

// sampleStructType covers nesting, anonymous and duplicate field names.
func sampleStructType() *spannerpb.Type {
	f := func(name string, t *spannerpb.Type) *spannerpb.StructType_Field {
		return &spannerpb.StructType_Field{Name: name, Type: t}
	}
	inner := &spannerpb.Type{Code: spannerpb.TypeCode_STRUCT, StructType: &spannerpb.StructType{Fields: []*spannerpb.StructType_Field{
		f("n", scalarType(spannerpb.TypeCode_NUMERIC)), f("j", scalarType(spannerpb.TypeCode_JSON)),
		f("iv", scalarType(spannerpb.TypeCode_INTERVAL)),
	}}}
	return &spannerpb.Type{Code: spannerpb.TypeCode_STRUCT, StructType: &spannerpb.StructType{Fields: []*spannerpb.StructType_Field{
		f("id", scalarType(spannerpb.TypeCode_INT64)),
		f("name", scalarType(spannerpb.TypeCode_STRING)),
		f("tags", &spannerpb.Type{Code: spannerpb.TypeCode_ARRAY, ArrayElementType: scalarType(spannerpb.TypeCode_STRING)}),
		f("inner", inner),
		f("", scalarType(spannerpb.TypeCode_FLOAT64)),
		f("dup", scalarType(spannerpb.TypeCode_BYTES)),
		f("dup", scalarType(spannerpb.TypeCode_DATE)),
		f("ts", scalarType(spannerpb.TypeCode_TIMESTAMP)),
	}}}
}

// randomStructType is a random STRUCT type from randrs.
func randomStructType(rng *rand.Rand) *spannerpb.Type {
	for {
		t := randrs.Type(rng, randrs.Options{Types: []spannerpb.TypeCode{spannerpb.TypeCode_ARRAY, spannerpb.TypeCode_STRUCT}})
		if e := t.GetArrayElementType(); e.GetCode() == spannerpb.TypeCode_STRUCT {
			return e
		}
	}
}

// withoutNullElements is rs without the NULL elements of the arrays that
// decode_to_native_arrays turns into []T (a NULL element is an error there).
func withoutNullElements(rs *spannerpb.ResultSet) *spannerpb.ResultSet {
	out := proto.Clone(rs).(*spannerpb.ResultSet)
	for j, f := range out.GetMetadata().GetRowType().GetFields() {
		t := f.GetType()
		if t.GetCode() != spannerpb.TypeCode_ARRAY || !nativeElem(t.GetArrayElementType().GetCode()) {
			continue
		}
		for _, row := range out.Rows {
			l := row.Values[j].GetListValue()
			if l == nil {
				continue
			}
			kept := l.Values[:0]
			for _, e := range l.Values {
				if _, null := e.GetKind().(*structpb.Value_NullValue); !null {
					kept = append(kept, e)
				}
			}
			l.Values = kept
		}
	}
	return out
}

// assertCoverage checks that rs has a column of every scalar type, of ARRAY
// of every scalar type, of ARRAY<STRUCT> and of STRUCT, each with NULL and
// non-NULL values; every array column with an empty array and a NULL
// element; and long STRING and BYTES values.
func assertCoverage(t *testing.T, seed int, rs *spannerpb.ResultSet) {
	t.Helper()
	need := map[string]bool{"ARRAY<STRUCT>": false, "STRUCT": false}
	for _, c := range randrs.ScalarCodes {
		need[c.String()] = false
		need["ARRAY<"+c.String()+">"] = false
	}
	longString, longBytes := false, false
	for j, f := range rs.GetMetadata().GetRowType().GetFields() {
		ty := f.GetType()
		key := ty.GetCode().String()
		if ty.GetCode() == spannerpb.TypeCode_ARRAY {
			key = "ARRAY<" + ty.GetArrayElementType().GetCode().String() + ">"
		}
		var nulls, values, empty, nullElems int
		for _, row := range rs.Rows {
			v := row.Values[j]
			if _, null := v.GetKind().(*structpb.Value_NullValue); null {
				nulls++
				continue
			}
			values++
			if s, ok := v.GetKind().(*structpb.Value_StringValue); ok && len(s.StringValue) >= longValueLen {
				longString = longString || ty.GetCode() == spannerpb.TypeCode_STRING
				longBytes = longBytes || ty.GetCode() == spannerpb.TypeCode_BYTES
			}
			if ty.GetCode() == spannerpb.TypeCode_ARRAY {
				l := v.GetListValue().GetValues()
				if len(l) == 0 {
					empty++
				}
				for _, e := range l {
					if _, null := e.GetKind().(*structpb.Value_NullValue); null {
						nullElems++
					}
				}
			}
		}
		ok := nulls > 0 && values > 0
		if ty.GetCode() == spannerpb.TypeCode_ARRAY {
			ok = ok && empty > 0 && nullElems > 0
		}
		if _, wanted := need[key]; wanted && ok {
			need[key] = true
		}
	}
	for k, ok := range need {
		if !ok {
			t.Errorf("seed %d: no %s column with NULL and non-NULL values (and empty arrays and NULL elements)", seed, k)
		}
	}
	if !longString || !longBytes {
		t.Errorf("seed %d: long STRING %v, long BYTES %v; want both", seed, longString, longBytes)
	}
}

// checkValueCoverage checks, on the values spannerfast returned, that the
// forced rows came through: row 0 all NULL (in the documented NULL form),
// row 1 empty arrays, and the 200 KiB STRING of row 3.
func checkValueCoverage(t *testing.T, seed int, m mode, rs *spannerpb.ResultSet, kept [][]any) {
	t.Helper()
	if len(kept) < 4 {
		t.Fatalf("seed %d %v: %d rows", seed, m, len(kept))
	}
	for j, f := range rs.GetMetadata().GetRowType().GetFields() {
		ty := f.GetType()
		null := kept[0][j]
		switch ty.GetCode() {
		case spannerpb.TypeCode_ARRAY:
			rv := reflect.ValueOf(null)
			if !rv.IsValid() || rv.Kind() != reflect.Slice || !rv.IsNil() {
				t.Errorf("seed %d %v: NULL %s is %#v, want a typed nil slice", seed, m, decode.TypeName(ty), null)
			}
			if e := reflect.ValueOf(kept[1][j]); !e.IsValid() || e.Kind() != reflect.Slice || e.IsNil() || e.Len() != 0 {
				t.Errorf("seed %d %v: empty %s is %#v, want an empty non-nil slice", seed, m, decode.TypeName(ty), kept[1][j])
			}
		case spannerpb.TypeCode_BYTES, spannerpb.TypeCode_PROTO:
			if b, ok := null.([]byte); !ok || b != nil {
				t.Errorf("seed %d %v: NULL %s is %#v, want []byte(nil)", seed, m, decode.TypeName(ty), null)
			}
		case spannerpb.TypeCode_JSON:
			if !reflect.DeepEqual(null, spanner.NullJSON{}) {
				t.Errorf("seed %d %v: NULL JSON is %#v, want spanner.NullJSON{}", seed, m, null)
			}
		default:
			if null != nil {
				t.Errorf("seed %d %v: NULL %s is %#v, want nil", seed, m, decode.TypeName(ty), null)
			}
		}
		if ty.GetCode() == spannerpb.TypeCode_STRING {
			var n int
			switch v := kept[3][j].(type) {
			case string:
				n = len(v)
			case []byte:
				n = len(v)
			}
			if n != longValueLen {
				t.Errorf("seed %d %v: long STRING has %d bytes, want %d", seed, m, n, longValueLen)
			}
		}
	}
}
