package infoschema

import (
	"strconv"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"cloud.google.com/go/spanner/spansql"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/structpb"
)

// Catalog gives the schema INFORMATION_SCHEMA describes. Answer asks for
// it once per query, so that every table a query names (and each
// correlated subquery) sees the same schema.
type Catalog interface {
	Schema() Schema
}

// Query is a query that names INFORMATION_SCHEMA tables, ready to answer.
type Query struct {
	sql       string // as the client sent it, for errors
	rewritten string // for spansql
}

// Prepare recognises a query that names INFORMATION_SCHEMA tables outside
// string literals. ok is false for every other query: the engine answers
// those.
func Prepare(sql string) (q *Query, ok bool) {
	rewritten, ok := rewriteInfoSchema(sql)
	if !ok {
		return nil, false
	}
	return &Query{sql: sql, rewritten: rewritten}, true
}

// Answer evaluates q over the schema cat gives, with the request's
// parameters, and returns the whole result as one PartialResultSet.
// Queries beyond the supported subset are Unimplemented; bad names, types
// and parameters are InvalidArgument.
func (q *Query) Answer(params *structpb.Struct, paramTypes map[string]*spannerpb.Type, cat Catalog) (*spannerpb.PartialResultSet, error) {
	parsed, perr := spansql.ParseQuery(q.rewritten)
	if perr != nil {
		return nil, unimplemented("INFORMATION_SCHEMA query not supported here (%v): %s", perr, q.sql)
	}
	e := &isEval{params: map[string]any{}, ptypes: map[string]spannerpb.TypeCode{}}
	for name, v := range params.GetFields() {
		var err error
		if e.params[name], e.ptypes[name], err = isParam(name, v, paramTypes[name]); err != nil {
			return nil, err
		}
	}
	e.schema = cat.Schema()
	res, err := e.query(parsed, nil)
	if err != nil {
		return nil, err
	}
	return res.partial(), nil
}

// unimplemented and invalid make the test server's errors: the code says
// who is at fault, the prefix that the fake answered, not Spanner.
func unimplemented(format string, args ...any) error {
	return status.Errorf(codes.Unimplemented, "spannerfasttest: "+format, args...)
}

func invalid(format string, args ...any) error {
	return status.Errorf(codes.InvalidArgument, "spannerfasttest: "+format, args...)
}

// isParam converts a query parameter; untyped ones take the type of
// their JSON value.
func isParam(name string, v *structpb.Value, t *spannerpb.Type) (any, spannerpb.TypeCode, error) {
	code := t.GetCode()
	if _, null := v.GetKind().(*structpb.Value_NullValue); null {
		return nil, code, nil
	}
	switch {
	case code == tBool || code == 0 && v.GetKind() != nil && isBoolValue(v):
		return v.GetBoolValue(), tBool, nil
	case code == tInt64:
		n, ok := toInt64(v.GetStringValue())
		if !ok {
			return nil, 0, invalid("query parameter @%s: bad INT64 value %q", name, v.GetStringValue())
		}
		return n, tInt64, nil
	case code == tString || code == 0:
		if _, ok := v.GetKind().(*structpb.Value_StringValue); ok {
			return v.GetStringValue(), tString, nil
		}
	}
	return nil, 0, unimplemented("query parameter @%s of type %s is not supported with INFORMATION_SCHEMA", name, code)
}

func isBoolValue(v *structpb.Value) bool {
	_, ok := v.GetKind().(*structpb.Value_BoolValue)
	return ok
}

// partial encodes the result as one PartialResultSet.
func (r *isResult) partial() *spannerpb.PartialResultSet {
	rt := &spannerpb.StructType{}
	for i, n := range r.names {
		t := r.types[i]
		if t == 0 {
			t = tInt64 // an untyped NULL column; Spanner types it INT64
		}
		rt.Fields = append(rt.Fields, &spannerpb.StructType_Field{Name: n, Type: &spannerpb.Type{Code: t}})
	}
	p := &spannerpb.PartialResultSet{Metadata: &spannerpb.ResultSetMetadata{RowType: rt}}
	for _, row := range r.rows {
		for _, v := range row {
			p.Values = append(p.Values, encodeValue(v))
		}
	}
	return p
}

func encodeValue(v any) *structpb.Value {
	switch x := v.(type) {
	case nil:
		return structpb.NewNullValue()
	case bool:
		return structpb.NewBoolValue(x)
	}
	return structpb.NewStringValue(valueText(v))
}

func valueText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case int64:
		return strconv.FormatInt(x, 10)
	case bool:
		return strconv.FormatBool(x)
	}
	return ""
}
