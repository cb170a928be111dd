package decode_test

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"flag"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/spannerfast/spannerfast/decode"
	"github.com/spannerfast/spannerfast/internal/valuetext"
)

var update = flag.Bool("update", false, "rewrite the fixtures under testdata/")

// ---- types ----

func tc(code spannerpb.TypeCode) *spannerpb.Type { return &spannerpb.Type{Code: code} }

func arrayOf(t *spannerpb.Type) *spannerpb.Type {
	return &spannerpb.Type{Code: spannerpb.TypeCode_ARRAY, ArrayElementType: t}
}

func structOf(fields ...*spannerpb.StructType_Field) *spannerpb.Type {
	return &spannerpb.Type{Code: spannerpb.TypeCode_STRUCT, StructType: &spannerpb.StructType{Fields: fields}}
}

func fld(name string, t *spannerpb.Type) *spannerpb.StructType_Field {
	return &spannerpb.StructType_Field{Name: name, Type: t}
}

var (
	tBool      = tc(spannerpb.TypeCode_BOOL)
	tInt64     = tc(spannerpb.TypeCode_INT64)
	tFloat64   = tc(spannerpb.TypeCode_FLOAT64)
	tFloat32   = tc(spannerpb.TypeCode_FLOAT32)
	tTimestamp = tc(spannerpb.TypeCode_TIMESTAMP)
	tDate      = tc(spannerpb.TypeCode_DATE)
	tString    = tc(spannerpb.TypeCode_STRING)
	tBytes     = tc(spannerpb.TypeCode_BYTES)
	tNumeric   = tc(spannerpb.TypeCode_NUMERIC)
	tJSON      = tc(spannerpb.TypeCode_JSON)
	tInterval  = tc(spannerpb.TypeCode_INTERVAL)
	tUUID      = tc(spannerpb.TypeCode_UUID)
	tProto     = &spannerpb.Type{Code: spannerpb.TypeCode_PROTO, ProtoTypeFqn: "examples.music.SingerInfo"}
	tEnum      = &spannerpb.Type{Code: spannerpb.TypeCode_ENUM, ProtoTypeFqn: "examples.music.Genre"}
	tPGNumeric = &spannerpb.Type{Code: spannerpb.TypeCode_NUMERIC, TypeAnnotation: spannerpb.TypeAnnotationCode_PG_NUMERIC}
	tPGJSONB   = &spannerpb.Type{Code: spannerpb.TypeCode_JSON, TypeAnnotation: spannerpb.TypeAnnotationCode_PG_JSONB}
	tPGOID     = &spannerpb.Type{Code: spannerpb.TypeCode_INT64, TypeAnnotation: spannerpb.TypeAnnotationCode_PG_OID}
	tStruct    = structOf(fld("id", tInt64), fld("name", tString), fld("scores", arrayOf(tFloat64)))
)

// scalarTypes is every scalar type a column can have.
var scalarTypes = []*spannerpb.Type{
	tBool, tInt64, tFloat64, tFloat32, tTimestamp, tDate, tString, tBytes,
	tNumeric, tJSON, tInterval, tUUID, tProto, tEnum,
}

// pgTypes are the types whose annotation a PostgreSQL-dialect database
// adds (its other types are the GoogleSQL ones).
var pgTypes = []*spannerpb.Type{tPGNumeric, tPGJSONB, tPGOID}

// allTypes is every column type the decoder supports: the scalars, the
// PostgreSQL-annotated ones, an array of each, a STRUCT and an
// ARRAY<STRUCT>.
var allTypes = func() []*spannerpb.Type {
	scalars := append(append([]*spannerpb.Type(nil), scalarTypes...), pgTypes...)
	ts := append([]*spannerpb.Type(nil), scalars...)
	for _, t := range scalars {
		ts = append(ts, arrayOf(t))
	}
	return append(ts, tStruct, arrayOf(tStruct))
}()

// ---- values ----

func str(s string) *structpb.Value  { return structpb.NewStringValue(s) }
func num(f float64) *structpb.Value { return structpb.NewNumberValue(f) }
func boolv(b bool) *structpb.Value  { return structpb.NewBoolValue(b) }
func null() *structpb.Value         { return structpb.NewNullValue() }
func unset() *structpb.Value        { return &structpb.Value{} }
func emptyStruct() *structpb.Value  { return structpb.NewStructValue(&structpb.Struct{}) }
func list(vs ...*structpb.Value) *structpb.Value {
	return structpb.NewListValue(&structpb.ListValue{Values: vs})
}

