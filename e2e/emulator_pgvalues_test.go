package e2e

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"cloud.google.com/go/civil"
	"cloud.google.com/go/spanner"
	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	sfdriver "github.com/spannerfast/spannerfast/driver"
	"github.com/spannerfast/spannerfast/internal/emulatortest"
)

// Every PostgreSQL column type that Spanner's PostgreSQL interface has a
// Go value for, scalar and array, written through spannerfast's $n
// parameters and read back: as driver.Values compared with what
// go-sql-spanner returns for the same rows (emuGSSRows), and scanned into
// the Go types an application uses, compared with what was written.

const emuPGValuesDDL = `CREATE TABLE pgvalues (
	k bigint primary key,
	b bool, f4 real, f8 double precision, i8 int8, vc varchar, tx text, n numeric, j jsonb,
	ts timestamptz, d date, by bytea,
	ab bool[], af4 real[], af8 double precision[], ai8 int8[], avc varchar[], atx text[], an numeric[], aj jsonb[],
	ats timestamptz[], ad date[], aby bytea[]
)`

const emuPGValuesColumns = "k, b, f4, f8, i8, vc, tx, n, j, ts, d, by, ab, af4, af8, ai8, avc, atx, an, aj, ats, ad, aby"

// emuPGValuesAll reads every row and column of pgvalues.
const emuPGValuesAll = "SELECT " + emuPGValuesColumns + " FROM pgvalues ORDER BY k"

// emuPGValuesDB opens a fresh PostgreSQL database with table pgvalues,
// filled by emuPGValuesInsert.
func emuPGValuesDB(t *testing.T, ctx context.Context) (*sql.DB, *emulatortest.Database) {
	t.Helper()
	return emuPGFilledDB(t, ctx, emuPGValuesDDL, emuPGValuesInsert)
}

