package decode_test

import (
	"database/sql/driver"
	"errors"
	"strings"
	"testing"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/spannerfast/spannerfast/decode"
)

// badCase is a value that does not fit its column type.
type badCase struct {
	name string
	typ  *spannerpb.Type
	in   []byte
	opts decode.Options
}

func bad(name string, t *spannerpb.Type, v *structpb.Value) badCase {
	return badCase{name: name, typ: t, in: enc(v)}
}

// truncated removes the last byte of an encoded value, which leaves a length
// prefix pointing past the end.
func truncated(v *structpb.Value) []byte { b := enc(v); return b[:len(b)-1] }

var contentCases = []badCase{
	bad("int64 exponent", tInt64, str("1e3")),
	bad("int64 overflow", tInt64, str("9223372036854775808")),
	bad("int64 underflow", tInt64, str("-9223372036854775809")),
	bad("int64 huge", tInt64, str("99999999999999999999")),
	bad("int64 empty", tInt64, str("")),
	bad("int64 sign only", tInt64, str("-")),
	bad("int64 space", tInt64, str(" 1")),
	bad("int64 hex", tInt64, str("0x10")),
	bad("int64 fraction", tInt64, str("1.0")),
	bad("int64 too long", tInt64, str("000000000000000000001")),
	bad("enum text", tEnum, str("RED")),
	bad("float64 lower-case nan", tFloat64, str("nan")),
	bad("float64 inf", tFloat64, str("inf")),
	bad("float64 decimal text", tFloat64, str("1.5")),
	bad("float32 text", tFloat32, str("+Infinity")),
	bad("bytes missing padding", tBytes, str("AQI")),
	bad("bytes bad character", tBytes, str("AQ!D")),
	bad("bytes url alphabet", tBytes, str("-_8=")),
	bad("bytes padding inside", tBytes, str("AQ==AQID")),
	bad("bytes single char", tBytes, str("A")),
	bad("proto bad base64", tProto, str("%%%%")),
	bad("date not a leap year", tDate, str("2023-02-29")),
	bad("date 1900 not a leap year", tDate, str("1900-02-29")),
	bad("date april 31", tDate, str("2024-04-31")),
	bad("date month 13", tDate, str("2024-13-01")),
	bad("date month 0", tDate, str("2024-00-10")),
	bad("date day 0", tDate, str("2024-01-00")),
	bad("date year 0", tDate, str("0000-01-01")),
	bad("date short month", tDate, str("2024-1-01")),
	bad("date compact", tDate, str("20240101")),
	bad("date timestamp", tDate, str("2024-01-01T00:00:00Z")),
	bad("date signed year", tDate, str("+202-01-01")),
	bad("timestamp not a leap year", tTimestamp, str("2023-02-29T00:00:00Z")),
	bad("timestamp year 0", tTimestamp, str("0000-12-31T00:00:00Z")),
	bad("timestamp no zone", tTimestamp, str("2024-01-01T00:00:00")),
	bad("timestamp offset", tTimestamp, str("2024-01-01T00:00:00+01:00")),
	bad("timestamp ten fraction digits", tTimestamp, str("2024-01-01T00:00:00.1234567890Z")),
	bad("timestamp empty fraction", tTimestamp, str("2024-01-01T00:00:00.Z")),
	bad("timestamp hour 24", tTimestamp, str("2024-01-01T24:00:00Z")),
	bad("timestamp minute 60", tTimestamp, str("2024-01-01T00:60:00Z")),
	bad("timestamp leap second", tTimestamp, str("2024-01-01T23:59:60Z")),
	bad("timestamp space", tTimestamp, str("2024-01-01 00:00:00Z")),
	bad("timestamp date only", tTimestamp, str("2024-01-01")),
	bad("timestamp trailing", tTimestamp, str("2024-01-01T00:00:00ZZ")),
	bad("uuid garbage", tUUID, str("not-a-uuid")),
	bad("uuid no dashes", tUUID, str("0b6f7d469c4e4f0e8c592a4f3c1d9e77")),
	bad("uuid braces", tUUID, str("{0b6f7d46-9c4e-4f0e-8c59-2a4f3c1d9e77}")),
	bad("uuid bad hex", tUUID, str("0b6f7d46-9c4e-4f0e-8c59-2a4f3c1d9e7g")),
	bad("numeric exponent", tNumeric, str("1e3")),
	bad("numeric fraction", tNumeric, str("1/3")),
	bad("numeric text", tNumeric, str("abc")),
	bad("numeric empty", tNumeric, str("")),
	bad("numeric sign only", tNumeric, str("-")),
	bad("numeric two dots", tNumeric, str("1.2.3")),
	bad("numeric NaN", tNumeric, str("NaN")),
	bad("array numeric NaN", arrayOf(tNumeric), list(str("NaN"))),
	{name: "numeric as string exponent", typ: tNumeric, in: enc(str("1e3")), opts: decode.Options{NumericAsString: true}},
	bad("json truncated", tJSON, str(`{"a":`)),
	bad("pg numeric exponent", tPGNumeric, str("1e3")),
	bad("pg numeric lower-case nan", tPGNumeric, str("nan")),
	bad("pg numeric infinity", tPGNumeric, str("Infinity")),
	bad("pg numeric number", tPGNumeric, num(1.5)),
	bad("pg jsonb truncated", tPGJSONB, str(`{"a":`)),
	bad("pg jsonb number", tPGJSONB, num(1)),
	bad("pg oid fraction", tPGOID, str("1.5")),
	bad("array pg numeric bad element", arrayOf(tPGNumeric), list(str("1.2.3"))),
	bad("array pg jsonb bad element", arrayOf(tPGJSONB), list(str("{"))),
	bad("array pg oid bad element", arrayOf(tPGOID), list(str("x"))),
	bad("json empty", tJSON, str("")),
	bad("interval text", tInterval, str("1 year")),
	bad("interval P only", tInterval, str("P")),
	bad("interval T without time", tInterval, str("P1YT")),
	bad("struct too few fields", tStruct, list(str("1"))),
	bad("struct too many fields", tStruct, list(str("1"), str("a"), null(), null())),
	bad("struct bad INT64 field", tStruct, list(str("x"), str("a"), null())),
	bad("struct bad array field", tStruct, list(str("1"), str("a"), list(boolv(true)))),
	bad("struct array field not a list", tStruct, list(str("1"), str("a"), str("1.5"))),
	bad("array struct bad element", arrayOf(tStruct), list(list(str("1"), str("a"), null()), list(str("1.5"), null(), null()))),
	bad("array struct element wrong kind", arrayOf(tStruct), list(str("1"))),
	bad("array int64 bad element", arrayOf(tInt64), list(str("1"), str("1e3"))),
	bad("array int64 number element", arrayOf(tInt64), list(num(1))),
	bad("array bool string element", arrayOf(tBool), list(str("true"))),
	bad("array float64 bad element", arrayOf(tFloat64), list(str("nan"))),
	bad("array date bad element", arrayOf(tDate), list(str("2023-02-29"))),
	bad("array timestamp bad element", arrayOf(tTimestamp), list(str("2023-02-29T00:00:00Z"))),
	bad("array bytes bad element", arrayOf(tBytes), list(str("AQI"))),
	bad("array numeric bad element", arrayOf(tNumeric), list(str("1e3"))),
	bad("array json bad element", arrayOf(tJSON), list(str("{"))),
	bad("array uuid bad element", arrayOf(tUUID), list(str("x"))),
	bad("array interval bad element", arrayOf(tInterval), list(str("x"))),
	bad("array string list element", arrayOf(tString), list(list())),
	{name: "native bad int64", typ: arrayOf(tInt64), in: enc(list(str("x"))), opts: native},
}

