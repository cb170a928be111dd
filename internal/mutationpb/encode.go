package mutationpb

import (
	"encoding/base64"
	"math/big"
	"reflect"
	"strconv"
	"time"

	"cloud.google.com/go/civil"
	"cloud.google.com/go/spanner"
	"github.com/google/uuid"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/structpb"
)

// Values are encoded by the client itself, through its public
// spanner.NewRow, which runs the same encoder (encodeValue) its mutations
// use, except the scalar types of fastKind, whose fixed encoding is
// written out; Row.ColumnValue hands back each encoded value without copying. What this package adds are the client's two rules that
// NewRow does not apply: which Go types a mutation accepts (mutationType)
// and how key parts are widened (keyPart).

// noNames are the column names given to NewRow, which needs one per value
// and ignores them here.
var noNames = make([]string, 64)

func names(n int) []string {
	if n <= len(noNames) {
		return noNames[:n]
	}
	return make([]string, n)
}

// encodeValues encodes vs as the client encodes a mutation's values or a
// Send or Ack key; checkTypes applies the client's list of mutation types
// first. On failure it returns the index of the first value that fails
// and the client's error for it.
func encodeValues(vs []any, checkTypes bool) (lv *structpb.ListValue, bad int, err error) {
	lv = &structpb.ListValue{Values: make([]*structpb.Value, 0, len(vs))}
	if len(vs) == 0 {
		return lv, 0, nil
	}
	if fastValues(lv, vs) {
		return lv, 0, nil
	}
	if checkTypes {
		for _, v := range vs {
			if !mutationType(v) {
				bad, err = firstFailure(vs, checkTypes)
				return nil, bad, err
			}
		}
	}
	row, err := newRow(vs)
	if err != nil {
		bad, err = firstFailure(vs, checkTypes)
		return nil, bad, err
	}
	for i := range vs {
		lv.Values = append(lv.Values, row.ColumnValue(i))
	}
	return lv, 0, nil
}

// fastValues encodes vs into lv when every value is of a type that
// fastKind knows, and reports whether it did (lv is left empty otherwise).
// The Values share one allocation.
func fastValues(lv *structpb.ListValue, vs []any) bool {
	backing := make([]structpb.Value, len(vs))
	for i, v := range vs {
		if !fastKind(&backing[i], v) {
			return false
		}
	}
	for i := range backing {
		lv.Values = append(lv.Values, &backing[i])
	}
	return true
}

// fastKind sets pb to the client's encoding of v for the scalar types most
// rows hold, and reports whether v was one of them. For these types the
// client's encodeValue is a fixed rule of the wire format (a decimal
// string for integers, base64 for bytes, RFC 3339 in UTC for a time, a
// number for a float, NaN and infinities included), written out here so
// that a row of them needs no spanner.NewRow, which also builds a column
// type per value and costs four times the allocations. The client's
// commit-timestamp placeholder and every other type go to NewRow.
// TestValuesMatchOfficialClient compares each with the client.
func fastKind(pb *structpb.Value, v any) bool {
	switch v := v.(type) {
	case nil:
		pb.Kind = &structpb.Value_NullValue{}
	case string:
		pb.Kind = &structpb.Value_StringValue{StringValue: v}
	case int64:
		pb.Kind = &structpb.Value_StringValue{StringValue: strconv.FormatInt(v, 10)}
	case int:
		pb.Kind = &structpb.Value_StringValue{StringValue: strconv.FormatInt(int64(v), 10)}
	case bool:
		pb.Kind = &structpb.Value_BoolValue{BoolValue: v}
	case float64:
		pb.Kind = &structpb.Value_NumberValue{NumberValue: v}
	case []byte:
		if v == nil {
			pb.Kind = &structpb.Value_NullValue{}
		} else {
			pb.Kind = &structpb.Value_StringValue{StringValue: base64.StdEncoding.EncodeToString(v)}
		}
	case time.Time:
		if v == spanner.CommitTimestamp {
			return false
		}
		pb.Kind = &structpb.Value_StringValue{StringValue: v.UTC().Format(time.RFC3339Nano)}
	default:
		return false
	}
	return true
}