// emuPGValuesRows are the rows written, one Go form of each value per row:
//
//  1. spanner.Null* scalars and arrays of spanner.Null* with NULL elements;
//  2. plain Go values, native slices, the edge values (NaN, ±Inf, the
//     extremes of int8, empty strings and arrays);
//  3. NULLs: typed NULL scalars and nil slices;
//  4. database/sql's Null types, pointers and slices of pointers (nil
//     among them).
func emuPGValuesRows() [][]any {
	ts := time.Date(2024, 2, 29, 23, 59, 58, 123456000, time.UTC)
	ts2 := time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC)
	d := civil.Date{Year: 2024, Month: 2, Day: 29}
	d2 := civil.Date{Year: 9999, Month: 12, Day: 31}
	f4, f8, i8, s := float32(0.25), -1e300, int64(42), "pointer"
	b := true
	return [][]any{
		{int64(1), spanner.NullBool{Bool: true, Valid: true}, spanner.NullFloat32{Float32: 1.5, Valid: true},
			spanner.NullFloat64{Float64: -2.25, Valid: true}, spanner.NullInt64{Int64: -7, Valid: true},
			spanner.NullString{StringVal: "héllo", Valid: true}, spanner.NullString{StringVal: "a\nb'c\"", Valid: true},
			spanner.PGNumeric{Numeric: "123456789.000000001", Valid: true},
			spanner.PGJsonB{Value: map[string]any{"a": []any{1.0, "x", nil}, "b": true}, Valid: true},
			spanner.NullTime{Time: ts, Valid: true}, spanner.NullDate{Date: d, Valid: true}, []byte{0, 1, 0xff},
			[]spanner.NullBool{{Bool: true, Valid: true}, {}, {Bool: false, Valid: true}},
			[]spanner.NullFloat32{{Float32: 1.5, Valid: true}, {}},
			[]spanner.NullFloat64{{}, {Float64: 3.5, Valid: true}},
			[]spanner.NullInt64{{Int64: 5, Valid: true}, {}},
			[]spanner.NullString{{StringVal: "x", Valid: true}, {}, {StringVal: "", Valid: true}},
			[]spanner.NullString{{}, {StringVal: "text", Valid: true}},
			[]spanner.PGNumeric{{Numeric: "1.5", Valid: true}, {}, {Numeric: "NaN", Valid: true}},
			[]spanner.PGJsonB{{Value: map[string]any{"k": 1.0}, Valid: true}, {}, {Value: "s", Valid: true}},
			[]spanner.NullTime{{Time: ts, Valid: true}, {}},
			[]spanner.NullDate{{Date: d, Valid: true}, {}},
			[][]byte{{9}, nil, {}}},
		{int64(2), false, float32(math.Inf(-1)), math.NaN(), int64(math.MinInt64), "", "", spanner.PGNumeric{Numeric: "NaN", Valid: true},
			spanner.PGJsonB{Value: []any{}, Valid: true}, ts2, d2, []byte{},
			[]bool{true, false}, []float32{float32(math.NaN()), float32(math.Inf(1))}, []float64{math.Inf(-1), math.MaxFloat64},
			[]int64{math.MaxInt64, math.MinInt64}, []string{"", "é"}, []string{}, []spanner.PGNumeric{}, []spanner.PGJsonB{},
			[]time.Time{ts, ts2}, []civil.Date{d, d2}, [][]byte{}},
		{int64(3), spanner.NullBool{}, spanner.NullFloat32{}, spanner.NullFloat64{}, spanner.NullInt64{}, spanner.NullString{},
			spanner.NullString{}, spanner.PGNumeric{}, spanner.PGJsonB{}, spanner.NullTime{}, spanner.NullDate{}, []byte(nil),
			[]bool(nil), []float32(nil), []float64(nil), []int64(nil), []spanner.NullString(nil), []spanner.NullString(nil),
			[]spanner.PGNumeric(nil), []spanner.PGJsonB(nil), []time.Time(nil), []civil.Date(nil), [][]byte(nil)},
		{int64(4), sql.NullBool{Bool: true, Valid: true}, &f4, sql.NullFloat64{Float64: f8, Valid: true}, &i8,
			sql.NullString{String: "sql", Valid: true}, &s, &spanner.PGNumeric{Numeric: "-0.5", Valid: true},
			spanner.PGJsonB{Value: nil, Valid: true}, sql.NullTime{Time: ts, Valid: true}, &d, []byte("by"),
			[]*bool{&b, nil}, []*float32{nil, &f4}, []*float64{&f8}, []*int64{&i8, nil}, []*string{&s, nil}, []*string{nil},
			[]spanner.PGNumeric{{Numeric: "0", Valid: true}}, []spanner.PGJsonB{{Value: nil, Valid: true}},
			[]*time.Time{nil, &ts}, []*civil.Date{&d, nil}, [][]byte{[]byte("x")}},
	}
}

func emuPGValuesInsert(t *testing.T, ctx context.Context, db *sql.DB) {
	t.Helper()
	n := len(strings.Split(emuPGValuesColumns, ","))
	marks := make([]string, n)
	for i := range marks {
		marks[i] = fmt.Sprintf("$%d", i+1)
	}
	for _, r := range emuPGValuesRows() {
		emuExec(t, ctx, db, "INSERT INTO pgvalues ("+emuPGValuesColumns+") VALUES ("+strings.Join(marks, ", ")+")", r...)
	}
}

// emuSame compares two values by their Go syntax, so that NaN equals NaN.
func emuSame(a, b any) bool { return fmt.Sprintf("%#v", a) == fmt.Sprintf("%#v", b) }