// wireCases are values whose protobuf encoding is broken.
var wireCases = []badCase{
	{name: "truncated string", typ: tString, in: truncated(str("hello"))},
	{name: "truncated int64", typ: tInt64, in: truncated(str("12345"))},
	{name: "truncated number", typ: tFloat64, in: truncated(num(1.5))},
	{name: "truncated bytes", typ: tBytes, in: truncated(str("AQID"))},
	{name: "truncated timestamp", typ: tTimestamp, in: truncated(str("2024-01-01T00:00:00Z"))},
	{name: "truncated list", typ: arrayOf(tInt64), in: truncated(list(str("1"), str("2")))},
	{name: "truncated struct", typ: tStruct, in: truncated(list(str("1"), str("a"), null()))},
	{name: "bad tag", typ: tString, in: []byte{0xff}},
	{name: "field number zero", typ: tString, in: []byte{0x02, 0x00}},
	{name: "end group", typ: tBool, in: []byte{0x0c}},
	{name: "overlong varint", typ: tBool, in: []byte{0x20, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}},
	{name: "truncated fixed64", typ: tFloat64, in: []byte{0x11, 1, 2, 3}},
	{name: "truncated element", typ: arrayOf(tString), in: listBytes(enc(str("a")), []byte{0x1a, 0x05, 'a'})},
	{name: "bad element tag", typ: arrayOf(tInt64), in: listBytes([]byte{0xff})},
	{name: "truncated element in list", typ: arrayOf(tInt64), in: func() []byte {
		// ListValue with a values field whose length overruns it.
		l := protowire.AppendTag(nil, 1, protowire.BytesType)
		l = append(l, 0x10, 0x1a)
		b := protowire.AppendTag(nil, 6, protowire.BytesType)
		return protowire.AppendBytes(b, l)
	}()},
	{name: "garbage list field", typ: arrayOf(tBool), in: func() []byte {
		b := protowire.AppendTag(nil, 6, protowire.BytesType)
		return protowire.AppendBytes(b, []byte{0x0f})
	}()},
	{name: "truncated element in struct", typ: tStruct, in: listBytes(enc(str("1")), enc(str("a")), []byte{0x1a, 0x05})},
	{name: "truncated element in array of struct", typ: arrayOf(tStruct), in: listBytes(listBytes(enc(str("1")), []byte{0x1a, 0x09}, enc(null())))},
}

