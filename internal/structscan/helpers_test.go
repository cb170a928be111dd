package structscan

import (
	"os"
	"testing"

	"cloud.google.com/go/spanner"
	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"go.uber.org/goleak"
	"google.golang.org/protobuf/types/known/structpb"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.IgnoreTopFunction("go.opencensus.io/stats/view.(*worker).start"))
	os.Exit(0)
}

func typ(c spannerpb.TypeCode) *spannerpb.Type { return &spannerpb.Type{Code: c} }

func arrayOf(t *spannerpb.Type) *spannerpb.Type {
	return &spannerpb.Type{Code: spannerpb.TypeCode_ARRAY, ArrayElementType: t}
}

func fld(name string, t *spannerpb.Type) *spannerpb.StructType_Field {
	return &spannerpb.StructType_Field{Name: name, Type: t}
}

func structOf(fs ...*spannerpb.StructType_Field) *spannerpb.Type {
	return &spannerpb.Type{Code: spannerpb.TypeCode_STRUCT, StructType: &spannerpb.StructType{Fields: fs}}
}

var (
	tInt64  = typ(spannerpb.TypeCode_INT64)
	tString = typ(spannerpb.TypeCode_STRING)
	tFloat  = typ(spannerpb.TypeCode_FLOAT64)
	tBool   = typ(spannerpb.TypeCode_BOOL)
	tTime   = typ(spannerpb.TypeCode_TIMESTAMP)
	tDate   = typ(spannerpb.TypeCode_DATE)
	tBytes  = typ(spannerpb.TypeCode_BYTES)
	tJSON   = typ(spannerpb.TypeCode_JSON)
	null    = structpb.NewNullValue()
)

func str(s string) *structpb.Value { return structpb.NewStringValue(s) }

func list(vs ...*structpb.Value) *structpb.Value {
	return structpb.NewListValue(&structpb.ListValue{Values: vs})
}

// row builds the spanner.NullRow the driver's decoder makes for a STRUCT
// value of type st (spanner.NewRow over GenericColumnValues).
func row(t testing.TB, st *spannerpb.Type, v *structpb.Value) spanner.NullRow {
	t.Helper()
	if _, ok := v.GetKind().(*structpb.Value_NullValue); ok {
		return spanner.NullRow{}
	}
	fields := st.GetStructType().GetFields()
	names := make([]string, len(fields))
	vals := make([]any, len(fields))
	for i, f := range fields {
		names[i] = f.GetName()
		vals[i] = spanner.GenericColumnValue{Type: f.GetType(), Value: v.GetListValue().GetValues()[i]}
	}
	r, err := spanner.NewRow(names, vals)
	if err != nil {
		t.Fatal(err)
	}
	return spanner.NullRow{Row: *r, Valid: true}
}

func rows(t testing.TB, st *spannerpb.Type, vs ...*structpb.Value) []spanner.NullRow {
	out := make([]spanner.NullRow, len(vs))
	for i, v := range vs {
		out[i] = row(t, st, v)
	}
	return out
}
