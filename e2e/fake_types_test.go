package e2e

import (
	"context"
	"database/sql"
	"encoding/base64"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"reflect"
	"testing"

	"cloud.google.com/go/spanner"
	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"github.com/google/uuid"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/spannerfast/spannerfast/decode"
	"github.com/spannerfast/spannerfast/internal/fakespanner"
	"github.com/spannerfast/spannerfast/internal/randrs"
)

// typesColumn is one column of the types result: its type, the GoogleSQL
// name and scan type spannerfast must report, and its three row values.
type typesColumn struct {
	name     string
	typ      *spannerpb.Type
	typeName string
	scanType reflect.Type
	values   [3]*structpb.Value // row 0: typical, row 1: NULL, row 2: edge cases
}

const (
	protoFQN = "examples.music.SingerInfo"
	enumFQN  = "examples.music.Genre"
	uuidText = "0191e1d2-3c4b-7a8e-9f00-112233445566"
)

var typesLong = longText(300 << 10)

func field(name string, t *spannerpb.Type) *spannerpb.StructType_Field {
	return &spannerpb.StructType_Field{Name: name, Type: t}
}

func structOf(fs ...*spannerpb.StructType_Field) *spannerpb.Type {
	return &spannerpb.Type{Code: spannerpb.TypeCode_STRUCT, StructType: &spannerpb.StructType{Fields: fs}}
}

func arrayOfType(t *spannerpb.Type) *spannerpb.Type {
	return &spannerpb.Type{Code: spannerpb.TypeCode_ARRAY, ArrayElementType: t}
}

func b64(s string) *structpb.Value { return str(base64.StdEncoding.EncodeToString([]byte(s))) }

