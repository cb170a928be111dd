package params

import (
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"math"
	"math/big"
	"reflect"
	"strconv"
	"strings"
	"time"

	"cloud.google.com/go/civil"
	"cloud.google.com/go/spanner"
	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"github.com/google/uuid"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/spannerfast/spannerfast/internal/sqlparse"
)

// stmtParams is what one scan of a statement's text finds.
type stmtParams struct {
	// sql is the text to send: each `?` outside literals and comments
	// becomes @p1, @p2, ...
	sql string
	// names are the statement's distinct parameters, without the @, in the
	// order they first appear. Names that differ only in case are one
	// parameter (Spanner matches them case-insensitively); the first
	// spelling is kept. For `?` statements they are p1..pN.
	names []string
}

// parseParams scans sql (see internal/sqlparse for the lexical rules),
// rewrites `?` to @pN and collects the parameter names. It does not use the
// statement cache; connections parse through their statement cache and call Bind.
func parseParams(sql string) (stmtParams, error) {
	p, err := sqlparse.Parse(sql)
	if err != nil {
		return stmtParams{}, err
	}
	return stmtParams{sql: p.SQL, names: p.Params}, nil
}

// ParamError reports an argument that cannot be sent to Spanner.
type ParamError struct {
	Name  string
	Value any
	Err   error
}

func (e *ParamError) Error() string {
	return fmt.Sprintf("spannerfast: parameter @%s: unsupported value type %T: %v", e.Name, e.Value, e.Err)
}

// Unwrap returns the cause.
func (e *ParamError) Unwrap() error { return e.Err }

// GRPCStatus reports InvalidArgument.
func (e *ParamError) GRPCStatus() *status.Status {
	return status.New(codes.InvalidArgument, e.Error())
}

var (
	errOverflow    = errors.New("value overflows INT64")
	errUnsupported = errors.New("not a Spanner value, driver.Valuer, database/sql value or struct")
)

// directTypes are the types go-sql-spanner sends as they are (after
// widening int, uint and uint64 to int64 and leaving strings untyped):
// anything else is first converted by its driver.Valuer or database/sql's
// default converter. The order matters: a named type such as
// `type Celsius float32` becomes FLOAT64 through the default converter,
// where the official client's encoder would make it FLOAT32.
var directTypes = typeSet(
	"", []string(nil), (*string)(nil), []*string(nil), spanner.NullString{}, []spanner.NullString(nil),
	[]byte(nil), [][]byte(nil),
	int(0), []int(nil), (*int)(nil), []*int(nil), (*[]int)(nil),
	uint(0), []uint(nil), (*uint)(nil), []*uint(nil), (*[]uint)(nil),
	uint64(0), []uint64(nil), (*uint64)(nil), []*uint64(nil),
	int64(0), []int64(nil), (*int64)(nil), []*int64(nil), spanner.NullInt64{}, []spanner.NullInt64(nil),
	false, []bool(nil), (*bool)(nil), []*bool(nil), spanner.NullBool{}, []spanner.NullBool(nil),
	float32(0), []float32(nil), (*float32)(nil), []*float32(nil), spanner.NullFloat32{}, []spanner.NullFloat32(nil),
	float64(0), []float64(nil), (*float64)(nil), []*float64(nil), spanner.NullFloat64{}, []spanner.NullFloat64(nil),
	big.Rat{}, []big.Rat(nil), (*big.Rat)(nil), []*big.Rat(nil), spanner.NullNumeric{}, []spanner.NullNumeric(nil),
	time.Time{}, []time.Time(nil), (*time.Time)(nil), []*time.Time(nil), spanner.NullTime{}, []spanner.NullTime(nil),
	civil.Date{}, []civil.Date(nil), (*civil.Date)(nil), []*civil.Date(nil), spanner.NullDate{}, []spanner.NullDate(nil),
	uuid.UUID{}, []uuid.UUID(nil), (*uuid.UUID)(nil), []*uuid.UUID(nil), spanner.NullUUID{}, []spanner.NullUUID(nil),
	spanner.NullJSON{}, []spanner.NullJSON(nil), spanner.GenericColumnValue{},
	// PostgreSQL's NUMERIC and JSONB: sent as themselves, so that the
	// official encoder types them NUMERIC/PG_NUMERIC and JSON/PG_JSONB
	// (PGNumeric's Valuer would make an untyped string of it).
	spanner.PGNumeric{}, []spanner.PGNumeric(nil), spanner.PGJsonB{}, []spanner.PGJsonB(nil),
	sql.NullString{}, sql.NullInt64{}, sql.NullInt32{}, sql.NullBool{}, sql.NullFloat64{}, sql.NullTime{},
)

