package infoschema

import (
	"cmp"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"cloud.google.com/go/spanner/spansql"
)

// isEval evaluates queries over INFORMATION_SCHEMA tables: SELECT lists of
// columns, literals, parameters, comparisons, AND/OR/NOT, IS [NOT] NULL,
// IN lists, a few scalar functions, COUNT and correlated scalar
// subqueries; FROM one table or INNER/LEFT/CROSS joins with ON or USING;
// WHERE, ORDER BY, LIMIT and OFFSET. Anything else is Unimplemented.
type isEval struct {
	schema Schema
	params map[string]any
	ptypes map[string]spannerpb.TypeCode
}

// binding is one FROM item of a row: its relation and current row (nil
// for the missing side of a LEFT JOIN).
type binding struct {
	alias string
	rel   *isRel
	row   []any
}

// frame is a row of the FROM clause, with the enclosing query's row for
// correlated subqueries.
type frame struct {
	bs    []binding
	outer *frame
}

type isResult struct {
	names []string
	types []spannerpb.TypeCode
	rows  [][]any
}

func (e *isEval) query(q spansql.Query, outer *frame) (*isResult, error) {
	sel := q.Select
	switch {
	case sel.Distinct || sel.AsStruct || len(sel.GroupBy) > 0 || len(sel.TableSamples) > 0:
		return nil, unimplemented("INFORMATION_SCHEMA queries with DISTINCT, AS STRUCT, GROUP BY or TABLESAMPLE are not supported")
	case len(sel.From) != 1:
		return nil, unimplemented("INFORMATION_SCHEMA queries need exactly one FROM clause")
	}
	tmpl, frames, err := e.from(sel.From[0], outer)
	if err != nil {
		return nil, err
	}
	template := &frame{bs: tmpl, outer: outer}
	if sel.Where != nil {
		if _, err := e.typeOf(sel.Where, template); err != nil {
			return nil, err
		}
		frames, err = e.filter(frames, sel.Where)
		if err != nil {
			return nil, err
		}
	}
	res := &isResult{}
	for i, x := range sel.List {
		t, err := e.typeOf(x, template)
		if err != nil {
			return nil, err
		}
		res.types = append(res.types, t)
		res.names = append(res.names, columnName(sel, i))
	}
	if isAggregate(sel.List) {
		row, err := e.aggregate(sel.List, frames)
		if err != nil {
			return nil, err
		}
		res.rows = [][]any{row}
		return res, nil
	}
	if err := e.order(q.Order, sel.List, res, frames, template); err != nil {
		return nil, err
	}
	for _, f := range frames {
		row, err := e.project(sel.List, f)
		if err != nil {
			return nil, err
		}
		res.rows = append(res.rows, row)
	}
	return res, e.limit(q, res)
}

func columnName(sel spansql.Select, i int) string {
	if i < len(sel.ListAliases) && sel.ListAliases[i] != "" {
		return string(sel.ListAliases[i])
	}
	switch x := sel.List[i].(type) {
	case spansql.ID:
		return string(x)
	case spansql.PathExp:
		return string(x[len(x)-1])
	}
	return ""
}

// from evaluates a FROM item: the template (bindings without rows, for
// resolving names) and the rows.
func (e *isEval) from(sf spansql.SelectFrom, outer *frame) ([]binding, []*frame, error) {
	switch f := sf.(type) {
	case spansql.SelectFromTable:
		name, ok := infoSchemaTable(f.Table)
		if !ok {
			return nil, nil, unimplemented("a query may not mix INFORMATION_SCHEMA with table %s", f.Table)
		}
		rel, ok := e.schema.relation(name)
		if !ok {
			return nil, nil, unimplemented("INFORMATION_SCHEMA.%s is not supported (supported: TABLES, COLUMNS, INDEXES, INDEX_COLUMNS, TABLE_CONSTRAINTS, CONSTRAINT_TABLE_USAGE)", name)
		}
		alias := string(f.Alias)
		if alias == "" {
			alias = name
		}
		var frames []*frame
		for _, r := range rel.rows {
			frames = append(frames, &frame{bs: []binding{{alias, rel, r}}, outer: outer})
		}
		return []binding{{alias, rel, nil}}, frames, nil
	case spansql.SelectFromJoin:
		return e.join(f, outer)
	}
	return nil, nil, unimplemented("FROM item %s is not supported with INFORMATION_SCHEMA", sf.SQL())
}

