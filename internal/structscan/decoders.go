package structscan

import (
	"database/sql"
	"encoding/base64"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"time"
	"unsafe"

	"cloud.google.com/go/civil"
	"cloud.google.com/go/spanner"
	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/protobuf/types/known/structpb"
)

// decoderFor picks the decoder of STRUCT field type st into Go type ft.
// Common types decode directly; a STRUCT or ARRAY<STRUCT> into a Go struct,
// pointer or slice of them recurses; everything else goes to the official
// client's decoder (GenericColumnValue.Decode), so every type Row.ToStruct
// accepts is accepted, with its errors.
func decoderFor(ft reflect.Type, st *spannerpb.Type) (decoder, error) {
	code := st.GetCode()
	text := code == spannerpb.TypeCode_STRING || code == spannerpb.TypeCode_DATE || code == spannerpb.TypeCode_UUID
	integer := code == spannerpb.TypeCode_INT64 || code == spannerpb.TypeCode_ENUM
	float := code == spannerpb.TypeCode_FLOAT64 || code == spannerpb.TypeCode_FLOAT32
	switch {
	case ft == reflect.TypeFor[string]() && text:
		return plain(parseString), nil
	case ft == reflect.TypeFor[*string]() && text:
		return pointer(parseString), nil
	case ft == reflect.TypeFor[spanner.NullString]() && code == spannerpb.TypeCode_STRING:
		return nullable(parseString, func(s string) spanner.NullString { return spanner.NullString{StringVal: s, Valid: true} }), nil
	case ft == reflect.TypeFor[sql.NullString]() && text:
		return nullable(parseString, func(s string) sql.NullString { return sql.NullString{String: s, Valid: true} }), nil
	case ft == reflect.TypeFor[int64]() && integer:
		return plain(parseInt64), nil
	case ft == reflect.TypeFor[int]() && integer:
		return plain(func(v *structpb.Value) (int, error) { n, err := parseInt64(v); return int(n), err }), nil
	case ft == reflect.TypeFor[*int64]() && integer:
		return pointer(parseInt64), nil
	case ft == reflect.TypeFor[spanner.NullInt64]() && integer:
		return nullable(parseInt64, func(n int64) spanner.NullInt64 { return spanner.NullInt64{Int64: n, Valid: true} }), nil
	case ft == reflect.TypeFor[sql.NullInt64]() && integer:
		return nullable(parseInt64, func(n int64) sql.NullInt64 { return sql.NullInt64{Int64: n, Valid: true} }), nil
	case ft == reflect.TypeFor[float64]() && float:
		return plain(parseFloat64), nil
	case ft == reflect.TypeFor[*float64]() && float:
		return pointer(parseFloat64), nil
	case ft == reflect.TypeFor[spanner.NullFloat64]() && float:
		return nullable(parseFloat64, func(f float64) spanner.NullFloat64 { return spanner.NullFloat64{Float64: f, Valid: true} }), nil
	case ft == reflect.TypeFor[sql.NullFloat64]() && float:
		return nullable(parseFloat64, func(f float64) sql.NullFloat64 { return sql.NullFloat64{Float64: f, Valid: true} }), nil
	case ft == reflect.TypeFor[bool]() && code == spannerpb.TypeCode_BOOL:
		return plain(parseBool), nil
	case ft == reflect.TypeFor[*bool]() && code == spannerpb.TypeCode_BOOL:
		return pointer(parseBool), nil
	case ft == reflect.TypeFor[spanner.NullBool]() && code == spannerpb.TypeCode_BOOL:
		return nullable(parseBool, func(b bool) spanner.NullBool { return spanner.NullBool{Bool: b, Valid: true} }), nil
	case ft == reflect.TypeFor[sql.NullBool]() && code == spannerpb.TypeCode_BOOL:
		return nullable(parseBool, func(b bool) sql.NullBool { return sql.NullBool{Bool: b, Valid: true} }), nil
	case ft == reflect.TypeFor[time.Time]() && code == spannerpb.TypeCode_TIMESTAMP:
		return plain(parseTime), nil
	case ft == reflect.TypeFor[*time.Time]() && code == spannerpb.TypeCode_TIMESTAMP:
		return pointer(parseTime), nil
	case ft == reflect.TypeFor[spanner.NullTime]() && code == spannerpb.TypeCode_TIMESTAMP:
		return nullable(parseTime, func(t time.Time) spanner.NullTime { return spanner.NullTime{Time: t, Valid: true} }), nil
	case ft == reflect.TypeFor[sql.NullTime]() && code == spannerpb.TypeCode_TIMESTAMP:
		return nullable(parseTime, func(t time.Time) sql.NullTime { return sql.NullTime{Time: t, Valid: true} }), nil
	case ft == reflect.TypeFor[civil.Date]() && code == spannerpb.TypeCode_DATE:
		return plain(parseDate), nil
	case ft == reflect.TypeFor[spanner.NullDate]() && code == spannerpb.TypeCode_DATE:
		return nullable(parseDate, func(d civil.Date) spanner.NullDate { return spanner.NullDate{Date: d, Valid: true} }), nil
	case ft == reflect.TypeFor[[]byte]() && (code == spannerpb.TypeCode_BYTES || code == spannerpb.TypeCode_PROTO):
		return nullable(parseBytes, func(b []byte) []byte { return b }), nil
	case code == spannerpb.TypeCode_STRUCT && isStruct(ft):
		return nestedValue(ft, st.GetStructType())
	case code == spannerpb.TypeCode_STRUCT && ft.Kind() == reflect.Pointer && isStruct(ft.Elem()):
		return nestedPointer(ft.Elem(), st.GetStructType())
	case code == spannerpb.TypeCode_ARRAY && st.GetArrayElementType().GetCode() == spannerpb.TypeCode_STRUCT && ft.Kind() == reflect.Slice:
		if e := ft.Elem(); isStruct(e) || e.Kind() == reflect.Pointer && isStruct(e.Elem()) {
			return nestedSlice(ft, st.GetArrayElementType().GetStructType())
		}
	}
	return official(ft, st), nil
}