// TestEmulatorPostgreSQLValues: bool, real, double precision, int8,
// varchar, text, numeric (NaN), jsonb, timestamptz, date and bytea, and
// arrays of each with NULL elements, written as $n parameters in every Go
// form go-sql-spanner accepts, read back as the driver.Values
// go-sql-spanner returns: in safe mode, raw mode (the DSN's rawDecode and
// driver.RawDecode for one query) and with decode_to_native_arrays.
func TestEmulatorPostgreSQLValues(t *testing.T) {
	ctx := emuCtx(t)
	db, edb := emuPGValuesDB(t, ctx)
	client := emuOfficialClient(t, ctx, edb)
	all := emuPGValuesAll
	// go-sql-spanner cannot hold a NULL element in a native array: rows 2
	// and 3 have none.
	noNullElements := "SELECT " + emuPGValuesColumns + " FROM pgvalues WHERE k IN (2, 3) ORDER BY k"
	for _, tc := range []struct {
		name   string
		db     *sql.DB
		args   []any
		raw    bool
		native bool
	}{
		{name: "safe", db: db},
		{name: "rawDecode=true", db: emuOpen(t, edb.DSN("rawDecode=true")), raw: true},
		{name: "driver.RawDecode(true)", db: db, args: []any{sfdriver.RawDecode(true)}, raw: true},
		{name: "decode_to_native_arrays", db: emuOpen(t, edb.DSN("decode_to_native_arrays=true")), native: true},
		{name: "raw native", db: emuOpen(t, edb.DSN("rawDecode=true", "decode_to_native_arrays=true")), raw: true, native: true},
		{name: "ExecOptions{DecodeToNativeArrays}", db: db, args: []any{sfdriver.ExecOptions{DecodeToNativeArrays: true}}, native: true},
	} {
		query := all
		if tc.native {
			query = noNullElements
		}
		want := emuGSSRows(t, ctx, client, query, tc.native)
		got := emuSFRows(t, ctx, tc.db, query, tc.args...)
		if len(got) != len(want) {
			t.Fatalf("%s: %d rows, go-sql-spanner %d", tc.name, len(got), len(want))
		}
		if _, isRaw := got[0][5].([]byte); isRaw != tc.raw {
			t.Errorf("%s: varchar value %T: raw mode %v", tc.name, got[0][5], isRaw)
		}
		for r := range want {
			for c := range want[r] {
				g := got[r][c]
				if tc.raw {
					g = emuPGRawText(g, want[r][c])
				}
				if !emuSame(g, want[r][c]) {
					t.Errorf("%s row %d column %d: %#v, go-sql-spanner %#v", tc.name, r+1, c, g, want[r][c])
				}
			}
		}
	}
}