func (e *isEval) join(j spansql.SelectFromJoin, outer *frame) ([]binding, []*frame, error) {
	if j.Type != spansql.InnerJoin && j.Type != spansql.LeftJoin && j.Type != spansql.CrossJoin {
		return nil, nil, unimplemented("only INNER, LEFT and CROSS joins are supported with INFORMATION_SCHEMA")
	}
	lt, lf, err := e.from(j.LHS, outer)
	if err != nil {
		return nil, nil, err
	}
	rt, rf, err := e.from(j.RHS, outer)
	if err != nil {
		return nil, nil, err
	}
	tmpl := append(append([]binding(nil), lt...), rt...)
	cond := j.On
	for _, u := range j.Using {
		eq := spansql.ComparisonOp{Op: spansql.Eq, LHS: spansql.PathExp{spansql.ID(lt[len(lt)-1].alias), u}, RHS: spansql.PathExp{spansql.ID(rt[0].alias), u}}
		if cond == nil {
			cond = eq
		} else {
			cond = spansql.LogicalOp{Op: spansql.And, LHS: cond, RHS: eq}
		}
	}
	if cond != nil {
		if _, err := e.typeOf(cond, &frame{bs: tmpl, outer: outer}); err != nil {
			return nil, nil, err
		}
	}
	var out []*frame
	for _, l := range lf {
		matched := false
		for _, r := range rf {
			f := &frame{bs: append(append([]binding(nil), l.bs...), r.bs...), outer: outer}
			ok := true
			if cond != nil {
				v, err := e.eval(cond, f)
				if err != nil {
					return nil, nil, err
				}
				ok = v == true
			}
			if ok {
				matched = true
				out = append(out, f)
			}
		}
		if !matched && j.Type == spansql.LeftJoin {
			out = append(out, &frame{bs: append(append([]binding(nil), l.bs...), rt...), outer: outer})
		}
	}
	return tmpl, out, nil
}

func (e *isEval) filter(frames []*frame, where spansql.BoolExpr) ([]*frame, error) {
	var out []*frame
	for _, f := range frames {
		v, err := e.eval(where, f)
		if err != nil {
			return nil, err
		}
		if v == true {
			out = append(out, f)
		}
	}
	return out, nil
}

func (e *isEval) project(list []spansql.Expr, f *frame) ([]any, error) {
	row := make([]any, len(list))
	for i, x := range list {
		v, err := e.eval(x, f)
		if err != nil {
			return nil, err
		}
		row[i] = v
	}
	return row, nil
}

func isCount(x spansql.Expr) bool {
	f, ok := x.(spansql.Func)
	return ok && strings.EqualFold(f.Name, "COUNT")
}

func isAggregate(list []spansql.Expr) bool {
	return slices.ContainsFunc(list, isCount)
}

// aggregate answers a select list of COUNT(*) and COUNT(expr) items.
func (e *isEval) aggregate(list []spansql.Expr, frames []*frame) ([]any, error) {
	row := make([]any, len(list))
	for i, x := range list {
		if !isCount(x) {
			return nil, unimplemented("INFORMATION_SCHEMA queries may not mix aggregates with %s without GROUP BY", x.SQL())
		}
		f := x.(spansql.Func)
		if f.Distinct || len(f.Args) != 1 {
			return nil, unimplemented("only COUNT(*) and COUNT(expr) are supported with INFORMATION_SCHEMA")
		}
		n := int64(0)
		for _, fr := range frames {
			if f.Args[0] == spansql.Star {
				n++
				continue
			}
			v, err := e.eval(f.Args[0], fr)
			if err != nil {
				return nil, err
			}
			if v != nil {
				n++
			}
		}
		row[i] = n
	}
	return row, nil
}