// isStruct reports whether t is a Go struct to fill field by field: not one
// of the official client's own STRUCT holders.
func isStruct(t reflect.Type) bool {
	return t.Kind() == reflect.Struct && t != reflect.TypeFor[spanner.NullRow]() &&
		t != reflect.TypeFor[spanner.Row]() && t != reflect.TypeFor[spanner.GenericColumnValue]()
}

// official decodes with the official client, into any type it accepts.
func official(ft reflect.Type, st *spannerpb.Type) decoder {
	return func(p unsafe.Pointer, v *structpb.Value) error {
		if v == nil {
			return errMissing
		}
		return spanner.GenericColumnValue{Type: st, Value: v}.Decode(reflect.NewAt(ft, p).Interface())
	}
}

func plain[T any](parse func(*structpb.Value) (T, error)) decoder {
	return func(p unsafe.Pointer, v *structpb.Value) error {
		if isNull(v) {
			return errNull
		}
		x, err := parse(v)
		if err != nil {
			return err
		}
		*(*T)(p) = x
		return nil
	}
}

func pointer[T any](parse func(*structpb.Value) (T, error)) decoder {
	return func(p unsafe.Pointer, v *structpb.Value) error {
		if isNull(v) {
			*(**T)(p) = nil
			return nil
		}
		x, err := parse(v)
		if err != nil {
			return err
		}
		*(**T)(p) = &x
		return nil
	}
}

func nullable[T, N any](parse func(*structpb.Value) (T, error), wrap func(T) N) decoder {
	return func(p unsafe.Pointer, v *structpb.Value) error {
		if isNull(v) {
			var zero N
			*(*N)(p) = zero
			return nil
		}
		x, err := parse(v)
		if err != nil {
			return err
		}
		*(*N)(p) = wrap(x)
		return nil
	}
}

func nestedValue(t reflect.Type, st *spannerpb.StructType) (decoder, error) {
	sub := infoOf(t).plan(t, st.GetFields())
	if sub.err != nil {
		return nil, sub.err
	}
	return func(p unsafe.Pointer, v *structpb.Value) error {
		if isNull(v) {
			return errNull
		}
		lv, err := parseList(v)
		if err != nil {
			return err
		}
		return sub.decodeList(p, lv)
	}, nil
}

func nestedPointer(t reflect.Type, st *spannerpb.StructType) (decoder, error) {
	sub := infoOf(t).plan(t, st.GetFields())
	if sub.err != nil {
		return nil, sub.err
	}
	return func(p unsafe.Pointer, v *structpb.Value) error {
		if isNull(v) {
			*(*unsafe.Pointer)(p) = nil
			return nil
		}
		lv, err := parseList(v)
		if err != nil {
			return err
		}
		s := reflect.New(t).UnsafePointer()
		if err := sub.decodeList(s, lv); err != nil {
			return err
		}
		*(*unsafe.Pointer)(p) = s
		return nil
	}, nil
}