func typeSet(samples ...any) map[reflect.Type]bool {
	m := make(map[reflect.Type]bool, len(samples))
	for _, s := range samples {
		m[reflect.TypeOf(s)] = true
	}
	return m
}

func isDirect(v any) bool { return v == nil || directTypes[reflect.TypeOf(v)] }

// acceptParam returns the value to encode for an argument, trying in
// go-sql-spanner's order: the value itself, its driver.Valuer result,
// database/sql's default conversion (named types, small integers, pointers),
// and Go structs and slices of structs or protos (STRUCT and PROTO values).
func acceptParam(v any) (any, error) {
	if isDirect(v) {
		return v, nil
	}
	if vr, ok := v.(driver.Valuer); ok {
		inner, err := valuerValue(vr)
		if err != nil {
			return nil, err
		}
		if isDirect(inner) {
			return inner, nil
		}
	}
	if c, err := driver.DefaultParameterConverter.ConvertValue(v); err == nil && isDirect(c) {
		return c, nil
	}
	if isStructLike(v) {
		return v, nil
	}
	return nil, errUnsupported
}

var valuerType = reflect.TypeFor[driver.Valuer]()

// valuerValue calls Value, treating a nil pointer whose Value method has a
// value receiver as NULL (as database/sql does) instead of panicking.
func valuerValue(vr driver.Valuer) (driver.Value, error) {
	if rv := reflect.ValueOf(vr); rv.Kind() == reflect.Pointer && rv.IsNil() && rv.Type().Elem().Implements(valuerType) {
		return nil, nil
	}
	return vr.Value()
}

var (
	protoMessageType = reflect.TypeFor[proto.Message]()
	protoEnumType    = reflect.TypeFor[protoreflect.Enum]()
)

// isStructLike reports a struct, a pointer to one, a slice of either, or a
// slice of protos: values the official client encodes by reflection.
func isStructLike(v any) bool {
	t := reflect.TypeOf(v)
	if t.Kind() == reflect.Slice {
		t = t.Elem()
		if t.Implements(protoMessageType) || t.Implements(protoEnumType) {
			return true
		}
	}
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.Kind() == reflect.Struct
}

// encodeParam converts a Go value to Spanner's wire value and type (nil for
// an untyped value). It accepts what go-sql-spanner accepts, with the same
// Spanner types: strings (string, *string, []string, []*string) are sent
// untyped, so Spanner infers DATE, TIMESTAMP, JSON, NUMERIC... from where the
// parameter stands; int, uint and uint64 (also as pointers and slices) are
// INT64, checked for overflow; the rest is encoded by the official client.
func encodeParam(name string, v any) (*structpb.Value, *spannerpb.Type, error) {
	e, err := encodeArg(name, v)
	if e == nil {
		return nil, nil, err
	}
	return e.value, e.typ, err
}

// encodeArg is encodeParam that also says the type a string argument takes
// under send_typed_strings.
func encodeArg(name string, v any) (*encodedParam, error) {
	x, err := acceptParam(v)
	if err != nil {
		return nil, &ParamError{Name: name, Value: v, Err: err}
	}
	if e := encodeCommon(x); e != nil {
		if e.typ == nil { // a string
			return e, CheckUTF8(name, e.value)
		}
		return e, nil
	}
	if val, ok := untypedString(x); ok {
		return &encodedParam{value: val, strType: stringType(x)}, CheckUTF8(name, val)
	}
	val, typ, err := encodeTyped(name, v, x)
	return &encodedParam{value: val, typ: typ}, err
}

// commonParam is an encoded argument of the commonest kinds together with
// its wire value and that value's kind K, in one allocation instead of
// three (the value, its kind and the encodedParam).
type commonParam[K any] struct {
	encodedParam
	value structpb.Value
	kind  K
}

// done fills p's encodedParam, whose value is p.value, and returns it.
func (p *commonParam[K]) done(typ, strType *spannerpb.Type) *encodedParam {
	p.encodedParam = encodedParam{value: &p.value, typ: typ, strType: strType}
	return &p.encodedParam
}

// encodeCommon encodes a string (untyped), an int64 or int, a float64 or a
// bool as untypedString and encodeScalar encode them, or returns nil for
// any other value.
func encodeCommon(x any) *encodedParam {
	switch x := x.(type) {
	case string:
		p := &commonParam[structpb.Value_StringValue]{kind: structpb.Value_StringValue{StringValue: x}}
		p.value.Kind = &p.kind
		return p.done(nil, typeSTRING)
	case int64, int: // an int is always within INT64
		n, _ := x.(int64)
		if i, ok := x.(int); ok {
			n = int64(i)
		}
		p := &commonParam[structpb.Value_StringValue]{kind: structpb.Value_StringValue{StringValue: strconv.FormatInt(n, 10)}}
		p.value.Kind = &p.kind
		return p.done(typeINT64, nil)
	case float64:
		p := &commonParam[structpb.Value_NumberValue]{kind: structpb.Value_NumberValue{NumberValue: x}}
		p.value.Kind = &p.kind
		return p.done(typeFLOAT64, nil)
	case bool:
		p := &commonParam[structpb.Value_BoolValue]{kind: structpb.Value_BoolValue{BoolValue: x}}
		p.value.Kind = &p.kind
		return p.done(typeBOOL, nil)
	}
	return nil
}

