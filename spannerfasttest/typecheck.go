package spannerfasttest

import (
	"maps"
	"reflect"
	"strconv"
	"strings"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"cloud.google.com/go/spanner/spansql"
	"google.golang.org/protobuf/types/known/structpb"
)

// The engine (spannertest) compares two values by asserting that the
// second has the first one's Go type: a comparison of an INT64 column with
// a STRING parameter, a BOOL with an INT64 literal or an array with
// anything panics in the engine's goroutine, which no recover here can
// reach, and kills the process that embeds the server. So every query
// handed to the engine is checked first: a comparison whose operands
// Spanner would refuse is InvalidArgument, as on Spanner, and an untyped
// parameter (a Go string, sent without a type) compared with a column
// takes the column's type, as Spanner infers it, after its text is checked
// to be a value of that type. FuzzEmbeddedWrongTypes runs statements of
// every shape over a table of every type to hold it.

// operand is what the check knows of one side of a comparison.
type operand struct {
	typ     spansql.Type
	known   bool   // typ is the operand's type
	param   string // an untyped string parameter (its type comes from the other side)
	literal bool   // a string literal, which the engine coerces to DATE, TIMESTAMP, UUID
	what    string // how an error names it
}

// checkQuery checks the comparisons of the query sql before the engine
// runs it with p, retyping the untyped parameters compared with a column.
// A query that does not parse is left to the engine, which reports it.
func (s *service) checkQuery(sql string, p *params) error {
	q, err := spansql.ParseQuery(sql)
	if err != nil {
		return nil
	}
	cols := s.queryColumns(q)
	var cerr error
	walkExprs(reflect.ValueOf(q), func(e any) bool {
		switch e := e.(type) {
		case spansql.ComparisonOp:
			cerr = s.checkComparison(e, cols, p)
		case spansql.InOp:
			cerr = s.checkIn(e, cols, p)
		}
		return cerr == nil
	})
	return cerr
}

// queryColumns are the columns of the tables a query reads, by lower-case
// name (the first table's column where two tables have one name).
func (s *service) queryColumns(q spansql.Query) map[string]spansql.ColumnDef {
	cols := map[string]spansql.ColumnDef{}
	s.catalog.mu.Lock()
	defer s.catalog.mu.Unlock()
	walkExprs(reflect.ValueOf(q), func(e any) bool {
		if f, ok := e.(spansql.SelectFromTable); ok {
			if t := s.catalog.tableLocked(string(f.Table)); t != nil {
				for _, c := range t.cols {
					if _, dup := cols[lower(string(c.Name))]; !dup {
						cols[lower(string(c.Name))] = c
					}
				}
			}
		}
		return true
	})
	return cols
}

func (s *service) checkComparison(e spansql.ComparisonOp, cols map[string]spansql.ColumnDef, p *params) error {
	if e.Op == spansql.Like || e.Op == spansql.NotLike {
		return nil // the engine refuses non-strings itself
	}
	if e.RHS2 == nil {
		return compared(operandOf(e.LHS, cols, p, false), operandOf(e.RHS, cols, p, false), p)
	}
	// The engine compares RHS with LHS, then LHS with RHS2, without
	// coercing string literals.
	lhs := operandOf(e.LHS, cols, p, true)
	if err := compared(operandOf(e.RHS, cols, p, true), lhs, p); err != nil {
		return err
	}
	return compared(lhs, operandOf(e.RHS2, cols, p, true), p)
}

func (s *service) checkIn(e spansql.InOp, cols map[string]spansql.ColumnDef, p *params) error {
	lhs := operandOf(e.LHS, cols, p, true)
	for _, r := range e.RHS {
		rhs := operandOf(r, cols, p, true)
		if e.Unnest {
			// IN UNNEST(@array): its elements are compared.
			if rhs.known && !rhs.typ.Array {
				return invalid("IN UNNEST needs an array, not %s of type %s", rhs.what, rhs.typ.SQL())
			}
			if !rhs.known || !lhs.known {
				continue
			}
			rhs.typ.Array = false
		}
		if err := compared(lhs, rhs, p); err != nil {
			return err
		}
	}
	return nil
}

