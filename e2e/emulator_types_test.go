package e2e

import (
	"database/sql"
	"math"
	"math/big"
	"reflect"
	"testing"
	"time"

	"cloud.google.com/go/civil"
	"cloud.google.com/go/spanner"
	"google.golang.org/grpc/codes"

	sfdriver "github.com/spannerfast/spannerfast/driver"
)

// emuTypesDDL has a column of every type this emulator version stores, scalar
// and array. (It has no UUID or INTERVAL columns: the emulator rejects both
// types; STRUCT is a query-only type and is read below.)
const emuTypesDDL = `CREATE TABLE Types (
	K INT64 NOT NULL,
	B BOOL, I INT64, F64 FLOAT64, F32 FLOAT32, N NUMERIC, S STRING(MAX), Y BYTES(MAX),
	D DATE, T TIMESTAMP, J JSON,
	AB ARRAY<BOOL>, AI ARRAY<INT64>, AF64 ARRAY<FLOAT64>, AF32 ARRAY<FLOAT32>, AN ARRAY<NUMERIC>,
	AStr ARRAY<STRING(MAX)>, AY ARRAY<BYTES(MAX)>, AD ARRAY<DATE>, ATs ARRAY<TIMESTAMP>, AJ ARRAY<JSON>
) PRIMARY KEY (K)`

const emuTypesColumns = "B, I, F64, F32, N, S, Y, D, T, J, AB, AI, AF64, AF32, AN, AStr, AY, AD, ATs, AJ"

// emuTypesRow is one row of Types as the application scans it.
type emuTypesRow struct {
	B    sql.NullBool
	I    sql.NullInt64
	F64  sql.NullFloat64
	F32  spanner.NullFloat32 // sql.Null[float32] binds as FLOAT64: database/sql converts its value
	N    spanner.NullNumeric
	S    sql.NullString
	Y    []byte
	D    spanner.NullDate
	T    sql.NullTime
	J    spanner.NullJSON
	AB   []spanner.NullBool
	AI   []spanner.NullInt64
	AF64 []spanner.NullFloat64
	AF32 []spanner.NullFloat32
	AN   []spanner.NullNumeric
	AStr []spanner.NullString
	AY   [][]byte
	AD   []spanner.NullDate
	ATs  []spanner.NullTime
	AJ   []spanner.NullJSON
}

func (r *emuTypesRow) dest() []any {
	return []any{&r.B, &r.I, &r.F64, &r.F32, &r.N, &r.S, &r.Y, &r.D, &r.T, &r.J,
		&r.AB, &r.AI, &r.AF64, &r.AF32, &r.AN, &r.AStr, &r.AY, &r.AD, &r.ATs, &r.AJ}
}

// args are the row's values as parameters: the typed Go values an
// application binds (nil slices and invalid Null values are NULL).
func (r *emuTypesRow) args() []any {
	return []any{r.B, r.I, r.F64, r.F32, r.N, r.S, r.Y, r.D, r.T, r.J,
		r.AB, r.AI, r.AF64, r.AF32, r.AN, r.AStr, r.AY, r.AD, r.ATs, r.AJ}
}

func emuTypesFull() emuTypesRow {
	ts := time.Date(2024, 2, 29, 23, 59, 58, 123456789, time.UTC)
	d := civil.Date{Year: 1, Month: 1, Day: 1}
	return emuTypesRow{
		B:    sql.NullBool{Bool: true, Valid: true},
		I:    sql.NullInt64{Int64: math.MinInt64, Valid: true},
		F64:  sql.NullFloat64{Float64: math.Inf(-1), Valid: true},
		F32:  spanner.NullFloat32{Float32: 1.5, Valid: true},
		N:    spanner.NullNumeric{Numeric: *big.NewRat(-12345678901, 1000000000), Valid: true},
		S:    sql.NullString{String: "héllo, 世界 'q' \"dq\"", Valid: true},
		Y:    []byte{0, 1, 2, 0xff},
		D:    spanner.NullDate{Date: d, Valid: true},
		T:    sql.NullTime{Time: ts, Valid: true},
		J:    spanner.NullJSON{Value: map[string]any{"a": []any{1.0, "x", nil}}, Valid: true},
		AB:   []spanner.NullBool{{Bool: true, Valid: true}, {}},
		AI:   []spanner.NullInt64{{Int64: math.MaxInt64, Valid: true}, {}, {Int64: -1, Valid: true}},
		AF64: []spanner.NullFloat64{{Float64: math.Inf(1), Valid: true}, {}},
		AF32: []spanner.NullFloat32{{Float32: -0.25, Valid: true}, {}},
		AN:   []spanner.NullNumeric{{Numeric: *big.NewRat(1, 4), Valid: true}, {}},
		AStr: []spanner.NullString{{StringVal: "", Valid: true}, {}, {StringVal: "z", Valid: true}},
		AY:   [][]byte{{}, nil, {9}},
		AD:   []spanner.NullDate{{Date: civil.Date{Year: 9999, Month: 12, Day: 31}, Valid: true}, {}},
		ATs:  []spanner.NullTime{{Time: ts.Add(-time.Hour), Valid: true}, {}},
		AJ:   []spanner.NullJSON{{Value: "s", Valid: true}, {}},
	}
}