// encodeTyped encodes x, the accepted form of the argument v, with its type.
func encodeTyped(name string, v, x any) (*structpb.Value, *spannerpb.Type, error) {
	var err error
	if x, err = widenInts(x); err != nil {
		return nil, nil, &ParamError{Name: name, Value: v, Err: err}
	}
	if val, typ, ok := encodeScalar(x); ok {
		return val, typ, nil
	}
	row, err := spanner.NewRow([]string{name}, []any{x})
	var g spanner.GenericColumnValue
	if err == nil {
		err = row.Column(0, &g)
	}
	// The official encoder has no case for some database/sql types (it
	// rejects sql.NullInt32, and would send others field by field as a
	// STRUCT): those are sent as their Value, a plain driver.Value.
	if vr, ok := x.(driver.Valuer); ok && (err != nil || g.Type.GetCode() == spannerpb.TypeCode_STRUCT) {
		inner, verr := vr.Value()
		if verr != nil {
			return nil, nil, &ParamError{Name: name, Value: v, Err: verr}
		}
		if _, nested := inner.(driver.Valuer); !nested {
			return encodeParam(name, inner)
		}
	}
	if err != nil {
		return nil, nil, &ParamError{Name: name, Value: v, Err: err}
	}
	return g.Value, g.Type, CheckUTF8(name, g.Value)
}

// The types of the scalars encodeScalar sends. Requests only read them
// (the proto marshaller does), so one of each serves every request.
var (
	typeINT64     = &spannerpb.Type{Code: spannerpb.TypeCode_INT64}
	typeFLOAT64   = &spannerpb.Type{Code: spannerpb.TypeCode_FLOAT64}
	typeBOOL      = &spannerpb.Type{Code: spannerpb.TypeCode_BOOL}
	typeTIMESTAMP = &spannerpb.Type{Code: spannerpb.TypeCode_TIMESTAMP}
)

// encodeScalar encodes the commonest parameter types directly, exactly as
// the official client's encoder does (TestEncodeScalarMatchesClient):
// INT64 as its decimal string, FLOAT64 as a number (NaN and the infinities
// included: the wire form is a double), BOOL as a bool, TIMESTAMP as RFC
// 3339 text in UTC (the commit-timestamp placeholder is left to the client's
// encoder). Building a one-column Row for them costs
// several allocations per parameter, on every statement.
func encodeScalar(v any) (*structpb.Value, *spannerpb.Type, bool) {
	switch x := v.(type) {
	case int64:
		return structpb.NewStringValue(strconv.FormatInt(x, 10)), typeINT64, true
	case bool:
		return structpb.NewBoolValue(x), typeBOOL, true
	case float64:
		return structpb.NewNumberValue(x), typeFLOAT64, true
	case time.Time:
		if x == spanner.CommitTimestamp {
			return nil, nil, false // the client's own spelling of the placeholder
		}
		return structpb.NewStringValue(x.UTC().Format(time.RFC3339Nano)), typeTIMESTAMP, true
	}
	return nil, nil, false
}

// The types strings are sent with under send_typed_strings, as the
// official client's encoder types them.
var (
	typeSTRING      = &spannerpb.Type{Code: spannerpb.TypeCode_STRING}
	typeARRAYSTRING = &spannerpb.Type{Code: spannerpb.TypeCode_ARRAY, ArrayElementType: typeSTRING}
)

// stringType is the type of a string argument that untypedString sends
// untyped, when send_typed_strings asks for types (go-sql-spanner then
// hands the value to the official client's encoder, which types it so):
// STRING, or ARRAY<STRING> for a slice. An untyped nil stays untyped.
func stringType(v any) *spannerpb.Type {
	switch v.(type) {
	case string, *string:
		return typeSTRING
	case []string, []*string:
		return typeARRAYSTRING
	}
	return nil
}