// firstFailure finds, value by value and in the client's order, the value
// that makes a batch fail. It runs on the error path only.
func firstFailure(vs []any, checkTypes bool) (int, error) {
	for i, v := range vs {
		if checkTypes && !mutationType(v) {
			return i, errUnsupportedType(v)
		}
		if _, err := newRow(vs[i : i+1]); err != nil {
			return i, err
		}
	}
	return 0, status.Error(codes.Internal, "spannerfast: values failed to encode together but not one by one")
}

// encodeOne encodes a Send payload, which the client encodes without its
// list of mutation types.
func encodeOne(v any) (*structpb.Value, error) {
	lv, _, err := encodeValues([]any{v}, false)
	if err != nil {
		return nil, err
	}
	return lv.Values[0], nil
}

// newRow is spanner.NewRow, with a panic while encoding (in a user's
// Encoder, say) turned into an InvalidArgument error.
func newRow(vs []any) (row *spanner.Row, err error) {
	defer func() {
		if r := recover(); r != nil {
			row, err = nil, spanner.ToSpannerError(status.Errorf(codes.InvalidArgument, "cannot encode value: %v", r))
		}
	}()
	return spanner.NewRow(names(len(vs)), vs)
}

func errUnsupportedType(v any) error {
	return spanner.ToSpannerError(status.Errorf(codes.InvalidArgument, "client doesn't support type %T", v))
}

func errKeyPartType(v any) error {
	return spanner.ToSpannerError(status.Errorf(codes.InvalidArgument, "key part has unsupported type %T", v))
}

// keyProto encodes a key as the client does: small integer kinds widened to
// int64, Encoder values encoded first, other types refused.
func keyProto(k spanner.Key) (*structpb.ListValue, error) {
	parts := make([]any, len(k))
	for i, p := range k {
		v, err := keyPart(p)
		if err != nil {
			return nil, err
		}
		parts[i] = v
	}
	lv, _, err := encodeValues(parts, false)
	return lv, err
}

// keyPart is the value the client encodes for a key part. The case order is
// the client's: a listed type wins over Encoder.
func keyPart(part any) (any, error) {
	switch v := part.(type) {
	case int:
		return int64(v), nil
	case int8:
		return int64(v), nil
	case int16:
		return int64(v), nil
	case int32:
		return int64(v), nil
	case uint8:
		return int64(v), nil
	case uint16:
		return int64(v), nil
	case uint32:
		return int64(v), nil
	case int64, float64, float32, spanner.NullInt64, spanner.NullFloat64, spanner.NullFloat32, bool, spanner.NullBool,
		[]byte, string, spanner.NullString, time.Time, civil.Date, spanner.NullTime, spanner.NullDate, big.Rat,
		spanner.NullNumeric, protoreflect.Enum, spanner.NullProtoEnum, uuid.UUID, uuid.NullUUID, spanner.NullUUID:
		return v, nil
	case spanner.Encoder:
		e, err := v.EncodeSpanner()
		if err != nil {
			return nil, err
		}
		return keyPart(e)
	}
	return nil, errKeyPartType(part)
}

// mutationType is the client's list of the Go types a mutation's value may
// have (its doc lists them; the encoder takes more, such as Go structs,
// which a column cannot hold).
func mutationType(v any) bool {
	switch v.(type) {
	case nil, string, *string, spanner.NullString, []string, []*string, []spanner.NullString,
		[]byte, [][]byte,
		int, []int, int64, *int64, []int64, []*int64, spanner.NullInt64, []spanner.NullInt64,
		bool, *bool, []bool, []*bool, spanner.NullBool, []spanner.NullBool,
		float64, *float64, []float64, []*float64, spanner.NullFloat64, []spanner.NullFloat64,
		float32, *float32, []float32, []*float32, spanner.NullFloat32, []spanner.NullFloat32,
		time.Time, *time.Time, []time.Time, []*time.Time, spanner.NullTime, []spanner.NullTime,
		civil.Date, *civil.Date, []civil.Date, []*civil.Date, spanner.NullDate, []spanner.NullDate,
		big.Rat, *big.Rat, []big.Rat, []*big.Rat, spanner.NullNumeric, []spanner.NullNumeric,
		uuid.UUID, []uuid.UUID, *uuid.UUID, []*uuid.UUID, spanner.NullUUID, []spanner.NullUUID,
		spanner.Interval, *spanner.Interval, []spanner.Interval, []*spanner.Interval, spanner.NullInterval, []spanner.NullInterval,
		spanner.GenericColumnValue, proto.Message, protoreflect.Enum, spanner.NullProtoMessage, spanner.NullProtoEnum:
		return true
	}
	if _, ok := v.(spanner.Encoder); ok {
		return true
	}
	return protoArray(v) || convertible(v)
}