// emuCompareTypes compares field by field; JSON values compare by their text.
func emuCompareTypes(t *testing.T, label string, got, want emuTypesRow) {
	t.Helper()
	got.J, want.J = emuJSONText(got.J), emuJSONText(want.J)
	got.AJ, want.AJ = emuJSONTexts(got.AJ), emuJSONTexts(want.AJ)
	if got.T.Valid {
		got.T.Time = got.T.Time.UTC()
	}
	gv, wv := reflect.ValueOf(got), reflect.ValueOf(want)
	for f := 0; f < gv.NumField(); f++ {
		g, w := gv.Field(f).Interface(), wv.Field(f).Interface()
		if n, ok := g.(spanner.NullNumeric); ok {
			wn := w.(spanner.NullNumeric)
			if n.Valid != wn.Valid || (n.Valid && n.Numeric.Cmp(&wn.Numeric) != 0) {
				t.Errorf("%s: column %s = %v, want %v", label, gv.Type().Field(f).Name, g, w)
			}
			continue
		}
		if an, ok := g.([]spanner.NullNumeric); ok {
			wn := w.([]spanner.NullNumeric)
			same := len(an) == len(wn) && (an == nil) == (wn == nil)
			for i := 0; same && i < len(an); i++ {
				same = an[i].Valid == wn[i].Valid && (!an[i].Valid || an[i].Numeric.Cmp(&wn[i].Numeric) == 0)
			}
			if !same {
				t.Errorf("%s: column %s = %v, want %v", label, gv.Type().Field(f).Name, g, w)
			}
			continue
		}
		if !reflect.DeepEqual(g, w) {
			t.Errorf("%s: column %s = %#v, want %#v", label, gv.Type().Field(f).Name, g, w)
		}
	}
}

func emuJSONTexts(js []spanner.NullJSON) []spanner.NullJSON {
	if js == nil {
		return nil
	}
	out := make([]spanner.NullJSON, len(js))
	for i, j := range js {
		out[i] = emuJSONText(j)
	}
	return out
}

func emuJSONText(j spanner.NullJSON) spanner.NullJSON {
	if !j.Valid {
		return spanner.NullJSON{}
	}
	return spanner.NullJSON{Value: j.String(), Valid: true}
}