func typesColumns() []typesColumn {
	null := structpb.NewNullValue()
	num := structpb.NewNumberValue
	proto := &spannerpb.Type{Code: spannerpb.TypeCode_PROTO, ProtoTypeFqn: protoFQN}
	enum := &spannerpb.Type{Code: spannerpb.TypeCode_ENUM, ProtoTypeFqn: enumFQN}
	st := structOf(field("id", typ(spannerpb.TypeCode_INT64)), field("name", typ(spannerpb.TypeCode_STRING)),
		field("tags", arrayOf(spannerpb.TypeCode_STRING)))
	ast := structOf(field("a", typ(spannerpb.TypeCode_INT64)), field("", typ(spannerpb.TypeCode_STRING)))
	return []typesColumn{
		{"n", typ(spannerpb.TypeCode_NUMERIC), "NUMERIC", reflect.TypeFor[spanner.NullNumeric](),
			[3]*structpb.Value{str("12345678901234567890123456789.123456789"), null, str("-0.000000001")}},
		{"j", typ(spannerpb.TypeCode_JSON), "JSON", reflect.TypeFor[spanner.NullJSON](),
			[3]*structpb.Value{str(`{"a":[1,2.5,"x",null,true],"b":{"c":"日本"}}`), null, str("null")}},
		{"f32", typ(spannerpb.TypeCode_FLOAT32), "FLOAT32", reflect.TypeFor[sql.Null[float32]](),
			[3]*structpb.Value{num(3.25), null, str("-Infinity")}},
		{"iv", typ(spannerpb.TypeCode_INTERVAL), "INTERVAL", reflect.TypeFor[*spanner.Interval](),
			[3]*structpb.Value{str("P1Y2M3DT4H5M6.5S"), null, str("P0Y")}},
		{"st", st, "STRUCT<id INT64, name STRING, tags ARRAY<STRING>>", reflect.TypeFor[*spanner.NullRow](),
			[3]*structpb.Value{list(str("7"), str("seven"), list(str("x"), null)), null, list(null, null, null)}},
		{"ast", arrayOfType(ast), "ARRAY<STRUCT<a INT64, STRING>>", reflect.TypeFor[[]spanner.NullRow](),
			[3]*structpb.Value{list(list(str("1"), str("a")), null, list(str("2"), null)), null, list()}},
		{"p", proto, "PROTO<" + protoFQN + ">", reflect.TypeFor[[]byte](),
			[3]*structpb.Value{str(base64.StdEncoding.EncodeToString([]byte{0x08, 0x96, 0x01})), null, str("")}},
		{"e", enum, "ENUM<" + enumFQN + ">", reflect.TypeFor[sql.NullInt64](),
			[3]*structpb.Value{str("3"), null, str("-2147483648")}},
		{"u", typ(spannerpb.TypeCode_UUID), "UUID", reflect.TypeFor[spanner.NullUUID](),
			[3]*structpb.Value{str(uuidText), null, str("00000000-0000-0000-0000-000000000000")}},
		{"long", typ(spannerpb.TypeCode_STRING), "STRING", reflect.TypeFor[sql.NullString](),
			[3]*structpb.Value{str(typesLong), null, str("")}},
		{"an", arrayOf(spannerpb.TypeCode_NUMERIC), "ARRAY<NUMERIC>", reflect.TypeFor[[]spanner.NullNumeric](),
			[3]*structpb.Value{list(str("1.5"), null, str("-0.000000001")), null, list()}},
		{"aj", arrayOf(spannerpb.TypeCode_JSON), "ARRAY<JSON>", reflect.TypeFor[[]spanner.NullJSON](),
			[3]*structpb.Value{list(str("[]"), null, str(`{"k":false}`)), null, list()}},
		{"aiv", arrayOf(spannerpb.TypeCode_INTERVAL), "ARRAY<INTERVAL>", reflect.TypeFor[[]spanner.NullInterval](),
			[3]*structpb.Value{list(str("PT0.000001S"), null, str("P-1Y")), null, list()}},
		{"ap", arrayOfType(proto), "ARRAY<PROTO<" + protoFQN + ">>", reflect.TypeFor[[][]byte](),
			[3]*structpb.Value{list(b64("abc"), null, b64("")), null, list()}},
		{"ae", arrayOfType(enum), "ARRAY<ENUM<" + enumFQN + ">>", reflect.TypeFor[[]spanner.NullInt64](),
			[3]*structpb.Value{list(str("0"), str("2147483647"), null), null, list()}},
		{"au", arrayOf(spannerpb.TypeCode_UUID), "ARRAY<UUID>", reflect.TypeFor[[]spanner.NullUUID](),
			[3]*structpb.Value{list(str(uuidText), null), null, list()}},
		{"af32", arrayOf(spannerpb.TypeCode_FLOAT32), "ARRAY<FLOAT32>", reflect.TypeFor[[]spanner.NullFloat32](),
			[3]*structpb.Value{list(num(1.5), str("NaN"), str("-Infinity"), null), null, list()}},
	}
}

func typesResultSet(cols []typesColumn) *spannerpb.ResultSet {
	rs := &spannerpb.ResultSet{Metadata: &spannerpb.ResultSetMetadata{RowType: &spannerpb.StructType{}}}
	for _, c := range cols {
		rs.Metadata.RowType.Fields = append(rs.Metadata.RowType.Fields, field(c.name, c.typ))
	}
	for r := range 3 {
		row := &structpb.ListValue{}
		for _, c := range cols {
			row.Values = append(row.Values, c.values[r])
		}
		rs.Rows = append(rs.Rows, row)
	}
	return rs
}

// typesRow is what the application scans a row of the types result into:
// the documented Go types, with NULL-capable targets.
type typesRow struct {
	N    spanner.NullNumeric
	J    spanner.NullJSON
	F32  sql.Null[float32]
	IV   *spanner.Interval
	ST   *spanner.NullRow
	AST  []spanner.NullRow
	P    []byte
	E    sql.NullInt64
	U    spanner.NullUUID
	URaw uuid.NullUUID // raw mode: spanner.NullUUID.Scan rejects the []byte
	Long sql.NullString
	AN   []spanner.NullNumeric
	AJ   []spanner.NullJSON
	AIV  []spanner.NullInterval
	AP   [][]byte
	AE   []spanner.NullInt64
	AU   []spanner.NullUUID
	AF32 []spanner.NullFloat32
}

