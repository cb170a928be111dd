package decode

import (
	"database/sql/driver"
	"fmt"

	"cloud.google.com/go/spanner"
	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"
)

// STRUCT values decode to spanner.NullRow, the official client's row type, so
// that fields are read with Row.Column / Row.ToStruct exactly as users of that
// client already do. STRUCT is rare in results; it is not on the fast path.

func parseStruct(st *spannerpb.StructType) func(Value) (spanner.NullRow, error) {
	fields := st.GetFields()
	names := make([]string, len(fields))
	checks := make([]func(Value) error, len(fields))
	for i, f := range fields {
		names[i] = f.GetName()
		checks[i] = fieldCheck(f.GetType())
	}
	return func(v Value) (spanner.NullRow, error) {
		if v.Kind == KindNull {
			return spanner.NullRow{}, nil
		}
		if v.Kind != KindList {
			return spanner.NullRow{}, badValue("a list of STRUCT fields", v)
		}
		// Check every field against its type now, so that bad data is
		// reported for this column rather than later by Row.Column.
		it := Elements(v.Bytes)
		i := 0
		for e, ok := it.Next(); ok; e, ok = it.Next() {
			if i == len(fields) {
				return spanner.NullRow{}, badValue("one value per STRUCT field", v)
			}
			fv, err := ParseValue(e)
			if err != nil {
				return spanner.NullRow{}, err
			}
			if fv.Kind != KindNull && checks[i] != nil {
				if err := checks[i](fv); err != nil {
					return spanner.NullRow{}, fmt.Errorf("field %d %q: %w", i, names[i], err)
				}
			}
			i++
		}
		if err := it.Err(); err != nil {
			return spanner.NullRow{}, err
		}
		var vals []*structpb.Value
		ok := false
		if buildStructValues {
			vals, ok = buildValues(v.Bytes)
		}
		if !ok {
			var list structpb.ListValue
			if err := proto.Unmarshal(v.Bytes, &list); err != nil {
				return spanner.NullRow{}, &ProtocolError{What: "STRUCT value", Err: err, Code: codes.Internal}
			}
			vals = list.Values
		}
		if len(vals) != len(fields) {
			return spanner.NullRow{}, badValue("one value per STRUCT field", v)
		}
		row, err := makeRow(fields, vals)
		if err != nil {
			return spanner.NullRow{}, err
		}
		return spanner.NullRow{Row: row, Valid: true}, nil
	}
}

// fieldCheck returns a validator for non-NULL values of a STRUCT field of
// type t, or nil for a type this package does not decode (its values are
// passed on to spanner.Row unchecked).
func fieldCheck(t *spannerpb.Type) func(Value) error {
	switch t.GetCode() {
	case codeBool:
		return check(parseBool)
	case codeInt64, codeEnum:
		return check(parseInt64)
	case codeFloat64, codeFloat32:
		return check(parseFloat64)
	case codeString:
		return check(parseString)
	case codeBytes, codeProto:
		return check(parseBytes)
	case codeTimestamp:
		return check(parseTimestamp)
	case codeDate:
		return check(parseDate)
	case codeUUID:
		return check(parseUUID)
	case codeNumeric:
		return check(parseNumericString) // PG_NUMERIC may be NaN
	case codeJSON:
		return check(parseJSON)
	case codeInterval:
		return check(parseInterval)
	case codeArray:
		if d := arrayDecoderFor(t.GetArrayElementType(), Options{}); d != nil {
			return func(v Value) error { _, err := d(v, nil); return err }
		}
	case codeStruct:
		return check(parseStruct(t.GetStructType()))
	}
	return nil
}

func check[T any](parse func(Value) (T, error)) func(Value) error {
	return func(v Value) error { _, err := parse(v); return err }
}

func structElem(st *spannerpb.StructType) elemFunc[spanner.NullRow] {
	return parseStruct(st)
}

// structDecoder decodes a STRUCT column; NULL is nil like other scalars.
func structDecoder(st *spannerpb.StructType) valueFunc {
	parse := parseStruct(st)
	return func(v Value, _ *arena) (driver.Value, error) {
		if v.Kind == KindNull {
			return nil, nil
		}
		r, err := parse(v)
		if err != nil {
			return nil, err
		}
		return r, nil
	}
}