func mustMarshal(m proto.Message) []byte {
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
	if err != nil {
		panic(err)
	}
	return b
}

func enc(v *structpb.Value) []byte { return mustMarshal(v) }

func rowType(cols ...*spannerpb.StructType_Field) []byte {
	return mustMarshal(&spannerpb.StructType{Fields: cols})
}

func mustPlan(tb testing.TB, o decode.Options, cols ...*spannerpb.StructType_Field) *decode.Plan {
	tb.Helper()
	p, err := decode.PlanFor(rowType(cols...), o)
	if err != nil {
		tb.Fatalf("PlanFor: %v", err)
	}
	return p
}

// prs marshals a PartialResultSet.
func prs(m *spannerpb.PartialResultSet) []byte { return mustMarshal(m) }

func metadataOf(cols ...*spannerpb.StructType_Field) *spannerpb.ResultSetMetadata {
	return &spannerpb.ResultSetMetadata{RowType: &spannerpb.StructType{Fields: cols}}
}

// valueBytes appends a google.protobuf.Value holding a raw field to b; it is
// for values the official marshaller will not produce.
func valueField(num protowire.Number, typ protowire.Type, payload []byte) []byte {
	b := protowire.AppendTag(nil, num, typ)
	return append(b, payload...)
}

// listBytes builds an encoded Value holding a list whose elements are the
// given raw encodings (which may be malformed).
func listBytes(elems ...[]byte) []byte {
	var l []byte
	for _, e := range elems {
		l = protowire.AppendTag(l, 1, protowire.BytesType)
		l = protowire.AppendBytes(l, e)
	}
	b := protowire.AppendTag(nil, 6, protowire.BytesType)
	return protowire.AppendBytes(b, l)
}

// ---- decoding helpers ----

// decodeOne decodes one value of type t with options o.
func decodeOne(tb testing.TB, o decode.Options, t *spannerpb.Type, v []byte) (driver.Value, error) {
	tb.Helper()
	p := mustPlan(tb, o, fld("c", t))
	d := decode.NewRowDecoder(p, false)
	dest := make([]driver.Value, 1)
	err := d.Decode([][]byte{v}, dest)
	return dest[0], err
}

// decodeStream runs msgs (encoded PartialResultSets) through Merger, PlanFor
// and RowDecoder as rows.Rows does, and calls fn with every decoded row
// before the next one is decoded (raw values are only valid until then).
func decodeStream(msgs [][]byte, o decode.Options, fn func(p *decode.Plan, row []driver.Value) error) error {
	var m decode.Merger
	var d *decode.RowDecoder
	var row [][]byte
	var dest []driver.Value
	have := 0
	for i, b := range msgs {
		if err := m.Load(b); err != nil {
			return err
		}
		if i == 0 {
			md, err := decode.ParseMetadata(m.Message().Metadata)
			if err != nil {
				return err
			}
			p, err := decode.PlanFor(md.RowType, o)
			if err != nil {
				return err
			}
			d = decode.NewRowDecoder(p, false)
			row = make([][]byte, len(p.Columns))
			dest = make([]driver.Value, len(p.Columns))
		}
		if len(row) == 0 {
			continue
		}
		for {
			v, ok, err := m.Next()
			if err != nil {
				return err
			}
			if !ok {
				break
			}
			row[have] = v
			have++
			if have == len(row) {
				have = 0
				if err := d.Decode(row, dest); err != nil {
					return err
				}
				if err := fn(d.Plan(), dest); err != nil {
					return err
				}
			}
		}
	}
	if err := m.End(); err != nil {
		return err
	}
	if have != 0 {
		return fmt.Errorf("stream ended inside a row (%d values)", have)
	}
	return nil
}