// kindValues has one value of every google.protobuf.Value kind.
var kindValues = []struct {
	kind string
	v    *structpb.Value
}{
	{"number", num(1)},
	{"string", str("x")},
	{"bool", boolv(true)},
	{"list", list()},
	{"struct", emptyStruct()},
	{"unset", unset()},
}

// acceptsKind reports whether a column of type t can hold a value of kind
// (for "string", the sample string "x").
func acceptsKind(t *spannerpb.Type, kind string) bool {
	switch t.GetCode() {
	case spannerpb.TypeCode_BOOL:
		return kind == "bool"
	case spannerpb.TypeCode_FLOAT64, spannerpb.TypeCode_FLOAT32:
		return kind == "number"
	case spannerpb.TypeCode_STRING:
		return kind == "string"
	case spannerpb.TypeCode_ARRAY, spannerpb.TypeCode_STRUCT:
		// An empty list is a valid empty array; a struct needs its fields.
		return kind == "list" && t.GetCode() == spannerpb.TypeCode_ARRAY
	}
	return false // "x" is not valid text for any other type
}

// wrongKindCases puts every unacceptable kind into every column type.
func wrongKindCases() []badCase {
	var cs []badCase
	for _, t := range allTypes {
		for _, k := range kindValues {
			if acceptsKind(t, k.kind) {
				continue
			}
			cs = append(cs, bad(decode.TypeName(t)+" given "+k.kind, t, k.v))
		}
	}
	return cs
}

func allBadCases() []badCase {
	cs := append([]badCase(nil), contentCases...)
	cs = append(cs, wireCases...)
	return append(cs, wrongKindCases()...)
}

// TestMalformedValues checks that every bad value fails with an error that
// names its column, matches ErrMalformed and has a gRPC code, in every mode,
// and that the columns around it do not matter.
func TestMalformedValues(t *testing.T) {
	for _, c := range allBadCases() {
		t.Run(c.name, func(t *testing.T) {
			for _, raw := range []bool{false, true} {
				o := c.opts
				o.Raw = raw
				p := mustPlan(t, o, fld("ok_before", tInt64), fld("bad_col", c.typ), fld("ok_after", tString))
				d := decode.NewRowDecoder(p, raw)
				dest := make([]driver.Value, 3)
				err := d.Decode([][]byte{enc(str("1")), c.in, enc(str("x"))}, dest)
				checkColumnError(t, err, 1, "bad_col")
				var ce *decode.ColumnError
				if errors.As(err, &ce) && ce.Type != decode.TypeName(c.typ) {
					t.Errorf("ColumnError.Type = %q, want %q", ce.Type, decode.TypeName(c.typ))
				}
				// The decoder stays usable after an error.
				if err := d.Decode([][]byte{enc(str("2")), enc(null()), enc(str("y"))}, dest); err != nil {
					t.Errorf("decode after error: %v", err)
				}
			}
		})
	}
}