// TestEmulatorPostgreSQLValuesProto: with ExecOptions{DecodeOption:
// DecodeOptionProto} every PostgreSQL column is the
// spanner.GenericColumnValue go-sql-spanner returns: the type with its
// PG_NUMERIC / PG_JSONB annotation and the value as sent, in safe and raw
// mode.
func TestEmulatorPostgreSQLValuesProto(t *testing.T) {
	ctx := emuCtx(t)
	db, edb := emuPGValuesDB(t, ctx)
	client := emuOfficialClient(t, ctx, edb)
	query := emuPGValuesAll
	var want [][]spanner.GenericColumnValue
	it := client.Single().Query(ctx, spanner.Statement{SQL: query})
	if err := it.Do(func(row *spanner.Row) error {
		vals := make([]spanner.GenericColumnValue, row.Size())
		for i := range vals {
			if err := row.Column(i, &vals[i]); err != nil {
				return err
			}
		}
		want = append(want, vals)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	asProto := sfdriver.ExecOptions{DecodeOption: sfdriver.DecodeOptionProto}
	for _, args := range [][]any{{asProto}, {asProto, sfdriver.RawDecode(true)}} {
		got := emuSFRows(t, ctx, db, query, args...)
		if len(got) != len(want) || len(want) != 4 {
			t.Fatalf("%v: %d rows, go-sql-spanner %d", args, len(got), len(want))
		}
		for r := range want {
			for c, w := range want[r] {
				g, ok := got[r][c].(spanner.GenericColumnValue)
				if !ok || !proto.Equal(g.Type, w.Type) || !proto.Equal(g.Value, w.Value) {
					t.Errorf("%v row %d column %d: %#v, go-sql-spanner %v %v", args, r+1, c, got[r][c], w.Type, w.Value)
				}
			}
		}
	}
}

// emuPGScanned is a row of pgvalues scanned into the Go types an
// application uses for them.
type emuPGScanned struct {
	k   int64
	b   sql.NullBool
	f4  sql.Null[float32]
	f8  sql.NullFloat64
	i8  sql.NullInt64
	vc  sql.NullString
	tx  sql.NullString
	n   sql.NullString // spanner.PGNumeric in safe mode: TestEmulatorPostgreSQLNumericScan
	j   spanner.PGJsonB
	ts  sql.NullTime
	d   spanner.NullDate
	by  []byte
	ab  []spanner.NullBool
	af4 []spanner.NullFloat32
	af8 []spanner.NullFloat64
	ai8 []spanner.NullInt64
	avc []spanner.NullString
	atx []spanner.NullString
	an  []spanner.PGNumeric
	aj  []spanner.PGJsonB
	ats []spanner.NullTime
	ad  []spanner.NullDate
	aby [][]byte
}

func (s *emuPGScanned) dest() []any {
	return []any{&s.k, &s.b, &s.f4, &s.f8, &s.i8, &s.vc, &s.tx, &s.n, &s.j, &s.ts, &s.d, &s.by,
		&s.ab, &s.af4, &s.af8, &s.ai8, &s.avc, &s.atx, &s.an, &s.aj, &s.ats, &s.ad, &s.aby}
}

// TestEmulatorPostgreSQLValuesScan: every value written as a $n parameter
// scans back, in safe and raw mode, into the Go type an application uses
// for its column, equal to what was written (a NULL array is a nil slice,
// an empty one an empty slice, NULL elements are invalid spanner.Null*
// elements or nil []byte), and into the type ColumnTypeScanType reports.
func TestEmulatorPostgreSQLValuesScan(t *testing.T) {
	t.Parallel()
	ctx := emuCtx(t)
	db, edb := emuPGValuesDB(t, ctx)
	ts := time.Date(2024, 2, 29, 23, 59, 58, 123456000, time.UTC)
	ts2 := time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC)
	d := civil.Date{Year: 2024, Month: 2, Day: 29}
	d2 := civil.Date{Year: 9999, Month: 12, Day: 31}
	want := []emuPGScanned{
		{k: 1, b: sql.NullBool{Bool: true, Valid: true}, f4: sql.Null[float32]{V: 1.5, Valid: true},
			f8: sql.NullFloat64{Float64: -2.25, Valid: true}, i8: sql.NullInt64{Int64: -7, Valid: true},
			vc: sql.NullString{String: "héllo", Valid: true}, tx: sql.NullString{String: "a\nb'c\"", Valid: true},
			n:  sql.NullString{String: "123456789.000000001", Valid: true},
			j:  spanner.PGJsonB{Value: map[string]any{"a": []any{1.0, "x", nil}, "b": true}, Valid: true},
			ts: sql.NullTime{Time: ts, Valid: true}, d: spanner.NullDate{Date: d, Valid: true}, by: []byte{0, 1, 0xff},
			ab:  []spanner.NullBool{{Bool: true, Valid: true}, {}, {Bool: false, Valid: true}},
			af4: []spanner.NullFloat32{{Float32: 1.5, Valid: true}, {}},
			af8: []spanner.NullFloat64{{}, {Float64: 3.5, Valid: true}},
			ai8: []spanner.NullInt64{{Int64: 5, Valid: true}, {}},
			avc: []spanner.NullString{{StringVal: "x", Valid: true}, {}, {StringVal: "", Valid: true}},
			atx: []spanner.NullString{{}, {StringVal: "text", Valid: true}},
			an:  []spanner.PGNumeric{{Numeric: "1.5", Valid: true}, {}, {Numeric: "NaN", Valid: true}},
			aj:  []spanner.PGJsonB{{Value: map[string]any{"k": 1.0}, Valid: true}, {}, {Value: "s", Valid: true}},
			ats: []spanner.NullTime{{Time: ts, Valid: true}, {}},
			ad:  []spanner.NullDate{{Date: d, Valid: true}, {}},
			aby: [][]byte{{9}, nil, {}}},
		{k: 2, b: sql.NullBool{Valid: true}, f4: sql.Null[float32]{V: float32(math.Inf(-1)), Valid: true},
			f8: sql.NullFloat64{Float64: math.NaN(), Valid: true}, i8: sql.NullInt64{Int64: math.MinInt64, Valid: true},
			vc: sql.NullString{Valid: true}, tx: sql.NullString{Valid: true}, n: sql.NullString{String: "NaN", Valid: true},
			j: spanner.PGJsonB{Value: []any{}, Valid: true}, ts: sql.NullTime{Time: ts2, Valid: true},
			d: spanner.NullDate{Date: d2, Valid: true}, by: []byte{},
			ab:  []spanner.NullBool{{Bool: true, Valid: true}, {Valid: true}},
			af4: []spanner.NullFloat32{{Float32: float32(math.NaN()), Valid: true}, {Float32: float32(math.Inf(1)), Valid: true}},
			af8: []spanner.NullFloat64{{Float64: math.Inf(-1), Valid: true}, {Float64: math.MaxFloat64, Valid: true}},
			ai8: []spanner.NullInt64{{Int64: math.MaxInt64, Valid: true}, {Int64: math.MinInt64, Valid: true}},
			avc: []spanner.NullString{{Valid: true}, {StringVal: "é", Valid: true}},
			atx: []spanner.NullString{}, an: []spanner.PGNumeric{}, aj: []spanner.PGJsonB{},
			ats: []spanner.NullTime{{Time: ts, Valid: true}, {Time: ts2, Valid: true}},
			ad:  []spanner.NullDate{{Date: d, Valid: true}, {Date: d2, Valid: true}},
			aby: [][]byte{}},
		{k: 3},
		{k: 4, b: sql.NullBool{Bool: true, Valid: true}, f4: sql.Null[float32]{V: 0.25, Valid: true},
			f8: sql.NullFloat64{Float64: -1e300, Valid: true}, i8: sql.NullInt64{Int64: 42, Valid: true},
			vc: sql.NullString{String: "sql", Valid: true}, tx: sql.NullString{String: "pointer", Valid: true},
			n: sql.NullString{String: "-0.5", Valid: true}, j: spanner.PGJsonB{Value: nil, Valid: true},
			ts: sql.NullTime{Time: ts, Valid: true}, d: spanner.NullDate{Date: d, Valid: true}, by: []byte("by"),
			ab:  []spanner.NullBool{{Bool: true, Valid: true}, {}},
			af4: []spanner.NullFloat32{{}, {Float32: 0.25, Valid: true}},
			af8: []spanner.NullFloat64{{Float64: -1e300, Valid: true}},
			ai8: []spanner.NullInt64{{Int64: 42, Valid: true}, {}},
			avc: []spanner.NullString{{StringVal: "pointer", Valid: true}, {}},
			atx: []spanner.NullString{{}},
			an:  []spanner.PGNumeric{{Numeric: "0", Valid: true}},
			aj:  []spanner.PGJsonB{{Value: nil, Valid: true}},
			ats: []spanner.NullTime{{}, {Time: ts, Valid: true}},
			ad:  []spanner.NullDate{{Date: d, Valid: true}, {}},
			aby: [][]byte{[]byte("x")}},
	}
	query := emuPGValuesAll
	for _, tc := range []struct {
		name string
		db   *sql.DB
		args []any
	}{
		{"safe", db, nil},
		{"rawDecode=true", emuOpen(t, edb.DSN("rawDecode=true")), nil},
		{"driver.RawDecode(true)", db, []any{sfdriver.RawDecode(true)}},
	} {
		emuScanIntoScanTypes(t, ctx, tc.name, tc.db, query, tc.args...)
		rows, err := tc.db.QueryContext(ctx, query, tc.args...)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		var got []emuPGScanned
		for rows.Next() {
			var s emuPGScanned
			if err := rows.Scan(s.dest()...); err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			got = append(got, s)
		}
		if err := rows.Err(); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		rows.Close()
		if len(got) != len(want) {
			t.Fatalf("%s: %d rows, want %d", tc.name, len(got), len(want))
		}
		for r := range want {
			g, w := got[r].dest(), want[r].dest()
			for c := range w {
				gv, wv := reflect.ValueOf(g[c]).Elem().Interface(), reflect.ValueOf(w[c]).Elem().Interface()
				if !emuSame(gv, wv) {
					t.Errorf("%s row %d column %d: %#v, want %#v", tc.name, r+1, c, gv, wv)
				}
			}
		}
	}
}

// TestEmulatorPostgreSQLLiteralArguments: a spanner.GenericColumnValue
// typed BOOL or ARRAY holding PostgreSQL's text of its value ('yes',
// '{1,NULL}') is written as the value that text means, as go-sql-spanner
// writes it on a PostgreSQL database (params.TestPostgreSQLLiterals has the
// rules).
func TestEmulatorPostgreSQLLiteralArguments(t *testing.T) {
	t.Parallel()
	ctx := emuCtx(t)
	db, _ := emuPGDB(t, []string{emuPGValuesDDL})
	lit := func(typ *spannerpb.Type, text string) spanner.GenericColumnValue {
		return spanner.GenericColumnValue{Type: typ, Value: structpb.NewStringValue(text)}
	}
	array := func(t *spannerpb.Type) *spannerpb.Type {
		return &spannerpb.Type{Code: spannerpb.TypeCode_ARRAY, ArrayElementType: t}
	}
	code := func(c spannerpb.TypeCode) *spannerpb.Type { return &spannerpb.Type{Code: c} }
	pgNumeric := &spannerpb.Type{Code: spannerpb.TypeCode_NUMERIC, TypeAnnotation: spannerpb.TypeAnnotationCode_PG_NUMERIC}
	emuExec(t, ctx, db, "INSERT INTO pgvalues (k, b, ab, af8, ai8, avc, an, ad) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
		int64(1), lit(code(spannerpb.TypeCode_BOOL), " Yes "),
		lit(array(code(spannerpb.TypeCode_BOOL)), "{t, NULL, off}"),
		lit(array(code(spannerpb.TypeCode_FLOAT64)), `{1.5, -Infinity, " 2 "}`),
		lit(array(code(spannerpb.TypeCode_INT64)), "{1, NULL}"),
		lit(array(code(spannerpb.TypeCode_STRING)), `{"a,b", NULL, "NULL", c\"d}`),
		lit(array(pgNumeric), "{1.5, NaN}"),
		lit(array(code(spannerpb.TypeCode_DATE)), "{2024-02-29}"))
	var (
		b   bool
		ab  []spanner.NullBool
		af8 []spanner.NullFloat64
		ai8 []spanner.NullInt64
		avc []spanner.NullString
		an  []spanner.PGNumeric
		ad  []spanner.NullDate
	)
	if err := db.QueryRowContext(ctx, "SELECT b, ab, af8, ai8, avc, an, ad FROM pgvalues WHERE k = 1").
		Scan(&b, &ab, &af8, &ai8, &avc, &an, &ad); err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprint(b, ab, af8, ai8, avc, an, ad)
	const want = `true [true <null> false] [1.5 -Inf 2] [1 <null>] [a,b <null> NULL c"d] [1.5 NaN] [2024-02-29]`
	if got != want {
		t.Errorf("read back %s, want %s", got, want)
	}
}

// emuScanIntoScanTypes scans every row of query into values of the types
// ColumnTypeScanType reports: each must take every value of its column,
// NULLs included, in the mode the query runs in.
func emuScanIntoScanTypes(t *testing.T, ctx context.Context, name string, db *sql.DB, query string, args ...any) {
	t.Helper()
	rows, err := db.QueryContext(ctx, query, args...)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	defer rows.Close()
	cts, err := rows.ColumnTypes()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for ; rows.Next(); n++ {
		dest := make([]any, len(cts))
		for i, ct := range cts {
			dest[i] = reflect.New(ct.ScanType()).Interface()
		}
		if err := rows.Scan(dest...); err != nil {
			t.Errorf("%s: row %d into the ScanTypes: %v", name, n+1, err)
		}
	}
	if err := rows.Err(); err != nil || n == 0 {
		t.Fatalf("%s: %d rows, %v", name, n, err)
	}
}