func (r *typesRow) dest(raw bool) []any {
	var u any = &r.U
	if raw {
		u = &r.URaw
	}
	return []any{&r.N, &r.J, &r.F32, &r.IV, &r.ST, &r.AST, &r.P, &r.E, u, &r.Long, &r.AN, &r.AJ, &r.AIV, &r.AP, &r.AE, &r.AU, &r.AF32}
}

// uuid returns the UUID column whichever target it was scanned into.
func (r *typesRow) uuid() spanner.NullUUID {
	if r.URaw.Valid {
		return spanner.NullUUID{UUID: r.URaw.UUID, Valid: true}
	}
	return r.U
}

func interval(months, days int32, nanos int64) spanner.Interval {
	return spanner.Interval{Months: months, Days: days, Nanos: big.NewInt(nanos)}
}

func ratOf(t *testing.T, s string) big.Rat {
	t.Helper()
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		t.Fatalf("bad rational %q", s)
	}
	return *r
}

// TestFakeTypes reads the types spannertest cannot produce (NUMERIC, JSON,
// FLOAT32, INTERVAL, STRUCT, ARRAY<STRUCT>, PROTO, ENUM, UUID, arrays of
// them, a 300 KiB string) through database/sql into the documented Go
// types, and checks ColumnTypes.
func TestFakeTypes(t *testing.T) {
	s := fakespanner.Start(t)
	cols := typesColumns()
	// Several messages with chunked values, tokens on every 2nd.
	s.AddResult("types", &fakespanner.Result{ResultSet: typesResultSet(cols),
		Split: fakespanner.SplitOptions{MaxBytes: 8 << 10, MaxValues: 5, ResumeTokenEvery: 2}})
	ctx := context.Background()

	for _, props := range [][]string{nil, {"rawDecode=true"}} {
		db := openFake(t, s, props...)
		rows, err := db.QueryContext(ctx, "types")
		if err != nil {
			t.Fatal(err)
		}
		cts, err := rows.ColumnTypes()
		if err != nil {
			t.Fatal(err)
		}
		names, _ := rows.Columns()
		for i, c := range cols {
			ct := cts[i]
			if names[i] != c.name || ct.Name() != c.name {
				t.Errorf("column %d: name %q/%q, want %q", i, names[i], ct.Name(), c.name)
			}
			if ct.DatabaseTypeName() != c.typeName {
				t.Errorf("column %s: DatabaseTypeName %q, want %q", c.name, ct.DatabaseTypeName(), c.typeName)
			}
			want := c.scanType
			if len(props) > 0 && c.name == "u" {
				want = reflect.TypeFor[uuid.NullUUID]() // raw-mode UUID is []byte
			}
			if ct.ScanType() != want {
				t.Errorf("column %s %v: ScanType %v, want %v", c.name, props, ct.ScanType(), want)
			}
			if nullable, ok := ct.Nullable(); !nullable || !ok {
				t.Errorf("column %s: Nullable %v %v, want true true", c.name, nullable, ok)
			}
		}
		var got []typesRow
		for rows.Next() {
			var r typesRow
			if err := rows.Scan(r.dest(len(props) > 0)...); err != nil {
				t.Fatalf("%v row %d: %v", props, len(got), err)
			}
			got = append(got, r)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		rows.Close()
		if len(got) != 3 {
			t.Fatalf("%d rows, want 3", len(got))
		}
		checkTypesRow0(t, got[0])
		checkTypesRow1(t, got[1])
		checkTypesRow2(t, got[2])
	}
}

func checkTypesRow0(t *testing.T, r typesRow) {
	t.Helper()
	want := ratOf(t, "12345678901234567890123456789.123456789")
	if !r.N.Valid || r.N.Numeric.Cmp(&want) != 0 {
		t.Errorf("NUMERIC %v, want %v", r.N, want.RatString())
	}
	wantJSON := map[string]any{"a": []any{1.0, 2.5, "x", nil, true}, "b": map[string]any{"c": "日本"}}
	if !r.J.Valid || !reflect.DeepEqual(r.J.Value, wantJSON) {
		t.Errorf("JSON %#v, want %#v", r.J, wantJSON)
	}
	if !r.F32.Valid || r.F32.V != 3.25 {
		t.Errorf("FLOAT32 %v, want 3.25", r.F32)
	}
	if want := interval(14, 3, (4*3600+5*60+6)*1e9+5e8); r.IV == nil || intervalKey(*r.IV) != intervalKey(want) {
		t.Errorf("INTERVAL %v, want %v", r.IV, want)
	}
	if r.ST == nil || !r.ST.Valid {
		t.Fatalf("STRUCT %v, want a row", r.ST)
	}
	var st struct {
		ID   int64                `spanner:"id"`
		Name string               `spanner:"name"`
		Tags []spanner.NullString `spanner:"tags"`
	}
	if err := r.ST.Row.ToStruct(&st); err != nil {
		t.Fatalf("STRUCT ToStruct: %v", err)
	}
	if st.ID != 7 || st.Name != "seven" || !reflect.DeepEqual(st.Tags, []spanner.NullString{{StringVal: "x", Valid: true}, {}}) {
		t.Errorf("STRUCT %+v", st)
	}
	if names := r.ST.Row.ColumnNames(); !reflect.DeepEqual(names, []string{"id", "name", "tags"}) {
		t.Errorf("STRUCT field names %q", names)
	}
	if len(r.AST) != 3 || !r.AST[0].Valid || r.AST[1].Valid || !r.AST[2].Valid {
		t.Fatalf("ARRAY<STRUCT> %v, want [row, NULL, row]", r.AST)
	}
	var a int64
	var b spanner.NullString
	if err := r.AST[0].Row.Columns(&a, &b); err != nil || a != 1 || b != (spanner.NullString{StringVal: "a", Valid: true}) {
		t.Errorf("ARRAY<STRUCT>[0] = (%d, %v), %v", a, b, err)
	}
	if err := r.AST[2].Row.Columns(&a, &b); err != nil || a != 2 || b.Valid {
		t.Errorf("ARRAY<STRUCT>[2] = (%d, %v), %v", a, b, err)
	}
	if !reflect.DeepEqual(r.P, []byte{0x08, 0x96, 0x01}) {
		t.Errorf("PROTO %x", r.P)
	}
	if r.E != (sql.NullInt64{Int64: 3, Valid: true}) {
		t.Errorf("ENUM %v, want 3", r.E)
	}
	if r.uuid() != (spanner.NullUUID{UUID: uuid.MustParse(uuidText), Valid: true}) {
		t.Errorf("UUID %v", r.uuid())
	}
	if !r.Long.Valid || r.Long.String != typesLong {
		t.Errorf("long STRING of %d bytes, want %d", len(r.Long.String), len(typesLong))
	}
	if len(r.AN) != 3 || !r.AN[0].Valid || r.AN[0].Numeric.RatString() != "3/2" || r.AN[1].Valid || r.AN[2].Numeric.RatString() != "-1/1000000000" {
		t.Errorf("ARRAY<NUMERIC> %v", r.AN)
	}
	wantAJ := []spanner.NullJSON{{Value: []any{}, Valid: true}, {}, {Value: map[string]any{"k": false}, Valid: true}}
	if !reflect.DeepEqual(r.AJ, wantAJ) {
		t.Errorf("ARRAY<JSON> %#v, want %#v", r.AJ, wantAJ)
	}
	if len(r.AIV) != 3 || intervalKey(r.AIV[0].Interval) != intervalKey(interval(0, 0, 1000)) || r.AIV[1].Valid ||
		intervalKey(r.AIV[2].Interval) != intervalKey(interval(-12, 0, 0)) || !r.AIV[0].Valid || !r.AIV[2].Valid {
		t.Errorf("ARRAY<INTERVAL> %v", r.AIV)
	}
	if !reflect.DeepEqual(r.AP, [][]byte{[]byte("abc"), nil, {}}) {
		t.Errorf("ARRAY<PROTO> %q", r.AP)
	}
	if !reflect.DeepEqual(r.AE, []spanner.NullInt64{{Int64: 0, Valid: true}, {Int64: math.MaxInt32, Valid: true}, {}}) {
		t.Errorf("ARRAY<ENUM> %v", r.AE)
	}
	if !reflect.DeepEqual(r.AU, []spanner.NullUUID{{UUID: uuid.MustParse(uuidText), Valid: true}, {}}) {
		t.Errorf("ARRAY<UUID> %v", r.AU)
	}
	if len(r.AF32) != 4 || r.AF32[0] != (spanner.NullFloat32{Float32: 1.5, Valid: true}) || !r.AF32[1].Valid || r.AF32[1].Float32 == r.AF32[1].Float32 ||
		r.AF32[2] != (spanner.NullFloat32{Float32: float32(math.Inf(-1)), Valid: true}) || r.AF32[3].Valid {
		t.Errorf("ARRAY<FLOAT32> %v", r.AF32)
	}
}

func checkTypesRow1(t *testing.T, r typesRow) {
	t.Helper()
	want := typesRow{}
	if !reflect.DeepEqual(r, want) {
		t.Errorf("NULL row scanned as %+v, want all zero (NULL) values", r)
	}
	// Typed nil slices and nil pointers.
	if r.AST != nil || r.AN != nil || r.AP != nil || r.P != nil || r.IV != nil || r.ST != nil {
		t.Errorf("NULL row: non-nil slices or pointers: %+v", r)
	}
}

func checkTypesRow2(t *testing.T, r typesRow) {
	t.Helper()
	if r.N.Numeric.RatString() != "-1/1000000000" || !r.N.Valid {
		t.Errorf("NUMERIC %v", r.N)
	}
	if r.J != (spanner.NullJSON{Value: nil, Valid: true}) {
		t.Errorf("JSON null literal as %#v, want a valid NullJSON holding nil", r.J)
	}
	if r.F32 != (sql.Null[float32]{V: float32(math.Inf(-1)), Valid: true}) {
		t.Errorf("FLOAT32 %v", r.F32)
	}
	if r.IV == nil || intervalKey(*r.IV) != intervalKey(interval(0, 0, 0)) {
		t.Errorf("INTERVAL %v, want zero", r.IV)
	}
	if r.ST == nil || !r.ST.Valid || r.ST.Row.Size() != 3 {
		t.Fatalf("STRUCT of NULL fields: %v", r.ST)
	}
	var id spanner.NullInt64
	var tags []spanner.NullString
	if err := r.ST.Row.Column(0, &id); err != nil || id.Valid {
		t.Errorf("STRUCT field id = %v, %v; want NULL", id, err)
	}
	if err := r.ST.Row.Column(2, &tags); err != nil || tags != nil {
		t.Errorf("STRUCT field tags = %v, %v; want NULL", tags, err)
	}
	if r.AST == nil || len(r.AST) != 0 {
		t.Errorf("empty ARRAY<STRUCT> as %#v", r.AST)
	}
	if r.P == nil || len(r.P) != 0 {
		t.Errorf("empty PROTO as %#v, want empty non-nil", r.P)
	}
	if r.E != (sql.NullInt64{Int64: math.MinInt32, Valid: true}) || r.uuid() != (spanner.NullUUID{Valid: true}) {
		t.Errorf("ENUM %v UUID %v", r.E, r.uuid())
	}
	if r.Long != (sql.NullString{Valid: true}) {
		t.Errorf("empty STRING as %#v", r.Long)
	}
	for name, v := range map[string]any{"an": r.AN, "aj": r.AJ, "aiv": r.AIV, "ap": r.AP, "ae": r.AE, "au": r.AU, "af32": r.AF32} {
		if rv := reflect.ValueOf(v); rv.IsNil() || rv.Len() != 0 {
			t.Errorf("empty %s as %#v, want empty non-nil", name, v)
		}
	}
}

// TestFakeTypesAny reads the same types with Scan into *any: the values
// are exactly the documented Go types (big.Rat as a value, spanner.NullRow,
// spanner.Interval, float32 ...) and NUMERIC is its text with
// decode_numeric_to_string.
func TestFakeTypesAny(t *testing.T) {
	s := fakespanner.Start(t)
	cols := typesColumns()
	s.AddResult("types", &fakespanner.Result{ResultSet: typesResultSet(cols)})
	ctx := context.Background()
	for _, m := range []mode{{}, {raw: true}, {numStr: true}} {
		db := openFake(t, s, m.props()...)
		_, kept, err := readCanon(ctx, db, "types")
		if err != nil {
			t.Fatal(err)
		}
		if len(kept) != 3 {
			t.Fatalf("%v: %d rows", m, len(kept))
		}
		wantTypes := map[string]string{
			"n": "big.Rat", "j": "spanner.NullJSON", "f32": "float32", "iv": "spanner.Interval",
			"st": "spanner.NullRow", "ast": "[]spanner.NullRow", "p": "[]uint8", "e": "int64",
			"u": "string", "long": "string", "an": "[]spanner.NullNumeric", "aj": "[]spanner.NullJSON",
			"aiv": "[]spanner.NullInterval", "ap": "[][]uint8", "ae": "[]spanner.NullInt64",
			"au": "[]spanner.NullUUID", "af32": "[]spanner.NullFloat32",
		}
		if m.numStr {
			wantTypes["n"] = "string"
		}
		if m.raw {
			wantTypes["u"], wantTypes["long"] = "[]uint8", "[]uint8"
			if m.numStr {
				wantTypes["n"] = "[]uint8"
			}
		}
		for i, c := range cols {
			if got := fmt.Sprintf("%T", kept[0][i]); got != wantTypes[c.name] {
				t.Errorf("%v: column %s is %s, want %s", m, c.name, got, wantTypes[c.name])
			}
		}
		if m.numStr {
			if n := fmt.Sprintf("%s", kept[0][0]); n != "12345678901234567890123456789.123456789" {
				t.Errorf("%v: NUMERIC text %q", m, n)
			}
			// As in go-sql-spanner, decode_numeric_to_string leaves arrays alone.
			if an := kept[0][10].([]spanner.NullNumeric); len(an) != 3 || an[0].Numeric.RatString() != "3/2" || an[1].Valid {
				t.Errorf("%v: ARRAY<NUMERIC> %v", m, an)
			}
		}
	}
}

// TestFakeScanTypes: for random result sets of every type, a new value of
// each column's ColumnTypeScanType accepts every value of that column, NULL
// included, in every decode mode.
func TestFakeScanTypes(t *testing.T) {
	s := fakespanner.Start(t)
	ctx := context.Background()
	modes := []mode{{}, {raw: true}, {numStr: true}, {raw: true, numStr: true}}
	dbs := map[mode]*sql.DB{}
	for _, m := range modes {
		dbs[m] = openFake(t, s, m.props()...)
	}
	seen := map[string]bool{}
	for seed := range iterations(10, 20, 200) {
		rng := rand.New(rand.NewPCG(uint64(seed), 0x5ca1))
		rs := randrs.ResultSet(rng, randrs.Options{MinRows: 4, MaxRows: 10, MinColumns: 6, MaxColumns: 12, NullRate: 0.3, TopLevelStructs: true})
		s.AddResult("q", &fakespanner.Result{ResultSet: rs, Split: fakespanner.SplitOptions{Random: true, Seed: int64(seed)}})
		for _, m := range modes {
			rows, err := dbs[m].QueryContext(ctx, "q")
			if err != nil {
				t.Fatal(err)
			}
			cts, err := rows.ColumnTypes()
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for rows.Next() {
				dest := make([]any, len(cts))
				for i, ct := range cts {
					dest[i] = reflect.New(ct.ScanType()).Interface()
				}
				if err := rows.Scan(dest...); err != nil {
					t.Fatalf("seed %d %v row %d: Scan into the ScanTypes: %v", seed, m, n, err)
				}
				n++
			}
			if err := rows.Err(); err != nil {
				t.Fatalf("seed %d %v: %v", seed, m, err)
			}
			rows.Close()
			if n != len(rs.Rows) {
				t.Fatalf("seed %d %v: %d rows, want %d", seed, m, n, len(rs.Rows))
			}
			for _, ct := range cts {
				seen[ct.ScanType().String()] = true
			}
		}
		for _, f := range rs.Metadata.RowType.Fields {
			seen[decode.TypeName(f.Type)] = true
		}
	}
	if len(seen) < 30 {
		t.Errorf("only %d distinct types and scan types seen", len(seen))
	}
}