// checkColumnError asserts that err is a decode.ColumnError for column
// (index, name), matches decode.ErrMalformed and carries a gRPC code.
func checkColumnError(tb testing.TB, err error, index int, name string) {
	tb.Helper()
	checkColumnNamed(tb, err, index, name)
	if !errors.Is(err, decode.ErrMalformed) {
		tb.Errorf("errors.Is(%v, ErrMalformed) = false", err)
	}
	if c := status.Code(err); c == codes.Unknown || c == codes.OK {
		tb.Errorf("status.Code(%v) = %v, want a specific code", err, c)
	}
}

// checkClientColumnError checks an error about a client-side condition: it
// names the column, has the given code and is not ErrMalformed.
func checkClientColumnError(tb testing.TB, err error, index int, name string, code codes.Code) {
	tb.Helper()
	checkColumnNamed(tb, err, index, name)
	if errors.Is(err, decode.ErrMalformed) {
		tb.Errorf("errors.Is(%v, ErrMalformed) = true, want false: not bad server data", err)
	}
	if c := status.Code(err); c != code {
		tb.Errorf("status.Code(%v) = %v, want %v", err, c, code)
	}
}

func checkColumnNamed(tb testing.TB, err error, index int, name string) {
	tb.Helper()
	if err == nil {
		tb.Fatalf("got no error, want one for column %d %q", index, name)
	}
	var ce *decode.ColumnError
	if !errors.As(err, &ce) {
		tb.Fatalf("error %v (%T) is not a *decode.ColumnError", err, err)
	}
	if ce.Index != index || ce.Name != name {
		tb.Errorf("ColumnError names column %d %q, want %d %q", ce.Index, ce.Name, index, name)
	}
	if !strings.Contains(err.Error(), strconv.Quote(name)) {
		tb.Errorf("error text %q does not name column %q", err, name)
	}
}

// ---- canonical rendering (internal/valuetext) ----

func canon(v any) string { return valuetext.Canon(v) }

func pbCanon(v *structpb.Value) string { return valuetext.Proto(v) }

// ---- database/sql round trip ----

// sqlScan runs one row through database/sql: next fills the driver values
// (as Rows.Next would) and Scan converts them into dests.
func sqlScan(ncols int, next func([]driver.Value) error, dests ...any) error {
	cols := make([]string, ncols)
	for i := range cols {
		cols[i] = "c" + strconv.Itoa(i)
	}
	db := sql.OpenDB(&scanConnector{rows: func() driver.Rows { return &funcRows{cols: cols, next: next} }})
	defer db.Close()
	rows, err := db.Query("SELECT")
	if err != nil {
		return err
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return err
		}
		return errors.New("no row")
	}
	return rows.Scan(dests...)
}

type scanConnector struct{ rows func() driver.Rows }

func (c *scanConnector) Connect(context.Context) (driver.Conn, error) { return scanConn{c}, nil }
func (c *scanConnector) Driver() driver.Driver                        { return scanDriver{} }

type scanDriver struct{}

func (scanDriver) Open(string) (driver.Conn, error) { return nil, errors.New("not supported") }

type scanConn struct{ c *scanConnector }

func (scanConn) Prepare(string) (driver.Stmt, error) { return nil, errors.New("not supported") }
func (scanConn) Close() error                        { return nil }
func (scanConn) Begin() (driver.Tx, error)           { return nil, errors.New("not supported") }
func (c scanConn) QueryContext(context.Context, string, []driver.NamedValue) (driver.Rows, error) {
	return c.c.rows(), nil
}

type funcRows struct {
	cols []string
	next func([]driver.Value) error
	done bool
}

func (r *funcRows) Columns() []string { return r.cols }
func (r *funcRows) Close() error      { return nil }
func (r *funcRows) Next(dest []driver.Value) error {
	if r.done {
		return io.EOF
	}
	r.done = true
	return r.next(dest)
}

// scanAsScanType decodes one value and scans it through database/sql into a
// new value of the column's ScanType, returning that value.
func scanAsScanType(tb testing.TB, o decode.Options, t *spannerpb.Type, v []byte) (any, error) {
	tb.Helper()
	p := mustPlan(tb, o, fld("c", t))
	d := decode.NewRowDecoder(p, false)
	dest := reflect.New(p.Columns[0].ScanType)
	err := sqlScan(1, func(dv []driver.Value) error { return d.Decode([][]byte{v}, dv) }, dest.Interface())
	return dest.Elem().Interface(), err
}
