package e2e

import (
	"context"
	"database/sql"
	"fmt"
	"reflect"
	"testing"
	"time"

	"cloud.google.com/go/civil"
	"cloud.google.com/go/spanner"
	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/api/iterator"
	"google.golang.org/api/option"

	"github.com/spannerfast/spannerfast/internal/emulatortest"
)

// A PostgreSQL-dialect database types numeric as NUMERIC/PG_NUMERIC and
// jsonb as JSON/PG_JSONB; timestamptz, date, bytea, bigint and varchar are
// the GoogleSQL types. These tests write such columns through spannerfast's
// parameters and read them back through database/sql, comparing every
// driver.Value with what go-sql-spanner makes of the same row (its rows
// decode with the official client into the types emuGSSValue names).

const emuPGTypesDDL = `CREATE TABLE pgtypes (
	k bigint primary key,
	n numeric, j jsonb, ts timestamptz, d date, b bytea, s varchar, i bigint,
	an numeric[], aj jsonb[], ats timestamptz[], ad date[], ab bytea[], ai bigint[]
)`

const emuPGTypesColumns = "k, n, j, ts, d, b, s, i, an, aj, ats, ad, ab, ai"

// emuPGTypesAll reads every row and column of pgtypes.
const emuPGTypesAll = "SELECT " + emuPGTypesColumns + " FROM pgtypes ORDER BY k"

// emuPGTypesDB opens a fresh PostgreSQL database with table pgtypes,
// filled by emuPGInsert.
func emuPGTypesDB(t *testing.T, ctx context.Context) (*sql.DB, *emulatortest.Database) {
	t.Helper()
	return emuPGFilledDB(t, ctx, emuPGTypesDDL, emuPGInsert)
}

// emuPGFilledDB opens a fresh PostgreSQL database with the one table ddl
// creates and runs fill on it.
func emuPGFilledDB(t *testing.T, ctx context.Context, ddl string, fill func(t *testing.T, ctx context.Context, db *sql.DB)) (*sql.DB, *emulatortest.Database) {
	t.Helper()
	db, edb := emuPGDB(t, []string{ddl})
	fill(t, ctx, db)
	return db, edb
}

// emuPGTypesRows are the rows inserted: values (NaN among them), NULLs, and
// typed NULLs of every parameter type.
func emuPGTypesRows() [][]any {
	ts := time.Date(2024, 2, 29, 23, 59, 58, 123456000, time.UTC)
	return [][]any{
		{int64(1), spanner.PGNumeric{Numeric: "123456789.000000001", Valid: true},
			spanner.PGJsonB{Value: map[string]any{"a": []any{1.0, "x", nil}, "b": true}, Valid: true},
			ts, civil.Date{Year: 2024, Month: 2, Day: 29}, []byte{0, 1, 0xff}, "héllo", int64(-7),
			[]spanner.PGNumeric{{Numeric: "1.5", Valid: true}, {}, {Numeric: "NaN", Valid: true}},
			[]spanner.PGJsonB{{Value: map[string]any{"k": 1.0}, Valid: true}, {}, {Value: "s", Valid: true}},
			[]spanner.NullTime{{Time: ts, Valid: true}, {}},
			[]spanner.NullDate{{Date: civil.Date{Year: 1, Month: 1, Day: 1}, Valid: true}, {}},
			[][]byte{{9}, nil, {}},
			[]spanner.NullInt64{{Int64: 5, Valid: true}, {}}},
		{int64(2), spanner.PGNumeric{Numeric: "NaN", Valid: true}, spanner.PGJsonB{Value: []any{}, Valid: true},
			nil, nil, []byte(nil), nil, nil,
			[]spanner.PGNumeric{}, []spanner.PGJsonB{}, []spanner.NullTime{}, []spanner.NullDate{}, [][]byte{}, []spanner.NullInt64{}},
		{int64(3), spanner.PGNumeric{}, spanner.PGJsonB{}, spanner.NullTime{}, spanner.NullDate{}, []byte(nil),
			spanner.NullString{}, spanner.NullInt64{},
			[]spanner.PGNumeric(nil), []spanner.PGJsonB(nil), []spanner.NullTime(nil), []spanner.NullDate(nil), [][]byte(nil), []spanner.NullInt64(nil)},
	}
}

