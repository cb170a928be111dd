package e2e

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"math/big"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"cloud.google.com/go/civil"
	"cloud.google.com/go/spanner"
	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"github.com/google/uuid"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	sfdriver "github.com/spannerfast/spannerfast/driver"
	"github.com/spannerfast/spannerfast/internal/fakespanner"
)

// paramCase is one argument and what must reach Spanner for it.
type paramCase struct {
	arg   any
	value *structpb.Value
	typ   *spannerpb.Type // nil: an untyped NULL, absent from param_types
}

func ptrTo[T any](v T) *T { return &v }

func str(s string) *structpb.Value { return structpb.NewStringValue(s) }

func list(vs ...*structpb.Value) *structpb.Value {
	return structpb.NewListValue(&structpb.ListValue{Values: vs})
}

func typ(c spannerpb.TypeCode) *spannerpb.Type { return &spannerpb.Type{Code: c} }

func arrayOf(c spannerpb.TypeCode) *spannerpb.Type {
	return &spannerpb.Type{Code: spannerpb.TypeCode_ARRAY, ArrayElementType: typ(c)}
}

// paramCases covers every accepted argument type.
func paramCases() []paramCase {
	const (
		tBool      = spannerpb.TypeCode_BOOL
		tInt64     = spannerpb.TypeCode_INT64
		tFloat32   = spannerpb.TypeCode_FLOAT32
		tFloat64   = spannerpb.TypeCode_FLOAT64
		tString    = spannerpb.TypeCode_STRING
		tBytes     = spannerpb.TypeCode_BYTES
		tTimestamp = spannerpb.TypeCode_TIMESTAMP
		tDate      = spannerpb.TypeCode_DATE
		tNumeric   = spannerpb.TypeCode_NUMERIC
		tJSON      = spannerpb.TypeCode_JSON
		tUUID      = spannerpb.TypeCode_UUID
	)
	null := structpb.NewNullValue()
	ts := time.Date(2024, 1, 2, 3, 4, 5, 123456789, time.FixedZone("UTC+1", 3600))
	u := uuid.MustParse("0191e1d2-3c4b-7a8e-9f00-112233445566")
	return []paramCase{
		{nil, null, nil},
		{"hello 日本", str("hello 日本"), nil}, // untyped: Spanner infers from the SQL
		{[]byte{0, 1, 0xff}, str("AAH/"), typ(tBytes)},
		{[]byte(nil), null, typ(tBytes)},
		{int(42), str("42"), typ(tInt64)},
		{int64(-7), str("-7"), typ(tInt64)},
		{int32(123), str("123"), typ(tInt64)},
		{uint64(1<<63 - 1), str("9223372036854775807"), typ(tInt64)},
		{true, structpb.NewBoolValue(true), typ(tBool)},
		{float32(1.5), structpb.NewNumberValue(1.5), typ(tFloat32)},
		{float64(-2.25), structpb.NewNumberValue(-2.25), typ(tFloat64)},
		{*big.NewRat(3, 2), str("1.500000000"), typ(tNumeric)},
		{big.NewRat(-1, 8), str("-0.125000000"), typ(tNumeric)},
		{ts, str("2024-01-02T02:04:05.123456789Z"), typ(tTimestamp)},
		{civil.Date{Year: 2024, Month: 2, Day: 29}, str("2024-02-29"), typ(tDate)},
		{u, str("0191e1d2-3c4b-7a8e-9f00-112233445566"), typ(tUUID)},
		{spanner.NullString{}, null, typ(tString)},
		{spanner.NullString{StringVal: "s", Valid: true}, str("s"), typ(tString)},
		{spanner.NullInt64{Int64: 9, Valid: true}, str("9"), typ(tInt64)},
		{spanner.NullInt64{}, null, typ(tInt64)},
		{spanner.NullBool{Bool: false, Valid: true}, structpb.NewBoolValue(false), typ(tBool)},
		{spanner.NullFloat32{Float32: 0.5, Valid: true}, structpb.NewNumberValue(0.5), typ(tFloat32)},
		{spanner.NullFloat64{Float64: 1e300, Valid: true}, structpb.NewNumberValue(1e300), typ(tFloat64)},
		{spanner.NullNumeric{Numeric: *big.NewRat(1, 4), Valid: true}, str("0.250000000"), typ(tNumeric)},
		{spanner.NullTime{Time: ts, Valid: true}, str("2024-01-02T02:04:05.123456789Z"), typ(tTimestamp)},
		{spanner.NullDate{Date: civil.Date{Year: 1, Month: 1, Day: 1}, Valid: true}, str("0001-01-01"), typ(tDate)},
		{spanner.NullJSON{Value: map[string]any{"a": 1, "b": []any{true, nil}}, Valid: true}, str(`{"a":1,"b":[true,null]}`), typ(tJSON)},
		{spanner.NullJSON{}, null, typ(tJSON)},
		{spanner.NullUUID{UUID: u, Valid: true}, str("0191e1d2-3c4b-7a8e-9f00-112233445566"), typ(tUUID)},
		{sql.NullString{String: "x", Valid: true}, str("x"), typ(tString)},
		{sql.NullString{}, null, typ(tString)},
		{sql.NullInt64{Int64: 5, Valid: true}, str("5"), typ(tInt64)},
		{sql.NullInt64{}, null, typ(tInt64)},
		{sql.NullBool{Bool: true, Valid: true}, structpb.NewBoolValue(true), typ(tBool)},
		{sql.NullInt32{Int32: 3, Valid: true}, str("3"), typ(tInt64)},
		{sql.Null[string]{V: "generic", Valid: true}, str("generic"), nil}, // its Value, a string
		{sql.NullFloat64{Float64: 0.75, Valid: true}, structpb.NewNumberValue(0.75), typ(tFloat64)},
		{sql.NullTime{Time: ts, Valid: true}, str("2024-01-02T02:04:05.123456789Z"), typ(tTimestamp)},
		{ptrTo("p"), str("p"), nil},
		{ptrTo(int64(8)), str("8"), typ(tInt64)},
		{(*int64)(nil), null, typ(tInt64)},
		{[]int64{1, -2}, list(str("1"), str("-2")), arrayOf(tInt64)},
		{[]int64(nil), null, arrayOf(tInt64)},
		{[]string{}, list(), nil},
		{[]string{"a", "b"}, list(str("a"), str("b")), nil},
		{[]bool{true}, list(structpb.NewBoolValue(true)), arrayOf(tBool)},
		{[]float64{0.5}, list(structpb.NewNumberValue(0.5)), arrayOf(tFloat64)},
		{[][]byte{{1}, nil}, list(str("AQ=="), null), arrayOf(tBytes)},
		{[]spanner.NullString{{StringVal: "a", Valid: true}, {}}, list(str("a"), null), arrayOf(tString)},
		{[]spanner.NullInt64{{}, {Int64: 3, Valid: true}}, list(null, str("3")), arrayOf(tInt64)},
		{[]civil.Date{{Year: 2000, Month: 12, Day: 31}}, list(str("2000-12-31")), arrayOf(tDate)},
		{[]time.Time{ts}, list(str("2024-01-02T02:04:05.123456789Z")), arrayOf(tTimestamp)},
	}
}

