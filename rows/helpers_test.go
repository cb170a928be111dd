package rows_test

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"io"
	"math/rand/v2"
	"reflect"
	"strings"
	"sync"
	"testing"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/spannerfast/spannerfast/decode"
	"github.com/spannerfast/spannerfast/internal/fakespanner"
	"github.com/spannerfast/spannerfast/internal/valuetext"
	"github.com/spannerfast/spannerfast/internal/wire"
	"github.com/spannerfast/spannerfast/rows"
)

// fakeStream is an in-memory rows.Stream: it hands out frames from a slice,
// then err (io.EOF when nil). It records every call and every frame it gave
// away, so tests can check what was read and released.
type fakeStream struct {
	t      testing.TB
	mu     sync.Mutex
	msgs   [][]byte
	err    error // returned after the frames
	errAt  int   // with err: returned instead of msgs[errAt] (when >= 0)
	next   int
	recvs  int
	closes int
	cancel int
	given  []*wire.Frame
	bufs   [][]byte // the bytes behind given[i]
}

func newStream(t testing.TB, msgs ...[]byte) *fakeStream {
	return &fakeStream{t: t, msgs: msgs, errAt: -1}
}

func (s *fakeStream) Recv() (*wire.Frame, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.recvs++
	if s.closes > 0 || s.cancel > 0 {
		return nil, errors.New("fakeStream: Recv after Close/Cancel")
	}
	if s.errAt >= 0 && s.next == s.errAt {
		return nil, s.err
	}
	if s.next == len(s.msgs) {
		if s.err != nil {
			return nil, s.err
		}
		return nil, io.EOF
	}
	b := append([]byte(nil), s.msgs[s.next]...) // the frame's own buffer
	s.next++
	f := wire.NewFrame(b)
	s.given = append(s.given, f)
	s.bufs = append(s.bufs, b)
	return f, nil
}

func (s *fakeStream) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closes++
	return nil
}

func (s *fakeStream) Cancel() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cancel++
}

func (s *fakeStream) stats() (recvs, closes, given int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.recvs, s.closes, len(s.given)
}

// unreleased counts the frames handed out and not yet released.
func (s *fakeStream) unreleased() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, f := range s.given {
		if f.Data != nil {
			n++
		}
	}
	return n
}

// ---- building streams ----

func tc(code spannerpb.TypeCode) *spannerpb.Type { return &spannerpb.Type{Code: code} }

func arrayOf(t *spannerpb.Type) *spannerpb.Type {
	return &spannerpb.Type{Code: spannerpb.TypeCode_ARRAY, ArrayElementType: t}
}

func fld(name string, t *spannerpb.Type) *spannerpb.StructType_Field {
	return &spannerpb.StructType_Field{Name: name, Type: t}
}

var (
	tBool      = tc(spannerpb.TypeCode_BOOL)
	tInt64     = tc(spannerpb.TypeCode_INT64)
	tFloat64   = tc(spannerpb.TypeCode_FLOAT64)
	tString    = tc(spannerpb.TypeCode_STRING)
	tBytes     = tc(spannerpb.TypeCode_BYTES)
	tTimestamp = tc(spannerpb.TypeCode_TIMESTAMP)
	tDate      = tc(spannerpb.TypeCode_DATE)
	tNumeric   = tc(spannerpb.TypeCode_NUMERIC)
	tJSON      = tc(spannerpb.TypeCode_JSON)
)

func str(s string) *structpb.Value  { return structpb.NewStringValue(s) }
func num(f float64) *structpb.Value { return structpb.NewNumberValue(f) }
func null() *structpb.Value         { return structpb.NewNullValue() }
func list(vs ...*structpb.Value) *structpb.Value {
	return structpb.NewListValue(&structpb.ListValue{Values: vs})
}
func vals(vs ...*structpb.Value) []*structpb.Value { return vs }

func md(cols ...*spannerpb.StructType_Field) *spannerpb.ResultSetMetadata {
	return &spannerpb.ResultSetMetadata{RowType: &spannerpb.StructType{Fields: cols}}
}