// operandOf describes e. noCoerce is set where the engine does not coerce
// a string literal (BETWEEN, IN): there it is a plain STRING.
func operandOf(e spansql.Expr, cols map[string]spansql.ColumnDef, p *params, noCoerce bool) operand {
	switch e := e.(type) {
	case spansql.Paren:
		return operandOf(e.Expr, cols, p, noCoerce)
	case spansql.ID:
		return columnOperand(string(e), cols)
	case spansql.PathExp:
		if len(e) > 0 {
			return columnOperand(string(e[len(e)-1]), cols)
		}
	case spansql.Param:
		return paramOperand(string(e), p)
	case spansql.IntegerLiteral:
		return operand{typ: spansql.Type{Base: spansql.Int64}, known: true, what: "an INT64 literal"}
	case spansql.FloatLiteral:
		return operand{typ: spansql.Type{Base: spansql.Float64}, known: true, what: "a FLOAT64 literal"}
	case spansql.BoolLiteral:
		return operand{typ: spansql.Type{Base: spansql.Bool}, known: true, what: "a BOOL literal"}
	case spansql.BytesLiteral:
		return operand{typ: spansql.Type{Base: spansql.Bytes}, known: true, what: "a BYTES literal"}
	case spansql.Array:
		return operand{typ: spansql.Type{Array: true}, known: true, what: "an ARRAY literal"}
	case spansql.StringLiteral:
		return operand{typ: spansql.Type{Base: spansql.String}, known: true, literal: !noCoerce, what: "a STRING literal"}
	}
	return operand{}
}

func columnOperand(name string, cols map[string]spansql.ColumnDef) operand {
	c, ok := cols[lower(name)]
	if !ok {
		return operand{}
	}
	return operand{typ: c.Type, known: true, what: "column " + string(c.Name)}
}

func paramOperand(name string, p *params) operand {
	v, ok := p.values.GetFields()[name]
	if !ok {
		return operand{} // the engine reports the missing value
	}
	if _, null := v.GetKind().(*structpb.Value_NullValue); null {
		return operand{} // a comparison with NULL is NULL: nothing is compared
	}
	if _, str := v.GetKind().(*structpb.Value_StringValue); str && p.untyped[name] {
		return operand{param: name, what: "parameter @" + name}
	}
	t, ok := sqlType(p.types[name])
	return operand{typ: t, known: ok, what: "parameter @" + name}
}

// sqlType is the column type of a wire type, if it has one.
func sqlType(t *spannerpb.Type) (spansql.Type, bool) {
	var out spansql.Type
	if t.GetCode() == spannerpb.TypeCode_ARRAY {
		out.Array = true
		t = t.GetArrayElementType()
	}
	base, ok := map[spannerpb.TypeCode]spansql.TypeBase{
		spannerpb.TypeCode_BOOL: spansql.Bool, spannerpb.TypeCode_INT64: spansql.Int64,
		spannerpb.TypeCode_FLOAT64: spansql.Float64, spannerpb.TypeCode_STRING: spansql.String,
		spannerpb.TypeCode_BYTES: spansql.Bytes, spannerpb.TypeCode_DATE: spansql.Date,
		spannerpb.TypeCode_TIMESTAMP: spansql.Timestamp, spannerpb.TypeCode_NUMERIC: spansql.Numeric,
		spannerpb.TypeCode_JSON: spansql.JSON,
		spannerpb.TypeCode_UUID: spansql.UUID,
	}[t.GetCode()]
	out.Base = base
	return out, ok
}

// compared checks that a and b may be compared, as Spanner would, giving
// an untyped parameter the other side's type. The engine compares them in
// this order (a's Go type decides how).
func compared(a, b operand, p *params) error {
	switch {
	case a.param != "" && b.known:
		return retype(a.param, b, p)
	case b.param != "" && a.known:
		return retype(b.param, a, p)
	case !a.known || !b.known:
		return nil // two untyped strings, or an operand the engine types itself
	case a.typ.Array || b.typ.Array:
		return invalid("%s (%s) cannot be compared with %s (%s): comparison is not defined for arrays", a.what, a.typ.SQL(), b.what, b.typ.SQL())
	case a.literal || b.literal:
		return nil // the engine coerces the literal or reports it
	}
	return comparableTypes(a, b)
}