// Named types, converted by database/sql's default converter as
// go-sql-spanner does.
type (
	userID   int64
	smallID  int8
	label    string
	celsius  float32
	onOff    bool
	blob     []byte
	bigCount uint64
)

// valuer returns v from Value.
type valuer struct{ v any }

func (v valuer) Value() (driver.Value, error) { return v.v, nil }

// moreParamCases are the types go-sql-spanner accepts beyond its own list,
// through driver.Valuer or database/sql's default converter, and the
// conversions it makes of its own types.
func moreParamCases() []paramCase {
	const (
		tInt64   = spannerpb.TypeCode_INT64
		tFloat64 = spannerpb.TypeCode_FLOAT64
		tString  = spannerpb.TypeCode_STRING
		tBool    = spannerpb.TypeCode_BOOL
		tBytes   = spannerpb.TypeCode_BYTES
	)
	null := structpb.NewNullValue()
	return []paramCase{
		{int8(-8), str("-8"), typ(tInt64)},
		{int16(16), str("16"), typ(tInt64)},
		{uint(7), str("7"), typ(tInt64)},
		{uint8(255), str("255"), typ(tInt64)},
		{uint16(65535), str("65535"), typ(tInt64)},
		{uint32(1<<32 - 1), str("4294967295"), typ(tInt64)},
		{userID(42), str("42"), typ(tInt64)},
		{smallID(3), str("3"), typ(tInt64)},
		{bigCount(9), str("9"), typ(tInt64)},
		{label("lbl"), str("lbl"), nil},
		{celsius(1.5), structpb.NewNumberValue(1.5), typ(tFloat64)}, // FLOAT64, not FLOAT32
		{onOff(true), structpb.NewBoolValue(true), typ(tBool)},
		{blob{1, 2}, str("AQI="), typ(tBytes)},
		// Pointers: go-sql-spanner's own pointer types are typed NULLs when
		// nil, the others are dereferenced by database/sql (nil: untyped).
		{ptrTo(int8(5)), str("5"), typ(tInt64)},
		{(*int8)(nil), null, nil},
		{ptrTo(userID(6)), str("6"), typ(tInt64)},
		{(*userID)(nil), null, nil},
		{ptrTo(label("pl")), str("pl"), nil},
		{ptrTo(int32(4)), str("4"), typ(tInt64)},
		{ptrTo(1), str("1"), typ(tInt64)},
		{(*int)(nil), null, typ(tInt64)},
		{ptrTo(uint(2)), str("2"), typ(tInt64)},
		{(*uint)(nil), null, typ(tInt64)},
		{ptrTo(uint64(3)), str("3"), typ(tInt64)},
		{(*uint64)(nil), null, typ(tInt64)},
		{(*string)(nil), null, nil},
		{(*bool)(nil), null, typ(tBool)},
		{(*sql.NullString)(nil), null, nil},
		// Slices.
		{[]int{1, -1}, list(str("1"), str("-1")), arrayOf(tInt64)},
		{[]int(nil), null, arrayOf(tInt64)},
		{[]uint{1}, list(str("1")), arrayOf(tInt64)},
		{[]uint64{1 << 62}, list(str("4611686018427387904")), arrayOf(tInt64)},
		{[]*int{ptrTo(1), nil}, list(str("1"), null), arrayOf(tInt64)},
		{[]*uint{nil}, list(null), arrayOf(tInt64)},
		{[]*uint64{ptrTo(uint64(8))}, list(str("8")), arrayOf(tInt64)},
		{&[]int{2}, list(str("2")), arrayOf(tInt64)},
		{&[]uint{3}, list(str("3")), arrayOf(tInt64)},
		{(*[]int)(nil), null, arrayOf(tInt64)},
		{[]string(nil), null, nil},
		{[]*string{ptrTo("a"), nil}, list(str("a"), null), nil},
		{[]uint8{1}, str("AQ=="), typ(tBytes)},
		{[]spanner.NullString(nil), null, arrayOf(tString)},
		// driver.Valuer results go-sql-spanner knows are used as they are.
		{valuer{int64(11)}, str("11"), typ(tInt64)},
		{valuer{[]string{"x"}}, list(str("x")), nil},
		{valuer{nil}, null, nil},
		{sql.NullInt16{Int16: 16, Valid: true}, str("16"), typ(tInt64)},
		{sql.NullByte{}, null, nil},
		{sql.Null[string]{}, null, nil},
		{sql.Null[int64]{V: 12, Valid: true}, str("12"), typ(tInt64)},
	}
}