// order sorts the frames by the ORDER BY items: select-list aliases or
// expressions over the FROM clause. NULLs sort first, as in GoogleSQL.
func (e *isEval) order(items []spansql.Order, list []spansql.Expr, res *isResult, frames []*frame, template *frame) error {
	if len(items) == 0 {
		return nil
	}
	exprs := make([]spansql.Expr, len(items))
	for j, o := range items {
		exprs[j] = o.Expr
		if _, err := e.typeOf(o.Expr, template); err != nil {
			i := aliasIndex(o.Expr, res)
			if i < 0 {
				return err
			}
			exprs[j] = list[i]
		}
	}
	keys := make(map[*frame][]any, len(frames))
	for _, f := range frames {
		var k []any
		for _, x := range exprs {
			v, err := e.eval(x, f)
			if err != nil {
				return err
			}
			k = append(k, v)
		}
		keys[f] = k
	}
	slices.SortStableFunc(frames, func(a, b *frame) int {
		for i, o := range items {
			c := compareValues(keys[a][i], keys[b][i])
			if o.Desc {
				c = -c
			}
			if c != 0 {
				return c
			}
		}
		return 0
	})
	return nil
}

func aliasIndex(x spansql.Expr, res *isResult) int {
	id, ok := x.(spansql.ID)
	if !ok {
		return -1
	}
	for i, n := range res.names {
		if strings.EqualFold(n, string(id)) {
			return i
		}
	}
	return -1
}

func (e *isEval) limit(q spansql.Query, res *isResult) error {
	off, err := e.count(q.Offset, 0)
	if err != nil {
		return err
	}
	lim, err := e.count(q.Limit, int64(len(res.rows)))
	if err != nil {
		return err
	}
	off = min(off, int64(len(res.rows)))
	res.rows = res.rows[off:]
	res.rows = res.rows[:min(lim, int64(len(res.rows)))]
	return nil
}

func (e *isEval) count(lp spansql.LiteralOrParam, def int64) (int64, error) {
	switch v := lp.(type) {
	case nil:
		return def, nil
	case spansql.IntegerLiteral:
		return int64(v), nil
	case spansql.Param:
		if n, ok := e.params[string(v)].(int64); ok && n >= 0 {
			return n, nil
		}
		return 0, invalid("LIMIT and OFFSET parameter @%s must be a non-negative INT64", v)
	}
	return 0, unimplemented("LIMIT/OFFSET %s is not supported", lp.SQL())
}

func compareValues(a, b any) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return -1
	case b == nil:
		return 1
	}
	switch x := a.(type) {
	case string:
		y, _ := b.(string)
		return strings.Compare(x, y)
	case int64:
		y, _ := b.(int64)
		return cmp.Compare(x, y)
	case bool:
		y, _ := b.(bool)
		switch {
		case x == y:
			return 0
		case !x:
			return -1
		}
		return 1
	}
	return 0
}

func compileRegexp(p string) (*regexp.Regexp, error) {
	re, err := regexp.Compile(p)
	if err != nil {
		return nil, invalid("invalid regular expression %q: %v", p, err)
	}
	return re, nil
}

// spannerReplacement turns a GoogleSQL replacement (\1 for groups) into
// Go's ($1), escaping Go's own $.
func spannerReplacement(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '$':
			b.WriteString("$$")
		case s[i] == '\\' && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9':
			b.WriteString("${" + s[i+1:i+2] + "}")
			i++
		case s[i] == '\\' && i+1 < len(s):
			b.WriteByte(s[i+1])
			i++
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

func toInt64(v any) (any, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case string:
		n, err := strconv.ParseInt(strings.TrimSpace(x), 10, 64)
		return n, err == nil
	case bool:
		if x {
			return int64(1), true
		}
		return int64(0), true
	}
	return nil, false
}