var (
	protoMessageType = reflect.TypeFor[proto.Message]()
	protoEnumType    = reflect.TypeFor[protoreflect.Enum]()
)

// protoArray: a slice (or pointer to a slice) of protos or enums.
func protoArray(v any) bool {
	t := reflect.TypeOf(v)
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() == reflect.Slice {
		t = t.Elem()
	}
	return t.Implements(protoMessageType) || t.Implements(protoEnumType)
}

var (
	// The struct types a user's own type may convert to.
	structTargets = []reflect.Type{
		reflect.TypeFor[big.Rat](), reflect.TypeFor[time.Time](), reflect.TypeFor[civil.Date](),
		reflect.TypeFor[spanner.Interval](), reflect.TypeFor[spanner.NullString](), reflect.TypeFor[spanner.NullInt64](),
		reflect.TypeFor[spanner.NullBool](), reflect.TypeFor[spanner.NullFloat64](), reflect.TypeFor[spanner.NullFloat32](),
		reflect.TypeFor[spanner.NullTime](), reflect.TypeFor[spanner.NullDate](), reflect.TypeFor[spanner.NullNumeric](),
		reflect.TypeFor[spanner.NullJSON](), reflect.TypeFor[spanner.NullUUID](), reflect.TypeFor[spanner.PGNumeric](),
		reflect.TypeFor[spanner.PGJsonB](), reflect.TypeFor[spanner.NullInterval](),
	}
	// The same for slice elements (no INTERVAL there).
	elemTargets = []reflect.Type{
		reflect.TypeFor[big.Rat](), reflect.TypeFor[time.Time](), reflect.TypeFor[civil.Date](),
		reflect.TypeFor[spanner.NullString](), reflect.TypeFor[spanner.NullInt64](), reflect.TypeFor[spanner.NullBool](),
		reflect.TypeFor[spanner.NullFloat64](), reflect.TypeFor[spanner.NullFloat32](), reflect.TypeFor[spanner.NullTime](),
		reflect.TypeFor[spanner.NullDate](), reflect.TypeFor[spanner.NullNumeric](), reflect.TypeFor[spanner.NullJSON](),
		reflect.TypeFor[spanner.PGNumeric](), reflect.TypeFor[spanner.PGJsonB](), reflect.TypeFor[spanner.NullUUID](),
	}
	uuidType = reflect.TypeFor[uuid.UUID]()
)

// convertible is the client's rule for a user's own type: one whose kind
// is a base type's (type MyID int64), or that converts to one of the
// client's types. The client also tests pointers (and slices of pointers)
// for conversion to its NULL struct types, which a pointer type never
// passes; they are left out.
func convertible(v any) bool {
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Invalid:
		return false
	case reflect.String, reflect.Int64, reflect.Bool, reflect.Float32, reflect.Float64:
		return true
	case reflect.Array:
		return rv.Type().ConvertibleTo(uuidType)
	case reflect.Struct:
		return convertsTo(rv.Type(), structTargets)
	case reflect.Slice:
		et := rv.Type().Elem()
		switch et.Kind() {
		case reflect.String, reflect.Uint8, reflect.Int64, reflect.Bool, reflect.Float64, reflect.Float32:
			return true
		case reflect.Array:
			return et.ConvertibleTo(uuidType)
		case reflect.Struct:
			return convertsTo(et, elemTargets)
		case reflect.Slice:
			return et.Elem().Kind() == reflect.Uint8
		}
	}
	return false
}

func convertsTo(t reflect.Type, targets []reflect.Type) bool {
	for _, target := range targets {
		if t.ConvertibleTo(target) {
			return true
		}
	}
	return false
}