// lastRequest is the last ExecuteStreamingSql request the fake recorded.
func lastRequest(t *testing.T, s *fakespanner.Server) fakespanner.Request {
	t.Helper()
	reqs := s.RequestsFor("ExecuteStreamingSql")
	if len(reqs) == 0 {
		t.Fatal("no ExecuteStreamingSql request recorded")
	}
	return reqs[len(reqs)-1]
}

func protoEq(a, b proto.Message) bool { return proto.Equal(a, b) }

func protoText(m proto.Message) string {
	if m == nil || reflect.ValueOf(m).IsNil() {
		return "<nil>"
	}
	return prototext.Format(m)
}

// answerEverything makes the fake answer any SQL with SELECT 1's result.
func answerEverything(s *fakespanner.Server) {
	s.SetFallback(func(*spannerpb.ExecuteSqlRequest) *fakespanner.Result { return fakespanner.Select1() })
}

func queryOne(ctx context.Context, q interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}, query string, args ...any) error {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
	}
	return rows.Err()
}

// TestFakeParams sends one argument of every accepted type, positional and
// named, and checks params and param_types of the request the fake got.
func TestFakeParams(t *testing.T) {
	s := fakespanner.Start(t)
	answerEverything(s)
	db := openFake(t, s)
	ctx := context.Background()
	cases := append(paramCases(), moreParamCases()...)

	var args, named []any
	var marks, names []string
	for i, c := range cases {
		args = append(args, c.arg)
		marks = append(marks, "?")
		n := "n" + string(rune('a'+i%26)) + strings.Repeat("x", i/26)
		named = append(named, sql.Named(n, c.arg))
		names = append(names, "@"+n)
	}
	for _, form := range []struct {
		name  string
		query string
		args  []any
		param func(i int) string
	}{
		{"positional", "SELECT " + strings.Join(marks, ", ") + " -- what?", args,
			func(i int) string { return "p" + strconv.Itoa(i+1) }},
		{"named", "SELECT " + strings.Join(names, ", "), named,
			func(i int) string { return strings.TrimPrefix(names[i], "@") }},
	} {
		if err := queryOne(ctx, db, form.query, form.args...); err != nil {
			t.Fatalf("%s: %v", form.name, err)
		}
		req := lastRequest(t, s).ExecuteSQL()
		if form.name == "positional" {
			want := "SELECT "
			for i := range cases {
				if i > 0 {
					want += ", "
				}
				want += "@p" + strconv.Itoa(i+1)
			}
			want += " -- what?"
			if req.GetSql() != want {
				t.Fatalf("positional SQL sent as %q, want %q", req.GetSql(), want)
			}
		} else if req.GetSql() != form.query {
			t.Fatalf("named SQL sent as %q, want %q", req.GetSql(), form.query)
		}
		if got := len(req.GetParams().GetFields()); got != len(cases) {
			t.Fatalf("%s: %d params, want %d", form.name, got, len(cases))
		}
		typed := 0
		for i, c := range cases {
			name := form.param(i)
			v, ok := req.GetParams().GetFields()[name]
			if !ok {
				t.Fatalf("%s: parameter %s (%T) missing", form.name, name, c.arg)
			}
			if !protoEq(v, c.value) {
				t.Errorf("%s: parameter %s (%T %v): value %s, want %s", form.name, name, c.arg, c.arg, protoText(v), protoText(c.value))
			}
			pt := req.GetParamTypes()[name]
			if c.typ == nil {
				if pt != nil {
					t.Errorf("%s: parameter %s (%T): type %s, want none", form.name, name, c.arg, protoText(pt))
				}
				continue
			}
			typed++
			if !protoEq(pt, c.typ) {
				t.Errorf("%s: parameter %s (%T): type %s, want %s", form.name, name, c.arg, protoText(pt), protoText(c.typ))
			}
		}
		if len(req.GetParamTypes()) != typed {
			t.Errorf("%s: %d param_types, want %d", form.name, len(req.GetParamTypes()), typed)
		}
	}
}