// untypedString encodes the string types go-sql-spanner sends without a
// type; a nil one is an untyped NULL.
func untypedString(v any) (*structpb.Value, bool) {
	switch x := v.(type) {
	case nil:
		return structpb.NewNullValue(), true
	case string:
		return structpb.NewStringValue(x), true
	case *string:
		if x == nil {
			return structpb.NewNullValue(), true
		}
		return structpb.NewStringValue(*x), true
	case []string:
		if x == nil {
			return structpb.NewNullValue(), true
		}
		vs := make([]*structpb.Value, len(x))
		for i, s := range x {
			vs[i] = structpb.NewStringValue(s)
		}
		return structpb.NewListValue(&structpb.ListValue{Values: vs}), true
	case []*string:
		if x == nil {
			return structpb.NewNullValue(), true
		}
		vs := make([]*structpb.Value, len(x))
		for i, s := range x {
			vs[i], _ = untypedString(s)
		}
		return structpb.NewListValue(&structpb.ListValue{Values: vs}), true
	}
	return nil, false
}

// widenInts turns int, uint and uint64 (and their pointers and slices,
// keeping nil as a typed NULL) into int64, which the official client encodes.
func widenInts(v any) (any, error) {
	switch x := v.(type) {
	case int:
		return toInt64(x)
	case []int:
		return slicesToInt64(x)
	case *int:
		return ptrToInt64(x)
	case []*int:
		return ptrsToInt64(x)
	case *[]int:
		return slicePtrToInt64(x)
	case uint:
		return toInt64(x)
	case []uint:
		return slicesToInt64(x)
	case *uint:
		return ptrToInt64(x)
	case []*uint:
		return ptrsToInt64(x)
	case *[]uint:
		return slicePtrToInt64(x)
	case uint64:
		return toInt64(x)
	case []uint64:
		return slicesToInt64(x)
	case *uint64:
		return ptrToInt64(x)
	case []*uint64:
		return ptrsToInt64(x)
	}
	return v, nil
}

type intLike interface{ ~int | ~uint | ~uint64 }

func toInt64[T intLike](x T) (int64, error) {
	if x > 0 && uint64(x) > math.MaxInt64 {
		return 0, errOverflow
	}
	return int64(x), nil
}

func slicesToInt64[T intLike](xs []T) ([]int64, error) {
	if xs == nil {
		return nil, nil
	}
	out := make([]int64, len(xs))
	for i, x := range xs {
		n, err := toInt64(x)
		if err != nil {
			return nil, err
		}
		out[i] = n
	}
	return out, nil
}

func slicePtrToInt64[T intLike](p *[]T) ([]int64, error) {
	if p == nil {
		return nil, nil
	}
	return slicesToInt64(*p)
}

func ptrToInt64[T intLike](p *T) (*int64, error) {
	if p == nil {
		return nil, nil
	}
	n, err := toInt64(*p)
	return &n, err
}

func ptrsToInt64[T intLike](ps []*T) ([]*int64, error) {
	if ps == nil {
		return nil, nil
	}
	out := make([]*int64, len(ps))
	for i, p := range ps {
		n, err := ptrToInt64(p)
		if err != nil {
			return nil, err
		}
		out[i] = n
	}
	return out, nil
}

// encodedParam is an argument already converted by Convert, which hands
// database/sql a pointer to it (a pointer in an interface costs no
// allocation).
type encodedParam struct {
	value *structpb.Value
	typ   *spannerpb.Type
	// strType is the type of a string sent untyped (typ nil) when the
	// statement runs with send_typed_strings (see Bind).
	strType *spannerpb.Type
}

// Convert encodes one argument for sending, as CheckNamedValue does: the
// value database/sql then hands back to the statement is an encoded
// parameter, which Bind takes as it is. A SpannerNamedArg is unwrapped
// first.
func Convert(nv *driver.NamedValue) error {
	if _, ok := nv.Value.(*encodedParam); ok {
		return nil
	}
	unwrapNamedArg(nv)
	e, err := encodeArg(paramName(*nv), nv.Value)
	if err != nil {
		return err
	}
	nv.Value = e
	return nil
}

// paramName names an argument in errors raised before the statement is
// known (CheckNamedValue): its name, or pN for the N-th positional argument.
func paramName(a driver.NamedValue) string {
	if a.Name == "" {
		if a.Ordinal > 0 && a.Ordinal <= len(positionalNames) {
			return positionalNames[a.Ordinal-1] // no allocation per argument
		}
		return "p" + strconv.Itoa(a.Ordinal)
	}
	return strings.TrimPrefix(a.Name, "@")
}

// positionalNames are p1 to p64, made once.
var positionalNames = func() (names [64]string) {
	for i := range names {
		names[i] = "p" + strconv.Itoa(i+1)
	}
	return names
}()

// Build parses a GoogleSQL statement and binds its arguments (Bind). It
// does not use the statement cache; connections parse through it and call
// Bind.
func Build(sql string, args []driver.NamedValue) (string, *structpb.Struct, map[string]*spannerpb.Type, error) {
	p, err := parseParams(sql)
	if err != nil {
		return "", nil, nil, err
	}
	return Bind(p.sql, Names{Sent: p.names}, args, false)
}