func prs(m *spannerpb.PartialResultSet) []byte {
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
	if err != nil {
		panic(err)
	}
	return b
}

func enc(v *structpb.Value) []byte {
	b, err := proto.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// ---- reading ----

// readAll reads every row with Next, rendering each before the next call
// (raw values are valid only until then).
func readAll(r *rows.Rows) ([]string, error) {
	dest := make([]driver.Value, len(r.Columns()))
	var out []string
	for {
		err := r.Next(dest)
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, canonRow(r.Plan(), dest))
	}
}

// canonRow renders a row; raw-mode []byte of string-like columns are shown
// as strings so that raw and safe output compare equal.
func canonRow(p *decode.Plan, row []driver.Value) string {
	var b strings.Builder
	for i, v := range row {
		if bs, ok := v.([]byte); ok && p.Options().Raw && bs != nil {
			switch p.Columns[i].Type.GetCode() {
			case spannerpb.TypeCode_STRING, spannerpb.TypeCode_DATE, spannerpb.TypeCode_UUID, spannerpb.TypeCode_NUMERIC:
				v = string(bs)
			}
		}
		if i > 0 {
			b.WriteString(" | ")
		}
		valuetext.Write(&b, reflect.ValueOf(v))
	}
	return b.String()
}

// expectedRows decodes values (complete, unchunked) directly with a
// RowDecoder: what Rows must produce however the stream is cut.
func expectedRows(t testing.TB, m *spannerpb.ResultSetMetadata, values []*structpb.Value, o decode.Options) []string {
	t.Helper()
	rt, err := proto.Marshal(m.GetRowType())
	if err != nil {
		t.Fatal(err)
	}
	p, err := decode.PlanFor(rt, o)
	if err != nil {
		t.Fatal(err)
	}
	d := decode.NewRowDecoder(p, false)
	n := len(p.Columns)
	dest := make([]driver.Value, n)
	var out []string
	for i := 0; i+n <= len(values); i += n {
		row := make([][]byte, n)
		for j := range row {
			row[j] = enc(values[i+j])
		}
		if err := d.Decode(row, dest); err != nil {
			t.Fatalf("expected row %d: %v", i/n, err)
		}
		out = append(out, canonRow(p, dest))
	}
	return out
}

// ---- database/sql ----

// openDB returns a database whose every query is answered by a Rows over
// the stream mk returns.
func openDB(mk func() (rows.Stream, rows.Options)) *sql.DB {
	return sql.OpenDB(connector{mk})
}

type connector struct {
	mk func() (rows.Stream, rows.Options)
}

func (c connector) Connect(context.Context) (driver.Conn, error) { return conn(c), nil }
func (c connector) Driver() driver.Driver                        { return drv{} }

type drv struct{}

func (drv) Open(string) (driver.Conn, error) { return nil, errors.New("use the connector") }

type conn connector

func (conn) Prepare(string) (driver.Stmt, error) { return nil, errors.New("not supported") }
func (conn) Close() error                        { return nil }
func (conn) Begin() (driver.Tx, error)           { return nil, errors.New("not supported") }
func (c conn) QueryContext(context.Context, string, []driver.NamedValue) (driver.Rows, error) {
	s, o := c.mk()
	return rows.Open(s, o)
}

// chunkStream cuts values into randomly chunked messages with the fake
// server's splitter; m goes on the first message, last on the final one
// when markLast is set.
func chunkStream(m *spannerpb.ResultSetMetadata, values []*structpb.Value, r *rand.Rand, markLast bool) [][]byte {
	rs := &spannerpb.ResultSet{Metadata: m, Rows: []*structpb.ListValue{{Values: values}}}
	var out [][]byte
	for _, p := range fakespanner.Split(rs, fakespanner.SplitOptions{Random: true, Seed: r.Int64(), Last: markLast}) {
		out = append(out, prs(p))
	}
	return out
}