// failingValuer fails in Value.
type failingValuer struct{}

func (failingValuer) Value() (driver.Value, error) { return nil, errors.New("no value") }

// TestFakeParamErrors: bad arguments fail before anything is sent, naming
// the parameter and the Go type.
func TestFakeParamErrors(t *testing.T) {
	s := fakespanner.Start(t)
	answerEverything(s)
	db := openFake(t, s)
	ctx := context.Background()
	if err := db.PingContext(ctx); err != nil {
		t.Fatal(err)
	}
	sent := len(s.RequestsFor("ExecuteStreamingSql"))
	type point struct{ X, Y int }
	for _, c := range []struct {
		name  string
		query string
		args  []any
		want  []string
		code  codes.Code
	}{
		{"uint64 overflow", "SELECT ?, ?", []any{1, uint64(1 << 63)}, []string{"@p2", "uint64", "overflows INT64"}, codes.InvalidArgument},
		{"channel", "SELECT @bad", []any{sql.Named("bad", make(chan int))}, []string{"@bad", "chan int"}, codes.InvalidArgument},
		{"complex", "SELECT ?", []any{complex(1, 2)}, []string{"@p1", "complex128"}, codes.InvalidArgument},
		{"map", "SELECT @m", []any{sql.Named("m", map[string]int{"a": 1})}, []string{"@m", "map[string]int"}, codes.InvalidArgument},
		{"uint overflow", "SELECT ?", []any{uint(1 << 63)}, []string{"@p1", "uint", "overflows INT64"}, codes.InvalidArgument},
		{"uint64 slice overflow", "SELECT @u", []any{sql.Named("u", []uint64{1, 1 << 63})}, []string{"@u", "[]uint64", "overflows INT64"}, codes.InvalidArgument},
		{"named uint64 overflow", "SELECT ?", []any{bigCount(1 << 63)}, []string{"@p1", "e2e.bigCount"}, codes.InvalidArgument},
		// Not accepted by go-sql-spanner either.
		{"int8 slice", "SELECT @s", []any{sql.Named("s", []int8{1})}, []string{"@s", "[]int8"}, codes.InvalidArgument},
		{"named int slice", "SELECT @s", []any{sql.Named("s", []userID{1})}, []string{"@s", "[]e2e.userID"}, codes.InvalidArgument},
		{"pointer to string slice", "SELECT @s", []any{sql.Named("s", &[]string{"a"})}, []string{"@s", "*[]string"}, codes.InvalidArgument},
		{"failing valuer", "SELECT @v", []any{sql.Named("v", failingValuer{})}, []string{"@v", "e2e.failingValuer", "no value"}, codes.InvalidArgument},
		{"mixed styles", "SELECT ?, @x", []any{1, sql.Named("x", 2)}, []string{"must only use one parameter style (named or positional)", "SELECT ?, @x"}, codes.InvalidArgument},
	} {
		err := queryOne(ctx, db, c.query, c.args...)
		if err == nil {
			t.Fatalf("%s: no error", c.name)
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q does not mention %q", c.name, err, w)
			}
		}
		if status.Code(err) != c.code {
			t.Errorf("%s: code %v, want %v (%v)", c.name, status.Code(err), c.code, err)
		}
	}
	if n := len(s.RequestsFor("ExecuteStreamingSql")); n != sent {
		t.Fatalf("%d requests sent for bad arguments", n-sent)
	}
	// A Go struct is a STRUCT parameter, not an error.
	if err := queryOne(ctx, db, "SELECT @p", sql.Named("p", point{1, 2})); err != nil {
		t.Fatalf("struct parameter: %v", err)
	}
	req := lastRequest(t, s).ExecuteSQL()
	want := &spannerpb.Type{Code: spannerpb.TypeCode_STRUCT, StructType: &spannerpb.StructType{Fields: []*spannerpb.StructType_Field{
		{Name: "X", Type: typ(spannerpb.TypeCode_INT64)}, {Name: "Y", Type: typ(spannerpb.TypeCode_INT64)},
	}}}
	if !protoEq(req.GetParamTypes()["p"], want) || !protoEq(req.GetParams().GetFields()["p"], list(str("1"), str("2"))) {
		t.Fatalf("struct parameter sent as %s : %s", protoText(req.GetParams().GetFields()["p"]), protoText(req.GetParamTypes()["p"]))
	}
}