// TestNativeArrayNullElement: a NULL element with decode_to_native_arrays is a
// client-side condition (FailedPrecondition, typed, with advice), not bad data.
func TestNativeArrayNullElement(t *testing.T) {
	for _, elem := range []*spannerpb.Type{tInt64, tEnum, tString, tBool, tFloat64, tFloat32, tDate, tTimestamp, tUUID} {
		t.Run(decode.TypeName(elem), func(t *testing.T) {
			_, err := decodeOne(t, native, arrayOf(elem), enc(list(nonNullOf(elem), null())))
			checkClientColumnError(t, err, 0, "c", codes.FailedPrecondition)
			var ne *decode.NullElementError
			if !errors.As(err, &ne) || ne.Index != 1 {
				t.Fatalf("err = %v, want a *NullElementError for element 1", err)
			}
			for _, want := range []string{"element 1", "NULL", "decode_to_native_arrays", "spanner.Null", "filter"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not mention %q", err, want)
				}
			}
		})
	}
	_, err := decodeOne(t, native, arrayOf(tInt64), enc(list(null())))
	if !strings.Contains(err.Error(), "[]int64") {
		t.Errorf("error %q does not name the Go type []int64", err)
	}
}

// nonNullOf is a valid non-NULL wire value of a scalar type.
func nonNullOf(t *spannerpb.Type) *structpb.Value {
	switch t.GetCode() {
	case spannerpb.TypeCode_BOOL:
		return boolv(true)
	case spannerpb.TypeCode_FLOAT64, spannerpb.TypeCode_FLOAT32:
		return num(1)
	case spannerpb.TypeCode_DATE:
		return str("2024-01-02")
	case spannerpb.TypeCode_TIMESTAMP:
		return str("2024-01-02T03:04:05Z")
	case spannerpb.TypeCode_UUID:
		return str(uuidA)
	}
	return str("1")
}

func TestPlanErrors(t *testing.T) {
	unsupported := func(t *testing.T, err error, index int, name string, code spannerpb.TypeCode) {
		t.Helper()
		checkClientColumnError(t, err, index, name, codes.Unimplemented)
		var ue *decode.UnsupportedTypeError
		if !errors.As(err, &ue) || ue.Code != code {
			t.Fatalf("err = %v, want an *UnsupportedTypeError for type code %v", err, code)
		}
		for _, want := range []string{code.String(), "CAST"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error %q does not mention %q", err, want)
			}
		}
	}
	t.Run("unsupported type code", func(t *testing.T) {
		_, err := decode.PlanFor(rowType(fld("a", tInt64), fld("weird", tc(99))), decode.Options{})
		unsupported(t, err, 1, "weird", 99)
	})
	t.Run("unspecified type", func(t *testing.T) {
		_, err := decode.PlanFor(rowType(fld("nothing", &spannerpb.Type{})), decode.Options{})
		unsupported(t, err, 0, "nothing", spannerpb.TypeCode_TYPE_CODE_UNSPECIFIED)
	})
	t.Run("array of array", func(t *testing.T) {
		_, err := decode.PlanFor(rowType(fld("aa", arrayOf(arrayOf(tInt64)))), decode.Options{})
		unsupported(t, err, 0, "aa", spannerpb.TypeCode_ARRAY)
	})
	t.Run("array without element type", func(t *testing.T) {
		_, err := decode.PlanFor(rowType(fld("a", &spannerpb.Type{Code: spannerpb.TypeCode_ARRAY})), decode.Options{})
		unsupported(t, err, 0, "a", spannerpb.TypeCode_TYPE_CODE_UNSPECIFIED)
	})
	t.Run("broken row type", func(t *testing.T) {
		_, err := decode.PlanFor([]byte{0x0a, 0x05, 0x01}, decode.Options{})
		if !errors.Is(err, decode.ErrMalformed) {
			t.Fatalf("err = %v, want ErrMalformed", err)
		}
		if c := status.Code(err); c != codes.Internal {
			t.Errorf("code = %v, want Internal", c)
		}
	})
}

// TestProtocolErrorCodes checks the gRPC codes of message-level errors.
func TestProtocolErrorCodes(t *testing.T) {
	var m decode.Message
	err := m.Scan([]byte{0x12, 0x05, 0x01})
	if !errors.Is(err, decode.ErrMalformed) || status.Code(err) != codes.Internal {
		t.Errorf("truncated message: err = %v, code %v; want ErrMalformed, Internal", err, status.Code(err))
	}
	var pe *decode.ProtocolError
	if !errors.As(err, &pe) {
		t.Errorf("truncated message: %T is not a *ProtocolError", err)
	}
	err = m.Scan(prs(&spannerpb.PartialResultSet{ChunkedValue: true}))
	if !errors.Is(err, decode.ErrMalformed) || status.Code(err) != codes.FailedPrecondition {
		t.Errorf("chunk without values: err = %v, code %v; want ErrMalformed, FailedPrecondition", err, status.Code(err))
	}
}
