package e2e

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"math"
	"math/big"
	"reflect"
	"strings"
	"testing"
	"time"

	"cloud.google.com/go/civil"
	"cloud.google.com/go/spanner"
	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"github.com/google/uuid"
	"google.golang.org/api/iterator"
	"google.golang.org/api/option"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/spannerfast/spannerfast/decode"
	"github.com/spannerfast/spannerfast/internal/fakespanner"
)

// Helpers shared by the tests against internal/fakespanner (fake_*_test.go).

// fakeDB is the database path every fake-server test uses.
const fakeDB = "projects/p/instances/i/databases/d"

var longRun = flag.Bool("long", false, "run many more iterations of the fake-server property and differential tests")

// iterations picks an iteration count: short under -short, long with -long.
func iterations(short, normal, long int) int {
	switch {
	case *longRun:
		return long
	case testing.Short():
		return short
	}
	return normal
}

// fakeDSN is the DSN of the fake server with extra properties.
func fakeDSN(s *fakespanner.Server, props ...string) string {
	d := s.Addr() + "/" + fakeDB + ";usePlainText=true"
	for _, p := range props {
		d += ";" + p
	}
	return d
}

// openFake opens a database/sql handle on the fake server; the handle is
// closed when the test ends (before the server, which Start registered
// earlier).
func openFake(t testing.TB, s *fakespanner.Server, props ...string) *sql.DB {
	t.Helper()
	db, err := sql.Open("spannerfast", fakeDSN(s, props...))
	if err != nil {
		t.Fatalf("sql.Open: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// officialClient returns the official Go client talking to the fake server
// emulator-style: SPANNER_EMULATOR_HOST makes it use plain text without
// credentials and never look for the GCE metadata server.
func officialClient(t testing.TB, s *fakespanner.Server) *spanner.Client {
	t.Helper()
	t.Setenv("SPANNER_EMULATOR_HOST", s.Addr())
	c, err := spanner.NewClientWithConfig(context.Background(), fakeDB,
		spanner.ClientConfig{DisableNativeMetrics: true},
		option.WithoutAuthentication(), option.WithTelemetryDisabled())
	if err != nil {
		t.Fatalf("spanner.NewClientWithConfig: %v", err)
	}
	t.Cleanup(c.Close)
	return c
}

// officialRows reads sql with the official client and returns each column
// value as GenericColumnValue.
func officialRows(ctx context.Context, c *spanner.Client, sql string) ([][]spanner.GenericColumnValue, error) {
	it := c.Single().Query(ctx, spanner.Statement{SQL: sql})
	defer it.Stop()
	var out [][]spanner.GenericColumnValue
	for {
		row, err := it.Next()
		if err == iterator.Done {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		vals := make([]spanner.GenericColumnValue, row.Size())
		for i := range vals {
			if err := row.Column(i, &vals[i]); err != nil {
				return nil, err
			}
		}
		out = append(out, vals)
	}
}

// mode is how spannerfast represents values (the DSN properties rawDecode,
// decode_to_native_arrays and decode_numeric_to_string).
type mode struct {
	raw, native, numStr bool
}

func (m mode) props() []string {
	return []string{
		fmt.Sprintf("rawDecode=%t", m.raw),
		fmt.Sprintf("decode_to_native_arrays=%t", m.native),
		fmt.Sprintf("decode_numeric_to_string=%t", m.numStr),
	}
}

func (m mode) String() string {
	var parts []string
	if m.raw {
		parts = append(parts, "raw")
	} else {
		parts = append(parts, "safe")
	}
	if m.native {
		parts = append(parts, "native_arrays")
	}
	if m.numStr {
		parts = append(parts, "numeric_as_string")
	}
	return strings.Join(parts, "+")
}

// text is a STRING-like value as Scan into *any sees it: string in safe mode,
// []byte (copied by database/sql) in raw mode.
func (m mode) text(s string) any {
	if m.raw {
		return []byte(s)
	}
	return s
}

// officialValue maps a value read by the official client to the Go value
// spannerfast documents for it (README "Values"), decoding with the official
// client's own typed decoders (spanner.Null*, []spanner.NullRow ...).
func officialValue(g spanner.GenericColumnValue, m mode) (any, error) {
	t := g.Type
	_, null := g.Value.GetKind().(*structpb.Value_NullValue)
	switch t.GetCode() {
	case spannerpb.TypeCode_BOOL:
		var v spanner.NullBool
		if err := g.Decode(&v); err != nil || !v.Valid {
			return nil, err
		}
		return v.Bool, nil
	case spannerpb.TypeCode_INT64, spannerpb.TypeCode_ENUM:
		var v spanner.NullInt64
		if err := g.Decode(&v); err != nil || !v.Valid {
			return nil, err
		}
		return v.Int64, nil
	case spannerpb.TypeCode_FLOAT64:
		var v spanner.NullFloat64
		if err := g.Decode(&v); err != nil || !v.Valid {
			return nil, err
		}
		return v.Float64, nil
	case spannerpb.TypeCode_FLOAT32:
		var v spanner.NullFloat32
		if err := g.Decode(&v); err != nil || !v.Valid {
			return nil, err
		}
		return v.Float32, nil
	case spannerpb.TypeCode_NUMERIC:
		var v spanner.NullNumeric
		if err := g.Decode(&v); err != nil || !v.Valid {
			return nil, err
		}
		if m.numStr {
			// The decimal text exactly as Spanner sent it.
			return m.text(g.Value.GetStringValue()), nil
		}
		return v.Numeric, nil
	case spannerpb.TypeCode_STRING:
		var v spanner.NullString
		if err := g.Decode(&v); err != nil || !v.Valid {
			return nil, err
		}
		return m.text(v.StringVal), nil
	case spannerpb.TypeCode_BYTES, spannerpb.TypeCode_PROTO:
		var v []byte
		if err := g.Decode(&v); err != nil {
			return nil, err
		}
		return v, nil
	case spannerpb.TypeCode_JSON:
		var v spanner.NullJSON
		if err := g.Decode(&v); err != nil {
			return nil, err
		}
		return v, nil
	case spannerpb.TypeCode_DATE:
		// go-sql-spanner gives the text as it came (a string).
		var v spanner.NullDate
		if err := g.Decode(&v); err != nil || !v.Valid {
			return nil, err
		}
		return m.text(g.Value.GetStringValue()), nil
	case spannerpb.TypeCode_TIMESTAMP:
		var v spanner.NullTime
		if err := g.Decode(&v); err != nil || !v.Valid {
			return nil, err
		}
		return v.Time, nil
	case spannerpb.TypeCode_UUID:
		var v spanner.NullUUID
		if err := g.Decode(&v); err != nil || !v.Valid {
			return nil, err
		}
		return m.text(v.UUID.String()), nil
	case spannerpb.TypeCode_INTERVAL:
		var v spanner.NullInterval
		if err := g.Decode(&v); err != nil || !v.Valid {
			return nil, err
		}
		return v.Interval, nil
	case spannerpb.TypeCode_STRUCT:
		// The official client has no top-level STRUCT column decoder (Spanner
		// never returns one); build the NullRow from its merged value.
		if null {
			return nil, nil
		}
		return structRow(t.GetStructType(), g.Value.GetListValue().GetValues())
	case spannerpb.TypeCode_ARRAY:
		return officialArray(g, m)
	}
	return nil, fmt.Errorf("no mapping for type %s", decode.TypeName(t))
}

func structRow(st *spannerpb.StructType, vals []*structpb.Value) (any, error) {
	fields := st.GetFields()
	if len(vals) != len(fields) {
		return nil, fmt.Errorf("STRUCT with %d fields has %d values", len(fields), len(vals))
	}
	names := make([]string, len(fields))
	gvs := make([]any, len(fields))
	for i, f := range fields {
		names[i] = f.GetName()
		gvs[i] = spanner.GenericColumnValue{Type: f.GetType(), Value: vals[i]}
	}
	row, err := spanner.NewRow(names, gvs)
	if err != nil {
		return nil, err
	}
	return spanner.NullRow{Row: *row, Valid: true}, nil
}

// nativeElem reports whether decode_to_native_arrays changes ARRAY<code>.
func nativeElem(code spannerpb.TypeCode) bool {
	switch code {
	case spannerpb.TypeCode_BOOL, spannerpb.TypeCode_INT64, spannerpb.TypeCode_ENUM,
		spannerpb.TypeCode_FLOAT64, spannerpb.TypeCode_FLOAT32, spannerpb.TypeCode_STRING,
		spannerpb.TypeCode_DATE, spannerpb.TypeCode_TIMESTAMP, spannerpb.TypeCode_UUID:
		return true
	}
	return false
}

func officialArray(g spanner.GenericColumnValue, m mode) (any, error) {
	elem := g.Type.GetArrayElementType()
	var out any
	var err error
	switch elem.GetCode() {
	case spannerpb.TypeCode_BOOL:
		out, err = officialSlice(g, m.native, func(x spanner.NullBool) bool { return x.Bool })
	case spannerpb.TypeCode_INT64, spannerpb.TypeCode_ENUM:
		out, err = officialSlice(g, m.native, func(x spanner.NullInt64) int64 { return x.Int64 })
	case spannerpb.TypeCode_FLOAT64:
		out, err = officialSlice(g, m.native, func(x spanner.NullFloat64) float64 { return x.Float64 })
	case spannerpb.TypeCode_FLOAT32:
		out, err = officialSlice(g, m.native, func(x spanner.NullFloat32) float32 { return x.Float32 })
	case spannerpb.TypeCode_STRING:
		out, err = officialSlice(g, m.native, func(x spanner.NullString) string { return x.StringVal })
	case spannerpb.TypeCode_DATE:
		out, err = officialSlice(g, m.native, func(x spanner.NullDate) civil.Date { return x.Date })
	case spannerpb.TypeCode_TIMESTAMP:
		out, err = officialSlice(g, m.native, func(x spanner.NullTime) time.Time { return x.Time })
	case spannerpb.TypeCode_NUMERIC:
		// go-sql-spanner applies neither option to NUMERIC arrays.
		out, err = officialSlice(g, false, func(x spanner.NullNumeric) spanner.NullNumeric { return x })
	case spannerpb.TypeCode_JSON:
		out, err = officialSlice(g, false, func(x spanner.NullJSON) spanner.NullJSON { return x })
	case spannerpb.TypeCode_UUID:
		out, err = officialSlice(g, m.native, func(x spanner.NullUUID) uuid.UUID { return x.UUID })
	case spannerpb.TypeCode_BYTES, spannerpb.TypeCode_PROTO:
		out, err = officialSlice(g, false, func(x []byte) []byte { return x })
	case spannerpb.TypeCode_INTERVAL:
		out, err = officialSlice(g, false, func(x spanner.NullInterval) spanner.NullInterval { return x })
	case spannerpb.TypeCode_STRUCT:
		out, err = officialSlice(g, false, func(x spanner.NullRow) spanner.NullRow { return x })
	default:
		return nil, fmt.Errorf("no mapping for type %s", decode.TypeName(g.Type))
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

// officialSlice decodes an array with the official client into []N and,
// for decode_to_native_arrays, converts it with pick.
func officialSlice[N, T any](g spanner.GenericColumnValue, native bool, pick func(N) T) (any, error) {
	var v []N
	if err := g.Decode(&v); err != nil {
		return nil, err
	}
	if native {
		return nativeSlice(v, pick), nil
	}
	return v, nil
}

// nativeSlice converts []spanner.NullX to []x; nil stays a typed nil. The
// caller must have removed NULL elements (they make spannerfast fail).
func nativeSlice[N, T any](v []N, f func(N) T) []T {
	if v == nil {
		return nil
	}
	out := make([]T, len(v))
	for i, e := range v {
		out[i] = f(e)
	}
	return out
}

// cval is a value in a form reflect.DeepEqual compares meaningfully: the Go
// type name and a canonical payload (NaN equal to NaN, -0 unequal to 0,
// big.Rat by value, time.Time by instant and location, STRUCT rows by
// field names, types and values).
type cval struct {
	T string
	V any
}

func (c cval) String() string { return fmt.Sprintf("%s(%v)", c.T, c.V) }

func floatKey(f float64) any {
	if math.IsNaN(f) {
		return "NaN"
	}
	return math.Float64bits(f)
}

func float32Key(f float32) any {
	if f != f {
		return "NaN"
	}
	return math.Float32bits(f)
}

func timeKey(t time.Time) string {
	return t.Format(time.RFC3339Nano) + " " + t.Location().String()
}

func intervalKey(iv spanner.Interval) string {
	n := "<nil>"
	if iv.Nanos != nil {
		n = iv.Nanos.String()
	}
	return fmt.Sprintf("%dM %dD %sns", iv.Months, iv.Days, n)
}

// canon returns the comparable form of a value.
func canon(v any) any {
	switch x := v.(type) {
	case nil:
		return nil
	case int64:
		// A raw-mode int64 is boxed in a reused slot: copy it out.
		return cval{"int64", x}
	case float64:
		return cval{"float64", floatKey(x)}
	case float32:
		return cval{"float32", float32Key(x)}
	case big.Rat:
		return cval{"big.Rat", x.RatString()}
	case time.Time:
		return cval{"time.Time", timeKey(x)}
	case civil.Date:
		// A raw-mode date is boxed in a reused slot: copy it out.
		return cval{"civil.Date", x.String()}
	case []byte:
		if x == nil {
			return cval{"[]byte", "<nil>"}
		}
		return cval{"[]byte", "b:" + string(x)}
	case spanner.NullFloat64:
		if !x.Valid {
			return cval{"spanner.NullFloat64", nil}
		}
		return cval{"spanner.NullFloat64", floatKey(x.Float64)}
	case spanner.NullFloat32:
		if !x.Valid {
			return cval{"spanner.NullFloat32", nil}
		}
		return cval{"spanner.NullFloat32", float32Key(x.Float32)}
	case spanner.NullNumeric:
		if !x.Valid {
			return cval{"spanner.NullNumeric", nil}
		}
		return cval{"spanner.NullNumeric", x.Numeric.RatString()}
	case spanner.NullTime:
		if !x.Valid {
			return cval{"spanner.NullTime", nil}
		}
		return cval{"spanner.NullTime", timeKey(x.Time)}
	case spanner.Interval:
		return cval{"spanner.Interval", intervalKey(x)}
	case spanner.NullInterval:
		if !x.Valid {
			return cval{"spanner.NullInterval", nil}
		}
		return cval{"spanner.NullInterval", intervalKey(x.Interval)}
	case spanner.NullJSON:
		return cval{"spanner.NullJSON", []any{x.Valid, x.Value}}
	case spanner.NullRow:
		if !x.Valid {
			return cval{"spanner.NullRow", nil}
		}
		return cval{"spanner.NullRow", rowKey(&x.Row)}
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Slice {
		t := rv.Type().String()
		if rv.IsNil() {
			return cval{t, "<nil>"}
		}
		out := make([]any, rv.Len())
		for i := range out {
			out[i] = canon(rv.Index(i).Interface())
		}
		return cval{t, out}
	}
	return cval{fmt.Sprintf("%T", v), v}
}

// rowKey is the comparable form of a STRUCT row: per field its name, type
// and value decoded by the official client.
func rowKey(r *spanner.Row) []any {
	names := r.ColumnNames()
	out := make([]any, 0, 3*len(names))
	for i, n := range names {
		var g spanner.GenericColumnValue
		if err := r.Column(i, &g); err != nil {
			out = append(out, n, "error: "+err.Error())
			continue
		}
		v, err := officialValue(g, mode{})
		if err != nil {
			out = append(out, n, "error: "+err.Error())
			continue
		}
		out = append(out, n, decode.TypeName(g.Type), canon(v))
	}
	return out
}

func canonRow(vals []any) []any {
	out := make([]any, len(vals))
	for i, v := range vals {
		out[i] = canon(v)
	}
	return out
}

// scanAny scans the current row into *any targets.
func scanAny(rows *sql.Rows, n int) ([]any, error) {
	vals := make([]any, n)
	ptrs := make([]any, n)
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	if err := rows.Scan(ptrs...); err != nil {
		return nil, err
	}
	return vals, nil
}

// readCanon runs query and returns every row in canonical form, taken right
// after each Scan (raw-mode values are valid only until the next Next). It
// also returns the row values themselves in safe mode, to check later that
// they did not change.
func readCanon(ctx context.Context, db *sql.DB, query string, args ...any) (rowsOut [][]any, kept [][]any, err error) {
	rows, err := db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, nil, err
	}
	for rows.Next() {
		vals, err := scanAny(rows, len(cols))
		if err != nil {
			return rowsOut, kept, err
		}
		rowsOut = append(rowsOut, canonRow(vals))
		kept = append(kept, vals)
	}
	return rowsOut, kept, rows.Err()
}

// diffRows reports the first difference between two canonical row lists.
func diffRows(got, want [][]any) string {
	if len(got) != len(want) {
		return fmt.Sprintf("%d rows, want %d", len(got), len(want))
	}
	for i := range want {
		if len(got[i]) != len(want[i]) {
			return fmt.Sprintf("row %d: %d values, want %d", i, len(got[i]), len(want[i]))
		}
		for j := range want[i] {
			if !reflect.DeepEqual(got[i][j], want[i][j]) {
				return fmt.Sprintf("row %d column %d:\n got %s\nwant %s", i, j, short(got[i][j]), short(want[i][j]))
			}
		}
	}
	return ""
}

func short(v any) string {
	s := fmt.Sprint(v)
	if len(s) > 600 {
		s = s[:300] + fmt.Sprintf(" ...(%d bytes)... ", len(s)-600) + s[len(s)-300:]
	}
	return s
}