// TestFakeRequestOptions checks what every query request carries: routing
// headers, the multiplexed session, a single-use read-only transaction at
// the DSN's staleness, priority, tag and optimizer options; and that SET,
// SHOW VARIABLE and RESET on one connection change exactly that
// connection's next requests.
func TestFakeRequestOptions(t *testing.T) {
	s := fakespanner.Start(t)
	answerEverything(s)
	db := openFake(t, s, "read_only_staleness=EXACT_STALENESS 10s", "rpc_priority=HIGH", "statement_tag=tag-a",
		"optimizer_version=5", "optimizer_statistics_package=pkg1")
	ctx := context.Background()

	type expect struct {
		staleness func(*spannerpb.TransactionOptions_ReadOnly) bool
		desc      string
		priority  spannerpb.RequestOptions_Priority
		tag       string
		optimizer string
	}
	exact10s := expect{
		staleness: func(ro *spannerpb.TransactionOptions_ReadOnly) bool {
			return ro.GetExactStaleness().AsDuration() == 10*time.Second
		},
		desc: "exact_staleness 10s", priority: spannerpb.RequestOptions_PRIORITY_HIGH, tag: "tag-a", optimizer: "5",
	}
	var session string
	check := func(what string, e expect) {
		t.Helper()
		r := lastRequest(t, s)
		req := r.ExecuteSQL()
		if got := r.Header.Get("google-cloud-resource-prefix"); len(got) != 1 || got[0] != fakeDB {
			t.Errorf("%s: google-cloud-resource-prefix %q, want %q", what, got, fakeDB)
		}
		params := r.Header.Get("x-goog-request-params")
		if len(params) != 1 || (params[0] != "database="+url.QueryEscape(fakeDB) && params[0] != "session="+url.QueryEscape(req.GetSession())) {
			t.Errorf("%s: x-goog-request-params %q, want the database or session routing parameter", what, params)
		}
		if got := r.Header.Get("x-goog-spanner-route-to-leader"); len(got) != 0 {
			t.Errorf("%s: read-only query routed to leader (%q)", what, got)
		}
		if session == "" {
			session = req.GetSession()
		}
		if req.GetSession() != session {
			t.Errorf("%s: session %q, want the shared %q", what, req.GetSession(), session)
		}
		ro := req.GetTransaction().GetSingleUse().GetReadOnly()
		if ro == nil || !e.staleness(ro) {
			t.Errorf("%s: transaction %s, want single-use read-only with %s", what, protoText(req.GetTransaction()), e.desc)
		}
		if req.GetRequestOptions().GetPriority() != e.priority || req.GetRequestOptions().GetRequestTag() != e.tag {
			t.Errorf("%s: request options %s, want priority %v tag %q", what, protoText(req.GetRequestOptions()), e.priority, e.tag)
		}
		if qo := req.GetQueryOptions(); qo.GetOptimizerVersion() != e.optimizer || qo.GetOptimizerStatisticsPackage() != "pkg1" {
			t.Errorf("%s: query options %s, want version %q package pkg1", what, protoText(qo), e.optimizer)
		}
		if len(req.GetResumeToken()) != 0 || req.GetPartitionToken() != nil {
			t.Errorf("%s: unexpected resume or partition token", what)
		}
	}

	if err := queryOne(ctx, db, "SELECT 1"); err != nil {
		t.Fatal(err)
	}
	check("DSN defaults", exact10s)

	c1, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c1.Close()
	c2, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	show := func(c *sql.Conn, name string) string {
		t.Helper()
		var v string
		if err := c.QueryRowContext(ctx, "SHOW VARIABLE "+name).Scan(&v); err != nil {
			t.Fatalf("SHOW VARIABLE %s: %v", name, err)
		}
		return v
	}
	for _, stmt := range []string{
		"SET rpc_priority = 'LOW'",
		"SET SPANNER.statement_tag = 'tag-b'",
		"set read_only_staleness = 'MAX_STALENESS 5s'",
		"SET optimizer_version = '7'",
	} {
		if _, err := c1.ExecContext(ctx, stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	if got := show(c1, "rpc_priority"); got != "PRIORITY_LOW" {
		t.Errorf("SHOW VARIABLE rpc_priority = %q, want PRIORITY_LOW", got)
	}
	if got := show(c1, "spanner.statement_tag"); got != "tag-b" {
		t.Errorf("SHOW VARIABLE statement_tag = %q, want tag-b", got)
	}
	if got := show(c2, "rpc_priority"); got != "PRIORITY_HIGH" {
		t.Errorf("SHOW VARIABLE rpc_priority on another connection = %q, want PRIORITY_HIGH", got)
	}
	if err := queryOne(ctx, c1, "SELECT 1"); err != nil {
		t.Fatal(err)
	}
	check("after SET", expect{
		staleness: func(ro *spannerpb.TransactionOptions_ReadOnly) bool {
			return ro.GetMaxStaleness().AsDuration() == 5*time.Second
		},
		desc: "max_staleness 5s", priority: spannerpb.RequestOptions_PRIORITY_LOW, tag: "tag-b", optimizer: "7",
	})
	if err := queryOne(ctx, c2, "SELECT 1"); err != nil {
		t.Fatal(err)
	}
	check("other connection", exact10s)
	for _, stmt := range []string{"RESET rpc_priority", "RESET statement_tag", "RESET read_only_staleness", "RESET optimizer_version"} {
		if _, err := c1.ExecContext(ctx, stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	if got := show(c1, "rpc_priority"); got != "PRIORITY_HIGH" {
		t.Errorf("SHOW VARIABLE rpc_priority after RESET = %q, want PRIORITY_HIGH", got)
	}
	if err := queryOne(ctx, c1, "SELECT 1"); err != nil {
		t.Fatal(err)
	}
	check("after RESET", exact10s)

	// SET through QueryContext works too, and bad SETs are errors that
	// change nothing.
	if err := queryOne(ctx, c1, "SET rpc_priority = 'MEDIUM'"); err != nil {
		t.Fatal(err)
	}
	if _, err := c1.ExecContext(ctx, "SET rpc_priority = 'URGENT'"); err == nil {
		t.Error("SET rpc_priority = 'URGENT' succeeded")
	}
	if _, err := c1.ExecContext(ctx, "SET no_such_property = 1"); err == nil {
		t.Error("SET of an unknown property succeeded")
	}
	if err := queryOne(ctx, c1, "SELECT 1"); err != nil {
		t.Fatal(err)
	}
	e := exact10s
	e.priority = spannerpb.RequestOptions_PRIORITY_MEDIUM
	e.tag = "" // statement_tag tags one statement: the query after RESET spent it
	check("after SET via QueryContext", e)

	// One multiplexed session for everything.
	if n := len(s.RequestsFor("CreateSession")); n != 1 {
		t.Errorf("%d CreateSession requests, want 1", n)
	}
	ss := s.Sessions()
	if len(ss) != 1 || !ss[0].GetMultiplexed() || ss[0].GetName() != session {
		t.Errorf("sessions %v, want one multiplexed session %q", ss, session)
	}
}

// TestFakeRawDecodeArgument: driver.RawDecode among a query's arguments is
// not sent as a parameter and switches raw mode for that query only.
func TestFakeRawDecodeArgument(t *testing.T) {
	s := fakespanner.Start(t)
	rs := &spannerpb.ResultSet{
		Metadata: &spannerpb.ResultSetMetadata{RowType: &spannerpb.StructType{Fields: []*spannerpb.StructType_Field{
			{Name: "s", Type: typ(spannerpb.TypeCode_STRING)},
			{Name: "u", Type: typ(spannerpb.TypeCode_UUID)},
		}}},
		Rows: []*structpb.ListValue{{Values: []*structpb.Value{str("text"), str("0191e1d2-3c4b-7a8e-9f00-112233445566")}}},
	}
	s.AddResult("SELECT s, u FROM t WHERE x = @p1", &fakespanner.Result{ResultSet: rs})
	s.AddResult("SELECT s, u FROM t WHERE x = @x", &fakespanner.Result{ResultSet: rs})
	ctx := context.Background()

	read := func(db *sql.DB, query string, args ...any) (value any, scan reflect.Type) {
		t.Helper()
		rows, err := db.QueryContext(ctx, query, args...)
		if err != nil {
			t.Fatalf("%s: %v", query, err)
		}
		defer rows.Close()
		cts, err := rows.ColumnTypes()
		if err != nil {
			t.Fatal(err)
		}
		if !rows.Next() {
			t.Fatalf("%s: no row: %v", query, rows.Err())
		}
		var v any
		var u any
		if err := rows.Scan(&v, &u); err != nil {
			t.Fatal(err)
		}
		req := lastRequest(t, s).ExecuteSQL()
		if n := len(req.GetParams().GetFields()); n != 1 || len(req.GetParamTypes()) != 1 {
			t.Fatalf("%s: %d params and %d types sent, want only the real parameter", query, n, len(req.GetParamTypes()))
		}
		for name, p := range req.GetParams().GetFields() {
			if !protoEq(p, str("5")) {
				t.Fatalf("%s: parameter %s = %s, want \"5\"", query, name, protoText(p))
			}
		}
		return v, cts[1].ScanType()
	}
	rawUUID, safeUUID := reflect.TypeFor[uuid.NullUUID](), reflect.TypeFor[spanner.NullUUID]()

	safe := openFake(t, s)
	if v, st := read(safe, "SELECT s, u FROM t WHERE x = ?", 5); v != "text" || st != safeUUID {
		t.Fatalf("safe connection: STRING as %#v, UUID scan type %v; want string and %v", v, st, safeUUID)
	}
	for _, args := range [][]any{
		{sfdriver.RawDecode(true), 5},
		{5, sfdriver.RawDecode(true)},
	} {
		v, st := read(safe, "SELECT s, u FROM t WHERE x = ?", args...)
		if b, ok := v.([]byte); !ok || string(b) != "text" || st != rawUUID {
			t.Fatalf("RawDecode(true) %v: STRING as %#v, UUID scan type %v; want []byte and %v", args, v, st, rawUUID)
		}
	}
	if v, st := read(safe, "SELECT s, u FROM t WHERE x = @x", sql.Named("x", 5), sfdriver.RawDecode(true)); !reflect.DeepEqual(v, []byte("text")) || st != rawUUID {
		t.Fatalf("named, RawDecode(true): STRING as %#v, UUID scan type %v", v, st)
	}
	// For that query only.
	if v, st := read(safe, "SELECT s, u FROM t WHERE x = ?", 5); v != "text" || st != safeUUID {
		t.Fatalf("query after RawDecode(true): STRING as %#v, UUID scan type %v; want safe mode again", v, st)
	}

	raw := openFake(t, s, "rawDecode=true")
	if v, st := read(raw, "SELECT s, u FROM t WHERE x = ?", 5); !reflect.DeepEqual(v, []byte("text")) || st != rawUUID {
		t.Fatalf("raw connection: STRING as %#v, UUID scan type %v", v, st)
	}
	if v, st := read(raw, "SELECT s, u FROM t WHERE x = ?", sfdriver.RawDecode(false), 5); v != "text" || st != safeUUID {
		t.Fatalf("raw connection, RawDecode(false): STRING as %#v, UUID scan type %v", v, st)
	}
}
