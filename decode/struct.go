package decode

import (
	"database/sql/driver"

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
	for i, f := range fields {
		names[i] = f.GetName()
	}
	return func(v Value) (spanner.NullRow, error) {
		if v.Kind == KindNull {
			return spanner.NullRow{}, nil
		}
		if v.Kind != KindList {
			return spanner.NullRow{}, badValue("a list of STRUCT fields", v)
		}
		var list structpb.ListValue
		if err := proto.Unmarshal(v.Bytes, &list); err != nil {
			return spanner.NullRow{}, &ProtocolError{What: "STRUCT value", Err: err, Code: codes.Internal}
		}
		if len(list.Values) != len(fields) {
			return spanner.NullRow{}, badValue("one value per STRUCT field", v)
		}
		vals := make([]any, len(fields))
		for i, f := range fields {
			vals[i] = spanner.GenericColumnValue{Type: f.GetType(), Value: list.Values[i]}
		}
		row, err := spanner.NewRow(names, vals)
		if err != nil {
			return spanner.NullRow{}, err
		}
		return spanner.NullRow{Row: *row, Valid: true}, nil
	}
}

func structElem(st *spannerpb.StructType) elemFunc[spanner.NullRow] {
	return parseStruct(st)
}

// structDecoder decodes a STRUCT column; NULL is nil like other scalars.
func structDecoder(st *spannerpb.StructType) decodeFunc {
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