// comparableTypes: two values of the same type, or a FLOAT64 with an
// INT64. JSON has no comparison on Spanner; the engine has none for
// NUMERIC, and its comparison of an INT64 with a FLOAT64 (in that order)
// recurses until the stack overflows (a fatal error, not even a panic), so
// those are refused here although Spanner compares them.
func comparableTypes(a, b operand) error {
	number := func(t spansql.TypeBase) bool { return t == spansql.Int64 || t == spansql.Float64 }
	switch x, y := a.typ.Base, b.typ.Base; {
	case x == spansql.JSON || y == spansql.JSON:
		return invalid("%s (%s) cannot be compared with %s (%s): comparison is not defined for JSON", a.what, a.typ.SQL(), b.what, b.typ.SQL())
	case x == y && x == spansql.Numeric:
		return unimplemented("comparing NUMERIC values (%s with %s) is not supported by this server", a.what, b.what)
	case x == y, x == spansql.Float64 && y == spansql.Int64:
		return nil
	case number(x) && number(y):
		return unimplemented("comparing INT64 with FLOAT64 (%s with %s) is not supported by this server: CAST one to the other's type", a.what, b.what)
	}
	return invalid("no matching signature for comparing %s of type %s with %s of type %s", a.what, a.typ.SQL(), b.what, b.typ.SQL())
}

// retype gives the untyped parameter name the type of what it is compared
// with (to: a column, a literal or a typed parameter), converting its text
// to that type's wire form. Text that is not a value of the type is
// InvalidArgument, naming the parameter.
func retype(name string, to operand, p *params) error {
	if to.typ.Array {
		return invalid("parameter @%s (a string) cannot be compared with %s (%s): comparison is not defined for arrays", name, to.what, to.typ.SQL())
	}
	text := p.values.GetFields()[name].GetStringValue()
	bad := func() error {
		return invalid("invalid value for parameter @%s: %q is not a %s (it is compared with %s)", name, text, to.typ.SQL(), to.what)
	}
	var v *structpb.Value
	switch to.typ.Base {
	case spansql.String:
		return nil
	case spansql.Int64:
		if _, err := strconv.ParseInt(text, 10, 64); err != nil {
			return bad()
		}
		v = structpb.NewStringValue(text)
	case spansql.Float64:
		f, err := strconv.ParseFloat(text, 64)
		if err != nil {
			return bad()
		}
		v = structpb.NewNumberValue(f)
	case spansql.Bool:
		switch strings.ToLower(text) {
		case "true", "false":
			v = structpb.NewBoolValue(strings.EqualFold(text, "true"))
		default:
			return bad()
		}
	case spansql.Date, spansql.Timestamp, spansql.UUID, spansql.Bytes:
		v = structpb.NewStringValue(text) // the engine parses the text, and refuses bad text with an error
	default:
		return invalid("parameter @%s (a string) cannot be compared with %s (%s) on this server", name, to.what, to.typ.SQL())
	}
	// The request's parameters are the caller's: copy before changing.
	p.values = &structpb.Struct{Fields: maps.Clone(p.values.GetFields())}
	p.values.Fields[name] = v
	p.types[name] = typeOf(to.typ)
	p.untyped[name] = false
	return nil
}

// walkExprs calls f with every value reachable from v, until f returns
// false.
func walkExprs(v reflect.Value, f func(any) bool) bool {
	switch v.Kind() {
	case reflect.Interface, reflect.Pointer:
		if v.IsNil() {
			return true
		}
		return walkExprs(v.Elem(), f)
	case reflect.Struct:
		if v.CanInterface() && !f(v.Interface()) {
			return false
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() && !walkExprs(v.Field(i), f) {
				return false
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			if !walkExprs(v.Index(i), f) {
				return false
			}
		}
	}
	return true
}
