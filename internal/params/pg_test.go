package params

import (
	"database/sql/driver"
	"testing"

	"cloud.google.com/go/spanner"
	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"
)

// TestPostgreSQLParams: spanner.PGNumeric and spanner.PGJsonB, their NULLs
// and slices, are sent as go-sql-spanner sends them: typed, with the
// PG_NUMERIC / PG_JSONB annotation (NaN is PG_NUMERIC's text). A pointer
// to a PGNumeric goes through its driver.Valuer, as there, and becomes an
// untyped string.
func TestPostgreSQLParams(t *testing.T) {
	pgNumeric := &spannerpb.Type{Code: spannerpb.TypeCode_NUMERIC, TypeAnnotation: spannerpb.TypeAnnotationCode_PG_NUMERIC}
	pgJSONB := &spannerpb.Type{Code: spannerpb.TypeCode_JSON, TypeAnnotation: spannerpb.TypeAnnotationCode_PG_JSONB}
	arrayOf := func(t *spannerpb.Type) *spannerpb.Type {
		return &spannerpb.Type{Code: spannerpb.TypeCode_ARRAY, ArrayElementType: t}
	}
	s, null := structpb.NewStringValue, structpb.NewNullValue()
	list := func(vs ...*structpb.Value) *structpb.Value {
		return structpb.NewListValue(&structpb.ListValue{Values: vs})
	}
	for _, c := range []struct {
		in   any
		val  *structpb.Value
		typ  *spannerpb.Type // nil: untyped
		wire string          // the Type on the wire: code (field 1), element type (2), type_annotation (4)
	}{
		{spanner.PGNumeric{Numeric: "123.456", Valid: true}, s("123.456"), pgNumeric, "080a2002"},
		{spanner.PGNumeric{Numeric: "NaN", Valid: true}, s("NaN"), pgNumeric, "080a2002"},
		{spanner.PGNumeric{}, null, pgNumeric, "080a2002"},
		{[]spanner.PGNumeric{{Numeric: "1", Valid: true}, {}, {Numeric: "NaN", Valid: true}}, list(s("1"), null, s("NaN")), arrayOf(pgNumeric), "0808120408" + "0a2002"},
		{[]spanner.PGNumeric(nil), null, arrayOf(pgNumeric), "0808120408" + "0a2002"},
		{spanner.PGJsonB{Value: map[string]any{"a": 1}, Valid: true}, s(`{"a":1}`), pgJSONB, "080b2003"},
		{spanner.PGJsonB{}, null, pgJSONB, "080b2003"},
		{[]spanner.PGJsonB{{Value: []any{"x"}, Valid: true}, {}}, list(s(`["x"]`), null), arrayOf(pgJSONB), "0808120408" + "0b2003"},
		{&spanner.PGNumeric{Numeric: "2.5", Valid: true}, s("2.5"), nil, ""},
		{(*spanner.PGNumeric)(nil), null, nil, ""},
	} {
		nv := driver.NamedValue{Ordinal: 1, Value: c.in}
		if err := Convert(&nv); err != nil {
			t.Fatalf("%T %v: %v", c.in, c.in, err)
		}
		_, params, types, err := Build("SELECT @p1", []driver.NamedValue{{Name: "p1", Value: nv.Value}})
		if err != nil {
			t.Fatalf("%T %v: %v", c.in, c.in, err)
		}
		if got := params.GetFields()["p1"]; !proto.Equal(got, c.val) {
			t.Errorf("%T %v: value %v, want %v", c.in, c.in, prototext.Format(got), prototext.Format(c.val))
		}
		got := types["p1"]
		if !proto.Equal(got, c.typ) {
			t.Errorf("%T %v: type %v, want %v", c.in, c.in, got, c.typ)
		}
		if c.typ != nil {
			b, err := proto.MarshalOptions{Deterministic: true}.Marshal(got)
			if err != nil {
				t.Fatal(err)
			}
			if hex := fmtHex(b); hex != c.wire {
				t.Errorf("%T %v: type on the wire %s, want %s", c.in, c.in, hex, c.wire)
			}
		}
	}
}

func fmtHex(b []byte) string {
	const digits = "0123456789abcdef"
	out := make([]byte, 0, 2*len(b))
	for _, x := range b {
		out = append(out, digits[x>>4], digits[x&15])
	}
	return string(out)
}