// nestedSlice decodes an ARRAY<STRUCT> field into []S or []*S; the structs
// of []*S share one block.
func nestedSlice(ft reflect.Type, st *spannerpb.StructType) (decoder, error) {
	elem := ft.Elem()
	ptrs := elem.Kind() == reflect.Pointer
	s := elem
	if ptrs {
		s = elem.Elem()
	}
	sub := infoOf(s).plan(s, st.GetFields())
	if sub.err != nil {
		return nil, sub.err
	}
	return func(p unsafe.Pointer, v *structpb.Value) error {
		dst := reflect.NewAt(ft, p).Elem()
		if isNull(v) {
			dst.SetZero()
			return nil
		}
		lv, err := parseList(v)
		if err != nil {
			return err
		}
		out := reflect.MakeSlice(ft, len(lv), len(lv))
		var block unsafe.Pointer
		if ptrs && len(lv) > 0 {
			block = reflect.MakeSlice(reflect.SliceOf(s), len(lv), len(lv)).UnsafePointer()
		}
		base := out.UnsafePointer()
		for i, e := range lv {
			at := unsafe.Add(base, uintptr(i)*elem.Size())
			if isNull(e) {
				if !ptrs {
					return fmt.Errorf("element %d: %w", i, errNull)
				}
				continue
			}
			target := at
			if ptrs {
				target = unsafe.Add(block, uintptr(i)*s.Size())
			}
			el, err := parseList(e)
			if err == nil {
				err = sub.decodeList(target, el)
			}
			if err != nil {
				return fmt.Errorf("element %d: %w", i, err)
			}
			if ptrs {
				*(*unsafe.Pointer)(at) = target
			}
		}
		dst.Set(out)
		return nil
	}, nil
}

var errMissing = fmt.Errorf("no value")

func isNull(v *structpb.Value) bool {
	_, ok := v.GetKind().(*structpb.Value_NullValue)
	return ok
}

func kindError(want string, v *structpb.Value) error {
	if v == nil {
		return errMissing
	}
	return fmt.Errorf("want %s, got %T", want, v.GetKind())
}

func parseString(v *structpb.Value) (string, error) {
	if s, ok := v.GetKind().(*structpb.Value_StringValue); ok {
		return s.StringValue, nil
	}
	return "", kindError("a string value", v)
}

func parseInt64(v *structpb.Value) (int64, error) {
	s, err := parseString(v)
	if err != nil {
		return 0, err
	}
	return strconv.ParseInt(s, 10, 64)
}

func parseFloat64(v *structpb.Value) (float64, error) {
	switch k := v.GetKind().(type) {
	case *structpb.Value_NumberValue:
		return k.NumberValue, nil
	case *structpb.Value_StringValue:
		switch k.StringValue {
		case "NaN":
			return math.NaN(), nil
		case "Infinity":
			return math.Inf(1), nil
		case "-Infinity":
			return math.Inf(-1), nil
		}
		return 0, fmt.Errorf("bad FLOAT64 text %q", k.StringValue)
	}
	return 0, kindError("a number", v)
}

func parseBool(v *structpb.Value) (bool, error) {
	if b, ok := v.GetKind().(*structpb.Value_BoolValue); ok {
		return b.BoolValue, nil
	}
	return false, kindError("a bool value", v)
}

func parseTime(v *structpb.Value) (time.Time, error) {
	s, err := parseString(v)
	if err != nil {
		return time.Time{}, err
	}
	// As the official client parses it (Spanner always sends UTC, "Z").
	return time.Parse(time.RFC3339Nano, s)
}

func parseDate(v *structpb.Value) (civil.Date, error) {
	s, err := parseString(v)
	if err != nil {
		return civil.Date{}, err
	}
	return civil.ParseDate(s)
}

func parseBytes(v *structpb.Value) ([]byte, error) {
	s, err := parseString(v)
	if err != nil {
		return nil, err
	}
	return base64.StdEncoding.DecodeString(s)
}

func parseList(v *structpb.Value) ([]*structpb.Value, error) {
	if l, ok := v.GetKind().(*structpb.Value_ListValue); ok {
		return l.ListValue.GetValues(), nil
	}
	return nil, kindError("a list value", v)
}
