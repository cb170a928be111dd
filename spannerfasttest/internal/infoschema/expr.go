package infoschema

import (
	"regexp"
	"strings"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"cloud.google.com/go/spanner/spansql"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// column finds the binding and column a name refers to, looking outwards
// through enclosing queries. Unqualified names shared by both sides of a
// USING join resolve to the left side.
func (f *frame) column(x spansql.Expr) (*binding, int, error) {
	var alias, name string
	switch v := x.(type) {
	case spansql.ID:
		name = string(v)
	case spansql.PathExp:
		if len(v) != 2 {
			return nil, 0, unimplemented("path %s is not supported with INFORMATION_SCHEMA; use alias.column", v.SQL())
		}
		alias, name = string(v[0]), string(v[1])
	}
	for fr := f; fr != nil; fr = fr.outer {
		for i := range fr.bs {
			b := &fr.bs[i]
			if alias != "" && !strings.EqualFold(b.alias, alias) {
				continue
			}
			for ci, c := range b.rel.cols {
				if strings.EqualFold(c, name) {
					return b, ci, nil
				}
			}
			if alias != "" {
				return nil, 0, invalid("%s has no column named %s", b.alias, name)
			}
		}
	}
	return nil, 0, invalid("unrecognized name: %s", x.SQL())
}

// typeOf checks an expression and returns its type; NULL literals have
// TYPE_CODE_UNSPECIFIED.
func (e *isEval) typeOf(x spansql.Expr, f *frame) (spannerpb.TypeCode, error) {
	switch v := asFunc(x).(type) {
	case spansql.ID, spansql.PathExp:
		b, ci, err := f.column(v)
		if err != nil {
			return 0, err
		}
		return b.rel.types[ci], nil
	case spansql.Param:
		if _, ok := e.params[string(v)]; !ok {
			return 0, invalid("no value given for query parameter @%s", v)
		}
		return e.ptypes[string(v)], nil
	case spansql.StringLiteral:
		return tString, nil
	case spansql.IntegerLiteral:
		return tInt64, nil
	case spansql.BoolLiteral:
		return tBool, nil
	case spansql.NullLiteral:
		return spannerpb.TypeCode_TYPE_CODE_UNSPECIFIED, nil
	case spansql.Paren:
		return e.typeOf(v.Expr, f)
	case spansql.ComparisonOp:
		return tBool, e.checkComparison(v, f)
	case spansql.LogicalOp:
		for _, side := range []spansql.Expr{v.LHS, v.RHS} {
			if side == nil {
				continue
			}
			if err := e.want(side, f, tBool); err != nil {
				return 0, err
			}
		}
		return tBool, nil
	case spansql.IsOp:
		_, err := e.typeOf(v.LHS, f)
		return tBool, err
	case spansql.InOp:
		if v.Unnest {
			return 0, unimplemented("IN UNNEST is not supported with INFORMATION_SCHEMA")
		}
		for _, r := range append([]spansql.Expr{v.LHS}, v.RHS...) {
			if _, err := e.typeOf(r, f); err != nil {
				return 0, err
			}
		}
		return tBool, nil
	case spansql.Func:
		if isCount(v) {
			if len(v.Args) == 1 && v.Args[0] != spansql.Star {
				_, err := e.typeOf(v.Args[0], f)
				return tInt64, err
			}
			return tInt64, nil
		}
		return e.funcType(v, f)
	case spansql.ScalarSubquery:
		res, err := e.query(v.Query, f)
		if err != nil {
			return 0, err
		}
		if len(res.types) != 1 {
			return 0, invalid("a scalar subquery must select one column, not %d", len(res.types))
		}
		return res.types[0], nil
	}
	return 0, unimplemented("expression %s is not supported with INFORMATION_SCHEMA", x.SQL())
}

// asFunc gives the conditional expressions spansql parses into their own
// nodes the form of a function call.
func asFunc(x spansql.Expr) spansql.Expr {
	switch v := x.(type) {
	case spansql.If:
		return spansql.Func{Name: "IF", Args: []spansql.Expr{v.Expr, v.TrueResult, v.ElseResult}}
	case spansql.Coalesce:
		return spansql.Func{Name: "COALESCE", Args: v.ExprList}
	case spansql.IfNull:
		return spansql.Func{Name: "IFNULL", Args: []spansql.Expr{v.Expr, v.NullResult}}
	}
	return x
}

func (e *isEval) want(x spansql.Expr, f *frame, t spannerpb.TypeCode) error {
	got, err := e.typeOf(x, f)
	if err == nil && got != t && got != spannerpb.TypeCode_TYPE_CODE_UNSPECIFIED {
		err = invalid("%s is %s, expected %s", x.SQL(), got, t)
	}
	return err
}

func (e *isEval) checkComparison(c spansql.ComparisonOp, f *frame) error {
	lt, err := e.typeOf(c.LHS, f)
	if err != nil {
		return err
	}
	for _, r := range []spansql.Expr{c.RHS, c.RHS2} {
		if r == nil {
			continue
		}
		rt, err := e.typeOf(r, f)
		if err != nil {
			return err
		}
		if lt != rt && lt != 0 && rt != 0 {
			return invalid("no matching signature for %s: %s and %s", c.SQL(), lt, rt)
		}
	}
	return nil
}

// funcs are the scalar functions INFORMATION_SCHEMA queries may use, with
// their argument counts and result type (0: the type of argument 1).
var funcs = map[string]struct {
	min, max int
	result   spannerpb.TypeCode
}{
	"IF": {3, 3, 0}, "COALESCE": {1, 99, 0}, "IFNULL": {2, 2, 0},
	"REGEXP_REPLACE": {3, 3, tString}, "REGEXP_EXTRACT": {2, 2, tString}, "REPLACE": {3, 3, tString},
	"UPPER": {1, 1, tString}, "LOWER": {1, 1, tString}, "CONCAT": {1, 99, tString},
	"STARTS_WITH": {2, 2, tBool}, "CAST": {1, 1, 0}, "SAFE_CAST": {1, 1, 0},
}

func (e *isEval) funcType(fn spansql.Func, f *frame) (spannerpb.TypeCode, error) {
	name := strings.ToUpper(fn.Name)
	spec, ok := funcs[name]
	if !ok {
		return 0, unimplemented("function %s is not supported with INFORMATION_SCHEMA", fn.Name)
	}
	if len(fn.Args) < spec.min || len(fn.Args) > spec.max {
		return 0, invalid("wrong number of arguments to %s", name)
	}
	if name == "CAST" || name == "SAFE_CAST" {
		te, ok := fn.Args[0].(spansql.TypedExpr)
		if !ok || te.Type.Array || (te.Type.Base != spansql.Int64 && te.Type.Base != spansql.String) {
			return 0, unimplemented("%s is supported to INT64 and STRING only", name)
		}
		if _, err := e.typeOf(te.Expr, f); err != nil {
			return 0, err
		}
		return map[spansql.TypeBase]spannerpb.TypeCode{spansql.Int64: tInt64, spansql.String: tString}[te.Type.Base], nil
	}
	var types []spannerpb.TypeCode
	for _, a := range fn.Args {
		t, err := e.typeOf(a, f)
		if err != nil {
			return 0, err
		}
		types = append(types, t)
	}
	if spec.result != 0 {
		return spec.result, nil
	}
	if name == "IF" {
		types = types[1:]
	}
	for _, t := range types {
		if t != 0 {
			return t, nil
		}
	}
	return 0, nil
}

// eval computes an expression on a row; typeOf has checked it.
func (e *isEval) eval(x spansql.Expr, f *frame) (any, error) {
	switch v := asFunc(x).(type) {
	case spansql.ID, spansql.PathExp:
		b, ci, err := f.column(v)
		if err != nil || b.row == nil {
			return nil, err
		}
		return b.row[ci], nil
	case spansql.Param:
		return e.params[string(v)], nil
	case spansql.StringLiteral:
		return string(v), nil
	case spansql.IntegerLiteral:
		return int64(v), nil
	case spansql.BoolLiteral:
		return bool(v), nil
	case spansql.NullLiteral:
		return nil, nil
	case spansql.Paren:
		return e.eval(v.Expr, f)
	case spansql.ComparisonOp:
		return e.compare(v, f)
	case spansql.LogicalOp:
		return e.logical(v, f)
	case spansql.IsOp:
		return e.is(v, f)
	case spansql.InOp:
		return e.in(v, f)
	case spansql.Func:
		return e.call(v, f)
	case spansql.ScalarSubquery:
		res, err := e.query(v.Query, f)
		switch {
		case err != nil:
			return nil, err
		case len(res.rows) > 1:
			return nil, status.Error(codes.OutOfRange, "spannerfasttest: a scalar subquery returned more than one row")
		case len(res.rows) == 0:
			return nil, nil
		}
		return res.rows[0][0], nil
	}
	return nil, unimplemented("expression %s is not supported with INFORMATION_SCHEMA", x.SQL())
}

func (e *isEval) args(xs []spansql.Expr, f *frame) ([]any, error) {
	out := make([]any, len(xs))
	for i, x := range xs {
		v, err := e.eval(x, f)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

func (e *isEval) compare(c spansql.ComparisonOp, f *frame) (any, error) {
	xs := []spansql.Expr{c.LHS, c.RHS}
	if c.RHS2 != nil {
		xs = append(xs, c.RHS2)
	}
	vs, err := e.args(xs, f)
	if err != nil || hasNull(vs) {
		return nil, err
	}
	a, b := vs[0], vs[1]
	switch c.Op {
	case spansql.Eq:
		return compareValues(a, b) == 0, nil
	case spansql.Ne:
		return compareValues(a, b) != 0, nil
	case spansql.Lt:
		return compareValues(a, b) < 0, nil
	case spansql.Le:
		return compareValues(a, b) <= 0, nil
	case spansql.Gt:
		return compareValues(a, b) > 0, nil
	case spansql.Ge:
		return compareValues(a, b) >= 0, nil
	case spansql.Between, spansql.NotBetween:
		in := compareValues(a, b) >= 0 && compareValues(a, vs[2]) <= 0
		return in == (c.Op == spansql.Between), nil
	case spansql.Like, spansql.NotLike:
		s, _ := a.(string)
		p, _ := b.(string)
		re, err := compileRegexp(likePattern(p))
		if err != nil {
			return nil, err
		}
		return re.MatchString(s) == (c.Op == spansql.Like), nil
	}
	return nil, unimplemented("comparison %s is not supported with INFORMATION_SCHEMA", c.SQL())
}

func hasNull(vs []any) bool {
	for _, v := range vs {
		if v == nil {
			return true
		}
	}
	return false
}

// likePattern turns a LIKE pattern into an anchored regular expression.
func likePattern(p string) string {
	var b strings.Builder
	b.WriteString("(?s)^")
	for i := 0; i < len(p); i++ {
		switch c := p[i]; {
		case c == '%':
			b.WriteString(".*")
		case c == '_':
			b.WriteString(".")
		case c == '\\' && i+1 < len(p):
			i++
			b.WriteString(regexp.QuoteMeta(p[i : i+1]))
		default:
			b.WriteString(regexp.QuoteMeta(p[i : i+1]))
		}
	}
	return b.String() + "$"
}

// logical follows SQL's three-valued logic.
func (e *isEval) logical(l spansql.LogicalOp, f *frame) (any, error) {
	r, err := e.eval(l.RHS, f)
	if err != nil {
		return nil, err
	}
	if l.Op == spansql.Not {
		if r == nil {
			return nil, nil
		}
		return !r.(bool), nil
	}
	lv, err := e.eval(l.LHS, f)
	if err != nil {
		return nil, err
	}
	decisive := l.Op == spansql.Or // TRUE decides OR, FALSE decides AND
	if lv == decisive || r == decisive {
		return decisive, nil
	}
	if lv == nil || r == nil {
		return nil, nil
	}
	return !decisive, nil
}

func (e *isEval) is(op spansql.IsOp, f *frame) (any, error) {
	v, err := e.eval(op.LHS, f)
	if err != nil {
		return nil, err
	}
	var res bool
	switch want := op.RHS.(type) {
	case spansql.NullLiteral:
		res = v == nil
	case spansql.BoolLiteral:
		res = v == bool(want)
	default:
		return nil, unimplemented("IS %s is not supported with INFORMATION_SCHEMA", op.RHS.SQL())
	}
	return res != op.Neg, nil
}

func (e *isEval) in(op spansql.InOp, f *frame) (any, error) {
	vs, err := e.args(append([]spansql.Expr{op.LHS}, op.RHS...), f)
	if err != nil || vs[0] == nil {
		return nil, err
	}
	sawNull := false
	for _, v := range vs[1:] {
		if v == nil {
			sawNull = true
		} else if compareValues(vs[0], v) == 0 {
			return !op.Neg, nil
		}
	}
	if sawNull {
		return nil, nil
	}
	return op.Neg, nil
}

func (e *isEval) call(fn spansql.Func, f *frame) (any, error) {
	name := strings.ToUpper(fn.Name)
	if name == "COUNT" {
		return nil, unimplemented("COUNT is supported only as a select-list item with INFORMATION_SCHEMA")
	}
	if name == "CAST" || name == "SAFE_CAST" {
		return e.cast(name, fn.Args[0].(spansql.TypedExpr), f)
	}
	vs, err := e.args(fn.Args, f)
	if err != nil {
		return nil, err
	}
	switch name {
	case "IF":
		if vs[0] == true {
			return vs[1], nil
		}
		return vs[2], nil
	case "COALESCE", "IFNULL":
		for _, v := range vs {
			if v != nil {
				return v, nil
			}
		}
		return nil, nil
	}
	if hasNull(vs) {
		return nil, nil
	}
	return stringFunc(name, vs)
}

// stringFunc computes the string functions on non-NULL arguments.
func stringFunc(name string, vs []any) (any, error) {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i], _ = v.(string)
	}
	switch name {
	case "UPPER":
		return strings.ToUpper(s[0]), nil
	case "LOWER":
		return strings.ToLower(s[0]), nil
	case "CONCAT":
		return strings.Join(s, ""), nil
	case "STARTS_WITH":
		return strings.HasPrefix(s[0], s[1]), nil
	case "REPLACE":
		if s[1] == "" {
			return s[0], nil
		}
		return strings.ReplaceAll(s[0], s[1], s[2]), nil
	}
	re, err := compileRegexp(s[1])
	if err != nil {
		return nil, err
	}
	if name == "REGEXP_REPLACE" {
		return re.ReplaceAllString(s[0], spannerReplacement(s[2])), nil
	}
	if re.NumSubexp() > 1 {
		return nil, invalid("REGEXP_EXTRACT pattern %q has more than one capturing group", s[1])
	}
	m := re.FindStringSubmatch(s[0])
	if m == nil {
		return nil, nil
	}
	return m[len(m)-1], nil
}

func (e *isEval) cast(name string, te spansql.TypedExpr, f *frame) (any, error) {
	v, err := e.eval(te.Expr, f)
	if err != nil || v == nil {
		return nil, err
	}
	if te.Type.Base == spansql.String {
		return valueText(v), nil
	}
	n, ok := toInt64(v)
	if !ok {
		if name == "SAFE_CAST" {
			return nil, nil
		}
		return nil, invalid("bad INT64 value: %v", v)
	}
	return n, nil
}
