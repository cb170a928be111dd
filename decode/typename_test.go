package decode_test

import (
	"testing"

	"cloud.google.com/go/spanner/apiv1/spannerpb"

	"github.com/spannerfast/spannerfast/decode"
)

func TestTypeName(t *testing.T) {
	i64 := &spannerpb.Type{Code: spannerpb.TypeCode_INT64}
	str := &spannerpb.Type{Code: spannerpb.TypeCode_STRING}
	arr := func(e *spannerpb.Type) *spannerpb.Type {
		return &spannerpb.Type{Code: spannerpb.TypeCode_ARRAY, ArrayElementType: e}
	}
	st := func(fs ...*spannerpb.StructType_Field) *spannerpb.Type {
		return &spannerpb.Type{Code: spannerpb.TypeCode_STRUCT, StructType: &spannerpb.StructType{Fields: fs}}
	}
	f := func(n string, t *spannerpb.Type) *spannerpb.StructType_Field {
		return &spannerpb.StructType_Field{Name: n, Type: t}
	}
	for _, c := range []struct {
		t    *spannerpb.Type
		want string
	}{
		{i64, "INT64"},
		{&spannerpb.Type{Code: spannerpb.TypeCode_FLOAT32}, "FLOAT32"},
		{&spannerpb.Type{Code: spannerpb.TypeCode_INTERVAL}, "INTERVAL"},
		{arr(i64), "ARRAY<INT64>"},
		{st(f("a", i64), f("b", str)), "STRUCT<a INT64, b STRING>"},
		{arr(st(f("", i64), f("x", arr(&spannerpb.Type{Code: spannerpb.TypeCode_BYTES})))), "ARRAY<STRUCT<INT64, x ARRAY<BYTES>>>"},
		{st(), "STRUCT<>"},
		{st(f("a b", i64), f("1x", str), f("q`", str)), "STRUCT<`a b` INT64, `1x` STRING, `q\\`` STRING>"},
		{&spannerpb.Type{Code: spannerpb.TypeCode_PROTO, ProtoTypeFqn: "a.B"}, "PROTO<a.B>"},
		{&spannerpb.Type{Code: spannerpb.TypeCode_ENUM}, "ENUM"},
		{&spannerpb.Type{Code: spannerpb.TypeCode_NUMERIC, TypeAnnotation: spannerpb.TypeAnnotationCode_PG_NUMERIC}, "PG_NUMERIC"},
		{&spannerpb.Type{Code: spannerpb.TypeCode_JSON, TypeAnnotation: spannerpb.TypeAnnotationCode_PG_JSONB}, "PG_JSONB"},
	} {
		if got := decode.TypeName(c.t); got != c.want {
			t.Errorf("TypeName = %q, want %q", got, c.want)
		}
	}
}