// TestEmulatorTypesRoundTrip writes a row of every type with named and with
// positional parameters and a row of NULLs, and reads them back in safe and
// raw decode mode.
func TestEmulatorTypesRoundTrip(t *testing.T) {
	t.Parallel()
	ctx := emuCtx(t)
	db, edb := emuDB(t, []string{emuTypesDDL})
	full := emuTypesFull()
	emuExec(t, ctx, db, "INSERT INTO Types (K, "+emuTypesColumns+") VALUES (1, @b, @i, @f64, @f32, @n, @s, @y, @d, @t, @j, "+
		"@ab, @ai, @af64, @af32, @an, @astr, @ay, @ad, @ats, @aj)",
		append([]any{}, emuNamed(full.args(), "b", "i", "f64", "f32", "n", "s", "y", "d", "t", "j",
			"ab", "ai", "af64", "af32", "an", "astr", "ay", "ad", "ats", "aj")...)...)
	emuExec(t, ctx, db, "INSERT INTO Types (K, "+emuTypesColumns+") VALUES (2, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
		full.args()...)
	var nulls emuTypesRow
	emuExec(t, ctx, db, "INSERT INTO Types (K, "+emuTypesColumns+") VALUES (3, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
		nulls.args()...)
	want := map[int64]emuTypesRow{1: full, 2: full, 3: nulls}
	for _, mode := range []string{"rawDecode=false", "rawDecode=true"} {
		rdb := emuOpen(t, edb.DSN(mode))
		rows, err := rdb.QueryContext(ctx, "SELECT K, "+emuTypesColumns+" FROM Types ORDER BY K")
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for rows.Next() {
			var k int64
			var r emuTypesRow
			if err := rows.Scan(append([]any{&k}, r.dest()...)...); err != nil {
				t.Fatal(err)
			}
			emuCompareTypes(t, mode, r, want[k])
			n++
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		rows.Close()
		if n != 3 {
			t.Fatalf("%s: %d rows, want 3", mode, n)
		}
	}
}

func emuNamed(values []any, names ...string) []any {
	out := make([]any, len(names))
	for i, n := range names {
		out[i] = sql.Named(n, values[i])
	}
	return out
}

// TestEmulatorTypesInQueries: values the emulator computes (FLOAT32,
// NUMERIC, JSON), ARRAY<STRUCT> (a STRUCT cannot be a column of its own on
// Spanner), and parameters of each type coming back unchanged.
func TestEmulatorTypesInQueries(t *testing.T) {
	t.Parallel()
	ctx := emuCtx(t)
	db, _ := emuDB(t, nil)

	var (
		f32 float32
		num big.Rat
		js  spanner.NullJSON
	)
	if err := db.QueryRowContext(ctx, `SELECT CAST(1.5 AS FLOAT32), NUMERIC '99999999999999999999999999999.999999999', JSON '{"b":[true,null]}'`).Scan(&f32, &num, &js); err != nil {
		t.Fatal(err)
	}
	if f32 != 1.5 || num.FloatString(9) != "99999999999999999999999999999.999999999" || js.String() != `{"b":[true,null]}` {
		t.Fatalf("got %v %v %v", f32, num.FloatString(9), js)
	}

	var structs []spanner.NullRow
	if err := db.QueryRowContext(ctx, "SELECT ARRAY(SELECT AS STRUCT x AS id, CONCAT('n', CAST(x AS STRING)) AS name FROM UNNEST([1, 2]) AS x ORDER BY x)").Scan(&structs); err != nil {
		t.Fatal(err)
	}
	type pair struct {
		ID   int64  `spanner:"id"`
		Name string `spanner:"name"`
	}
	var got []pair
	for _, s := range structs {
		var p pair
		if err := s.Row.ToStruct(&p); err != nil {
			t.Fatal(err)
		}
		got = append(got, p)
	}
	if !reflect.DeepEqual(got, []pair{{1, "n1"}, {2, "n2"}}) {
		t.Fatalf("structs = %+v", got)
	}

	// Parameters echoed: each arrives with its type and comes back.
	full := emuTypesFull()
	var r emuTypesRow
	if err := db.QueryRowContext(ctx, "SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?", full.args()...).Scan(r.dest()...); err != nil {
		t.Fatal(err)
	}
	emuCompareTypes(t, "echo", r, full)

	// Raw decode with driver.RawDecode among the arguments: values read
	// inside the loop are right; strings scanned into *string are kept.
	rows, err := db.QueryContext(ctx, "SELECT CONCAT('row', CAST(x AS STRING)), x FROM UNNEST(GENERATE_ARRAY(1, 50)) AS x ORDER BY x", sfdriver.RawDecode(true))
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var kept []string
	for rows.Next() {
		var s string
		var x int64
		if err := rows.Scan(&s, &x); err != nil {
			t.Fatal(err)
		}
		kept = append(kept, s)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if len(kept) != 50 || kept[0] != "row1" || kept[49] != "row50" {
		t.Fatalf("raw rows %d: %q ... %q", len(kept), kept[0], kept[len(kept)-1])
	}
}

// TestEmulatorDecodeOptions: decode_to_native_arrays and
// decode_numeric_to_string on the emulator's values, NaN, an empty array
// apart from a NULL one, and the column type names.
func TestEmulatorDecodeOptions(t *testing.T) {
	t.Parallel()
	ctx := emuCtx(t)
	_, edb := emuDB(t, nil)
	db := emuOpen(t, edb.DSN("decode_to_native_arrays=true", "decode_numeric_to_string=true"))
	var (
		ints  []int64
		strs  []string
		num   string
		nan   float64
		empty []int64
		null  []int64
	)
	rows, err := db.QueryContext(ctx, "SELECT [1, 2, 3], ['a', 'b'], NUMERIC '-0.000000001', CAST('NaN' AS FLOAT64), ARRAY<INT64>[], CAST(NULL AS ARRAY<INT64>)")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	types, err := rows.ColumnTypes()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, ct := range types {
		names = append(names, ct.DatabaseTypeName())
	}
	if want := []string{"ARRAY<INT64>", "ARRAY<STRING>", "NUMERIC", "FLOAT64", "ARRAY<INT64>", "ARRAY<INT64>"}; !reflect.DeepEqual(names, want) {
		t.Errorf("type names %q, want %q", names, want)
	}
	if !rows.Next() {
		t.Fatal(rows.Err())
	}
	if err := rows.Scan(&ints, &strs, &num, &nan, &empty, &null); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(ints, []int64{1, 2, 3}) || !reflect.DeepEqual(strs, []string{"a", "b"}) || num != "-0.000000001" || !math.IsNaN(nan) {
		t.Fatalf("got %v %q %q %v", ints, strs, num, nan)
	}
	if empty == nil || len(empty) != 0 || null != nil {
		t.Fatalf("empty array %#v, NULL array %#v: want []int64{} and nil", empty, null)
	}
	// A NULL element cannot become a Go int64: the row fails, naming it.
	err = db.QueryRowContext(ctx, "SELECT [1, NULL]").Scan(&ints)
	emuWantCode(t, err, codes.FailedPrecondition)
}