// emuPGInsert inserts the rows through spannerfast. The statement uses
// PostgreSQL's $1..$n; the arguments are named p1..pn, the names Spanner
// gives those parameters (TestEmulatorPostgreSQLPositional binds them by
// position).
func emuPGInsert(t *testing.T, ctx context.Context, db *sql.DB) {
	t.Helper()
	for _, r := range emuPGTypesRows() {
		args := make([]any, len(r))
		for i, v := range r {
			args[i] = sql.Named(fmt.Sprintf("p%d", i+1), v)
		}
		emuExec(t, ctx, db, "INSERT INTO pgtypes ("+emuPGTypesColumns+") VALUES "+
			"($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)", args...)
	}
}

// emuOfficialClient opens the official client on the emulator database,
// emulator-style: SPANNER_EMULATOR_HOST keeps it from probing for the GCE
// metadata server (whose HTTP connection would outlive the test), so the
// tests that use it do not run in parallel.
func emuOfficialClient(t *testing.T, ctx context.Context, edb *emulatortest.Database) *spanner.Client {
	t.Helper()
	t.Setenv(emulatortest.EmulatorHostEnv, edb.Endpoint)
	c, err := spanner.NewClientWithConfig(ctx, edb.Path(), spanner.ClientConfig{DisableNativeMetrics: true},
		option.WithoutAuthentication(), option.WithTelemetryDisabled())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// emuGSSRows reads query with the official client and turns each column
// into the driver.Value go-sql-spanner's rows return for it (its
// rows.Next: the official client's decoding, then the Go type it picks per
// type code and annotation).
func emuGSSRows(t *testing.T, ctx context.Context, c *spanner.Client, query string, native bool) [][]any {
	t.Helper()
	it := c.Single().Query(ctx, spanner.Statement{SQL: query})
	defer it.Stop()
	var out [][]any
	for {
		row, err := it.Next()
		if err == iterator.Done {
			return out
		}
		if err != nil {
			t.Fatalf("%s: %v", query, err)
		}
		vals := make([]any, row.Size())
		for i := range vals {
			var g spanner.GenericColumnValue
			if err := row.Column(i, &g); err != nil {
				t.Fatal(err)
			}
			if vals[i], err = emuGSSValue(row, i, g.Type, native); err != nil {
				t.Fatalf("%s column %d: %v", query, i, err)
			}
		}
		out = append(out, vals)
	}
}

func emuGSSValue(row *spanner.Row, i int, typ *spannerpb.Type, native bool) (any, error) {
	scalar := func(p any, valid func() (any, bool)) (any, error) {
		if err := row.Column(i, p); err != nil {
			return nil, err
		}
		if v, ok := valid(); ok {
			return v, nil
		}
		return nil, nil
	}
	column := func(p any) (any, error) {
		err := row.Column(i, p)
		return reflect.ValueOf(p).Elem().Interface(), err
	}
	pg := typ.GetTypeAnnotation()
	switch typ.GetCode() {
	case spannerpb.TypeCode_INT64:
		var v spanner.NullInt64
		return scalar(&v, func() (any, bool) { return v.Int64, v.Valid })
	case spannerpb.TypeCode_STRING:
		var v spanner.NullString
		return scalar(&v, func() (any, bool) { return v.StringVal, v.Valid })
	case spannerpb.TypeCode_BOOL:
		var v spanner.NullBool
		return scalar(&v, func() (any, bool) { return v.Bool, v.Valid })
	case spannerpb.TypeCode_FLOAT32:
		var v spanner.NullFloat32
		return scalar(&v, func() (any, bool) { return v.Float32, v.Valid })
	case spannerpb.TypeCode_FLOAT64:
		var v spanner.NullFloat64
		return scalar(&v, func() (any, bool) { return v.Float64, v.Valid })
	case spannerpb.TypeCode_NUMERIC:
		if pg != spannerpb.TypeAnnotationCode_PG_NUMERIC {
			return nil, fmt.Errorf("NUMERIC without PG_NUMERIC on a PostgreSQL database")
		}
		var v spanner.PGNumeric
		return scalar(&v, func() (any, bool) { return v.Numeric, v.Valid })
	case spannerpb.TypeCode_JSON:
		if pg != spannerpb.TypeAnnotationCode_PG_JSONB {
			return nil, fmt.Errorf("JSON without PG_JSONB on a PostgreSQL database")
		}
		return column(new(spanner.PGJsonB))
	case spannerpb.TypeCode_TIMESTAMP:
		var v spanner.NullTime
		return scalar(&v, func() (any, bool) { return v.Time, v.Valid })
	case spannerpb.TypeCode_DATE:
		var v spanner.NullDate
		return scalar(&v, func() (any, bool) { return v.String(), v.Valid })
	case spannerpb.TypeCode_BYTES:
		return column(new([]byte))
	case spannerpb.TypeCode_ARRAY:
		switch typ.GetArrayElementType().GetCode() {
		case spannerpb.TypeCode_NUMERIC:
			return column(new([]spanner.PGNumeric))
		case spannerpb.TypeCode_JSON:
			var js []spanner.NullJSON // the official client has no []PGJsonB decoder; go-sql-spanner converts
			if err := row.Column(i, &js); err != nil {
				return nil, err
			}
			if js == nil {
				return []spanner.PGJsonB(nil), nil
			}
			out := make([]spanner.PGJsonB, len(js))
			for k, j := range js {
				out[k] = spanner.PGJsonB{Value: j.Value, Valid: j.Valid}
			}
			return out, nil
		case spannerpb.TypeCode_TIMESTAMP:
			if native {
				return column(new([]time.Time))
			}
			return column(new([]spanner.NullTime))
		case spannerpb.TypeCode_DATE:
			if native {
				return column(new([]civil.Date))
			}
			return column(new([]spanner.NullDate))
		case spannerpb.TypeCode_BYTES:
			return column(new([][]byte))
		case spannerpb.TypeCode_INT64:
			if native {
				return column(new([]int64))
			}
			return column(new([]spanner.NullInt64))
		case spannerpb.TypeCode_BOOL:
			if native {
				return column(new([]bool))
			}
			return column(new([]spanner.NullBool))
		case spannerpb.TypeCode_FLOAT32:
			if native {
				return column(new([]float32))
			}
			return column(new([]spanner.NullFloat32))
		case spannerpb.TypeCode_FLOAT64:
			if native {
				return column(new([]float64))
			}
			return column(new([]spanner.NullFloat64))
		case spannerpb.TypeCode_STRING:
			if native {
				return column(new([]string))
			}
			return column(new([]spanner.NullString))
		}
	}
	return nil, fmt.Errorf("type %v not covered", typ)
}

// emuSFRows reads query through database/sql, each column scanned into
// *any: the driver.Value spannerfast returns (database/sql copies []byte;
// raw mode's text values are []byte and compared as strings). Raw mode's
// numbers and times are boxed in slots reused for the next row
// (docs/raw-decode.md), so each row's are copied before the next.
func emuSFRows(t *testing.T, ctx context.Context, db emuQuerier, query string, args ...any) [][]any {
	t.Helper()
	rows, err := db.QueryContext(ctx, query, args...)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	defer rows.Close()
	return emuSFSet(t, rows)
}

// emuSFSet reads the current result set of rows as emuSFRows does.
func emuSFSet(t *testing.T, rows *sql.Rows) [][]any {
	t.Helper()
	cols, _ := rows.Columns()
	var out [][]any
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		for i, v := range vals {
			switch x := v.(type) { // a copy, out of the reused slot
			case int64:
				vals[i] = x
			case float64:
				vals[i] = x
			case float32:
				vals[i] = x
			case bool:
				vals[i] = x
			case time.Time:
				vals[i] = x
			}
		}
		out = append(out, vals)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// emuPGRawText is the safe-mode form of a raw-mode value of a column whose
// safe value is a string.
func emuPGRawText(v, safe any) any {
	if b, ok := v.([]byte); ok {
		if _, isString := safe.(string); isString {
			return string(b)
		}
	}
	return v
}

// TestEmulatorPostgreSQLTypes: numeric (NaN included), jsonb, timestamptz,
// date, bytea and arrays of each, written as spannerfast parameters
// (spanner.PGNumeric and spanner.PGJsonB typed with their annotations) and
// read back in safe and raw mode, with and without decode_to_native_arrays
// and decode_numeric_to_string, equal to go-sql-spanner's values.
func TestEmulatorPostgreSQLTypes(t *testing.T) {
	ctx := emuCtx(t)
	_, edb := emuPGTypesDB(t, ctx)
	client := emuOfficialClient(t, ctx, edb)
	query := emuPGTypesAll
	for _, props := range [][]string{
		nil, {"rawDecode=true"},
		{"decode_to_native_arrays=true", "decode_numeric_to_string=true"},
		{"rawDecode=true", "decode_to_native_arrays=true"},
	} {
		raw := len(props) > 0 && props[0] == "rawDecode=true"
		native := len(props) > 0 && props[len(props)-1] != "rawDecode=true"
		if native {
			// go-sql-spanner cannot hold a NULL element in a native
			// array; row 1 has some, so these options read rows 2 and 3.
			query = "SELECT " + emuPGTypesColumns + " FROM pgtypes WHERE k > 1 ORDER BY k"
		}
		want := emuGSSRows(t, ctx, client, query, native)
		got := emuSFRows(t, ctx, emuOpen(t, edb.DSN(props...)), query)
		if len(got) != len(want) {
			t.Fatalf("%v: %d rows, go-sql-spanner %d", props, len(got), len(want))
		}
		for r := range want {
			for c := range want[r] {
				g := got[r][c]
				if raw {
					g = emuPGRawText(g, want[r][c])
				}
				if !reflect.DeepEqual(g, want[r][c]) {
					t.Errorf("%v row %d column %d: %#v, go-sql-spanner %#v", props, r+1, c, g, want[r][c])
				}
			}
		}
	}
}

// TestEmulatorPostgreSQLScan: what an application scans PostgreSQL columns
// into, in safe and raw mode, and what ColumnTypeDatabaseTypeName and
// ColumnTypeScanType report for them.
func TestEmulatorPostgreSQLScan(t *testing.T) {
	t.Parallel()
	ctx := emuCtx(t)
	_, edb := emuPGTypesDB(t, ctx)
	wantTypes := []struct {
		name string
		scan reflect.Type
	}{
		{"INT64", reflect.TypeFor[sql.NullInt64]()},
		{"PG_NUMERIC", reflect.TypeFor[sql.NullString]()},
		{"PG_JSONB", reflect.TypeFor[spanner.PGJsonB]()},
		{"TIMESTAMP", reflect.TypeFor[sql.NullTime]()},
		{"DATE", reflect.TypeFor[sql.NullString]()},
		{"BYTES", reflect.TypeFor[[]byte]()},
		{"STRING", reflect.TypeFor[sql.NullString]()},
		{"INT64", reflect.TypeFor[sql.NullInt64]()},
		{"ARRAY<PG_NUMERIC>", reflect.TypeFor[[]spanner.PGNumeric]()},
		{"ARRAY<PG_JSONB>", reflect.TypeFor[[]spanner.PGJsonB]()},
		{"ARRAY<TIMESTAMP>", reflect.TypeFor[[]spanner.NullTime]()},
		{"ARRAY<DATE>", reflect.TypeFor[[]spanner.NullDate]()},
		{"ARRAY<BYTES>", reflect.TypeFor[[][]byte]()},
		{"ARRAY<INT64>", reflect.TypeFor[[]spanner.NullInt64]()},
	}
	for _, mode := range []string{"rawDecode=false", "rawDecode=true"} {
		db := emuOpen(t, edb.DSN(mode))
		rows, err := db.QueryContext(ctx, "SELECT "+emuPGTypesColumns+" FROM pgtypes ORDER BY k")
		if err != nil {
			t.Fatal(err)
		}
		cts, err := rows.ColumnTypes()
		if err != nil {
			t.Fatal(err)
		}
		for i, ct := range cts {
			if ct.DatabaseTypeName() != wantTypes[i].name || ct.ScanType() != wantTypes[i].scan {
				t.Errorf("%s column %s: %s %v, want %s %v", mode, ct.Name(), ct.DatabaseTypeName(), ct.ScanType(), wantTypes[i].name, wantTypes[i].scan)
			}
		}
		var got []string
		for rows.Next() {
			var (
				k   int64
				n   sql.NullString
				j   spanner.PGJsonB
				ts  sql.NullTime
				d   spanner.NullDate
				b   []byte
				s   sql.NullString
				i   sql.NullInt64
				an  []spanner.PGNumeric
				aj  []spanner.PGJsonB
				ats []spanner.NullTime
				ad  []spanner.NullDate
				ab  [][]byte
				ai  []spanner.NullInt64
			)
			dest := []any{&k, &n, &j, &ts, &d, &b, &s, &i, &an, &aj, &ats, &ad, &ab, &ai}
			if err := rows.Scan(dest...); err != nil {
				t.Fatalf("%s: %v", mode, err)
			}
			got = append(got, fmt.Sprintf("%d|%v|%s|%v|%v|%x|%v|%v|%v|%s|%v|%v|%x|%v", k, n, j.String(), ts, d, b, s, i, an, aj, ats, ad, ab, ai))
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		rows.Close()
		want := []string{
			`1|{123456789.000000001 true}|{"a":[1,"x",null],"b":true}|{2024-02-29 23:59:58.123456 +0000 UTC true}|2024-02-29|0001ff|{héllo true}|{-7 true}|` +
				`[1.5 <null> NaN]|[{"k":1} <null> "s"]|[2024-02-29T23:59:58.123456Z <null>]|[0001-01-01 <null>]|[09  ]|[5 <null>]`,
			`2|{NaN true}|[]|{0001-01-01 00:00:00 +0000 UTC false}|<null>||{ false}|{0 false}|[]|[]|[]|[]|[]|[]`,
			`3|{ false}|<null>|{0001-01-01 00:00:00 +0000 UTC false}|<null>||{ false}|{0 false}|[]|[]|[]|[]|[]|[]`,
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got %q\nwant %q", mode, got, want)
		}
	}
}

// TestEmulatorPostgreSQLNumericScan: a numeric column scans into
// spanner.PGNumeric in safe mode (its text, NaN included); in raw mode the
// value is []byte, which PGNumeric.Scan refuses, so raw mode scans it into
// *string or sql.NullString (docs/raw-decode.md).
func TestEmulatorPostgreSQLNumericScan(t *testing.T) {
	t.Parallel()
	ctx := emuCtx(t)
	_, edb := emuPGTypesDB(t, ctx)
	const query = "SELECT n FROM pgtypes ORDER BY k"
	got := emuColumn[spanner.PGNumeric](t, ctx, emuOpen(t, edb.DSN()), query)
	want := []spanner.PGNumeric{{Numeric: "123456789.000000001", Valid: true}, {Numeric: "NaN", Valid: true}, {}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("safe mode: %v, want %v", got, want)
	}
	raw := emuOpen(t, edb.DSN("rawDecode=true"))
	if texts := emuColumn[sql.NullString](t, ctx, raw, query); !reflect.DeepEqual(texts, []sql.NullString{
		{String: "123456789.000000001", Valid: true}, {String: "NaN", Valid: true}, {}}) {
		t.Errorf("raw mode into sql.NullString: %v", texts)
	}
	var n spanner.PGNumeric
	if err := raw.QueryRowContext(ctx, query).Scan(&n); err == nil {
		t.Errorf("raw mode into spanner.PGNumeric: %v, want PGNumeric.Scan's error for []byte", n)
	}
}

// TestEmulatorPostgreSQLOID: an oid value (INT64 annotated PG_OID) is an
// int64, as go-sql-spanner returns it, and its arrays are INT64 arrays.
func TestEmulatorPostgreSQLOID(t *testing.T) {
	ctx := emuCtx(t)
	edb := emulatortest.NewDatabase(t, emulatortest.WithDialect(emulatortest.PostgreSQL))
	client := emuOfficialClient(t, ctx, edb)
	const query = "SELECT 16::oid AS o, CAST(NULL AS oid) AS n, ARRAY[16::oid, NULL] AS a, CAST(NULL AS oid[]) AS na"
	want := emuGSSRows(t, ctx, client, query, false)
	for _, mode := range []string{"rawDecode=false", "rawDecode=true"} {
		got := emuSFRows(t, ctx, emuOpen(t, edb.DSN(mode)), query)
		if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(got, [][]any{{int64(16), nil,
			[]spanner.NullInt64{{Int64: 16, Valid: true}, {}}, []spanner.NullInt64(nil)}}) {
			t.Errorf("%s: %#v, go-sql-spanner %#v, want [[16 nil [16 NULL] nil]]", mode, got, want)
		}
	}
}

// TestEmulatorPostgreSQLPositional: the same rows written with positional
// arguments bound to $1..$n read back as those written with named ones.
func TestEmulatorPostgreSQLPositional(t *testing.T) {
	t.Parallel()
	ctx := emuCtx(t)
	named := emulatortest.NewDatabase(t, emulatortest.WithDialect(emulatortest.PostgreSQL), emulatortest.WithDDL(emuPGTypesDDL))
	emuPGInsert(t, ctx, emuOpen(t, named.DSN()))
	pos := emulatortest.NewDatabase(t, emulatortest.WithDialect(emulatortest.PostgreSQL), emulatortest.WithDDL(emuPGTypesDDL))
	db := emuOpen(t, pos.DSN())
	for _, r := range emuPGTypesRows() {
		emuExec(t, ctx, db, "INSERT INTO pgtypes ("+emuPGTypesColumns+") VALUES "+
			"($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)", r...)
	}
	query := emuPGTypesAll
	want := emuSFRows(t, ctx, emuOpen(t, named.DSN()), query)
	got := emuSFRows(t, ctx, db, query)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("positional:\n%#v\nnamed:\n%#v", got, want)
	}
}
