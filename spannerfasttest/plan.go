package spannerfasttest

import (
	"context"
	"strings"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"cloud.google.com/go/spanner/spansql"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/structpb"
)

// planInsert turns INSERT [OR UPDATE | OR IGNORE] into one Insert or
// InsertOrUpdate mutation with every row of the statement, the values
// placed by the statement's column list.
func (s *service) planInsert(ctx context.Context, st *spansql.Insert, mode insertMode, p *params) ([]*spannerpb.Mutation, int64, error) {
	t, err := s.table(ctx, string(st.Table))
	if err != nil {
		return nil, 0, err
	}
	cols, err := insertColumns(t, st.Columns)
	if err != nil {
		return nil, 0, err
	}
	rows, err := s.insertRows(ctx, t, st, cols, p)
	if err != nil {
		return nil, 0, err
	}
	w := &spannerpb.Mutation_Write{Table: t.name, Values: rows}
	for _, ci := range cols {
		w.Columns = append(w.Columns, t.cols[ci].name)
	}
	keys, err := t.keysOf(w)
	if err != nil {
		return nil, 0, err
	}
	keep, err := s.filterKeys(ctx, t, keys, mode)
	if err != nil {
		return nil, 0, err
	}
	w.Values = nil
	for i, ok := range keep {
		if ok {
			w.Values = append(w.Values, rows[i])
		}
	}
	if len(w.Values) == 0 {
		return nil, 0, nil
	}
	m := &spannerpb.Mutation{Operation: &spannerpb.Mutation_Insert{Insert: w}}
	if mode == insertOrUpdate {
		// As on the emulator, INSERT OR UPDATE writes the whole row: the
		// columns it does not name become NULL (a Replace, unlike the
		// InsertOrUpdate mutation, which keeps them).
		m = &spannerpb.Mutation{Operation: &spannerpb.Mutation_Replace{Replace: w}}
	}
	return []*spannerpb.Mutation{m}, int64(len(w.Values)), nil
}

func insertColumns(t *table, names []spansql.ID) ([]int, error) {
	if len(names) == 0 {
		return nil, invalid("INSERT into %s needs a column list", t.name)
	}
	seen := map[int]bool{}
	var cols []int
	for _, n := range names {
		ci, err := t.column(string(n))
		if err != nil {
			return nil, err
		}
		if seen[ci] {
			return nil, invalid("INSERT into %s names column %s twice", t.name, n)
		}
		if t.cols[ci].generated {
			return nil, invalid("column %s of table %s is generated and cannot be written", n, t.name)
		}
		seen[ci] = true
		cols = append(cols, ci)
	}
	return cols, nil
}

// insertRows evaluates the VALUES rows (or runs the SELECT) and checks each
// value against its column's type.
func (s *service) insertRows(ctx context.Context, t *table, st *spansql.Insert, cols []int, p *params) ([]*structpb.ListValue, error) {
	var rows []*structpb.ListValue
	switch in := st.Input.(type) {
	case spansql.Values:
		for r, exprs := range in {
			if len(exprs) != len(cols) {
				return nil, invalid("INSERT into %s: row %d has %d values for %d columns", t.name, r+1, len(exprs), len(cols))
			}
			vals, types, err := s.evalRow(ctx, exprs, p)
			if err != nil {
				return nil, err
			}
			row, err := coerceRow(t, cols, vals, types, func(i int) bool { return isUntyped(exprs[i], p) })
			if err != nil {
				return nil, err
			}
			rows = append(rows, row)
		}
	case spansql.Select:
		got, types, err := s.engineQuery(ctx, in.SQL(), p)
		if err != nil {
			return nil, err
		}
		if len(types) != len(cols) {
			return nil, invalid("INSERT into %s: the query returns %d columns for %d", t.name, len(types), len(cols))
		}
		for _, g := range got {
			row, err := coerceRow(t, cols, g.GetValues(), types, func(int) bool { return false })
			if err != nil {
				return nil, err
			}
			rows = append(rows, row)
		}
	default:
		return nil, unimplemented("INSERT input %T is not supported", in)
	}
	return rows, nil
}

func isUntyped(e spansql.Expr, p *params) bool {
	name, ok := e.(spansql.Param)
	return ok && p.untyped[string(name)]
}

func coerceRow(t *table, cols []int, vals []*structpb.Value, types []*spannerpb.Type, untyped func(int) bool) (*structpb.ListValue, error) {
	row := &structpb.ListValue{}
	for i, ci := range cols {
		v, err := coerce(vals[i], types[i], t, ci, untyped(i))
		if err != nil {
			return nil, err
		}
		row.Values = append(row.Values, v)
	}
	return row, nil
}

// filterKeys decides which rows to write: a plain INSERT fails on a key
// that exists or repeats; INSERT OR IGNORE skips them; INSERT OR UPDATE
// fails on a repeated key, as Spanner cannot change a row twice.
func (s *service) filterKeys(ctx context.Context, t *table, keys []*structpb.ListValue, mode insertMode) ([]bool, error) {
	exists := map[string]bool{}
	if mode != insertOrUpdate {
		var pkCols []string
		for _, ci := range t.pk {
			pkCols = append(pkCols, t.cols[ci].name)
		}
		found, err := s.engineRead(ctx, t.name, pkCols, &spannerpb.KeySet{Keys: keys})
		if err != nil {
			return nil, status.Errorf(engineCode(err), "spannerfasttest: table %s: %s", t.name, status.Convert(err).Message())
		}
		for _, k := range found {
			exists[t.keyString(k)] = true
		}
	}
	keep := make([]bool, len(keys))
	seen := map[string]bool{}
	for i, k := range keys {
		ks := t.keyString(k)
		switch {
		case mode == insertOrIgnore && (exists[ks] || seen[ks]):
		case mode == plainInsert && (exists[ks] || seen[ks]):
			return nil, status.Errorf(codes.AlreadyExists, "spannerfasttest: table %s already has a row with key %s", t.name, keyText(k))
		case mode == insertOrUpdate && seen[ks]:
			return nil, invalid("INSERT OR UPDATE into %s changes the row with key %s twice", t.name, keyText(k))
		default:
			keep[i] = true
		}
		seen[ks] = true
	}
	return keep, nil
}

func keyText(k *structpb.ListValue) string {
	var parts []string
	for _, v := range k.GetValues() {
		b, _ := v.MarshalJSON()
		parts = append(parts, string(b))
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// planUpdate selects the key and the new values of every matching row and
// turns them into one Update mutation. Literals and parameters are set
// here; the engine cannot select some literals (FLOAT64 ones).
func (s *service) planUpdate(ctx context.Context, st *spansql.Update, p *params) ([]*spannerpb.Mutation, int64, error) {
	t, err := s.table(ctx, string(st.Table))
	if err != nil {
		return nil, 0, err
	}
	items, err := updateTargets(t, st, p)
	if err != nil {
		return nil, 0, err
	}
	sel := quoted(keyColumns(t))
	for _, it := range items {
		if it.value == nil {
			sel = append(sel, "("+it.sql+")")
		}
	}
	sql := "SELECT " + strings.Join(sel, ", ") + " FROM " + spansql.ID(t.name).SQL() + " WHERE " + st.Where.SQL()
	got, types, err := s.engineQuery(ctx, sql, p)
	if err != nil || len(got) == 0 {
		return nil, 0, err
	}
	w := &spannerpb.Mutation_Write{Table: t.name, Columns: keyColumns(t)}
	all := append([]int(nil), t.pk...)
	for _, it := range items {
		w.Columns = append(w.Columns, t.cols[it.col].name)
		all = append(all, it.col)
	}
	for _, g := range got {
		// Fresh slices: appending to the engine's would overwrite its values.
		vals := append([]*structpb.Value(nil), g.GetValues()[:len(t.pk)]...)
		vtypes := append([]*spannerpb.Type(nil), types[:len(t.pk)]...)
		untyped := make([]bool, len(all))
		next := len(t.pk)
		for k, it := range items {
			if it.value != nil {
				vals, vtypes = append(vals, it.value), append(vtypes, it.typ)
				untyped[len(t.pk)+k] = it.untyped
				continue
			}
			vals, vtypes = append(vals, g.GetValues()[next]), append(vtypes, types[next])
			next++
		}
		row, err := coerceRow(t, all, vals, vtypes, func(i int) bool { return untyped[i] })
		if err != nil {
			return nil, 0, err
		}
		w.Values = append(w.Values, row)
	}
	return []*spannerpb.Mutation{{Operation: &spannerpb.Mutation_Update{Update: w}}}, int64(len(got)), nil
}

// updateItem is one SET target: a value known here, or SQL for the engine.
type updateItem struct {
	col     int
	value   *structpb.Value
	typ     *spannerpb.Type
	untyped bool
	sql     string
}

// updateTargets checks the SET list.
func updateTargets(t *table, st *spansql.Update, p *params) ([]updateItem, error) {
	var items []updateItem
	seen := map[int]bool{}
	for _, it := range st.Items {
		ci, err := t.column(string(it.Column))
		if err != nil {
			return nil, err
		}
		c := t.cols[ci]
		switch {
		case seen[ci]:
			return nil, invalid("UPDATE of %s sets column %s twice", t.name, c.name)
		case isKey(t, ci):
			return nil, invalid("UPDATE cannot change key column %s of table %s", c.name, t.name)
		case c.generated:
			return nil, invalid("column %s of table %s is generated and cannot be written", c.name, t.name)
		case it.Value == nil && c.hasDefault:
			return nil, unimplemented("SET %s = DEFAULT: the column's DEFAULT expression is not applied by this server", c.name)
		}
		seen[ci] = true
		item := updateItem{col: ci}
		expr := it.Value
		if expr == nil {
			expr = spansql.Null
		}
		if v, typ, ok := evalLocal(expr, p); ok {
			item.value, item.typ, item.untyped = v, typ, isUntyped(expr, p)
		} else {
			item.sql = expr.SQL()
		}
		items = append(items, item)
	}
	return items, nil
}

func isKey(t *table, ci int) bool {
	for _, k := range t.pk {
		if k == ci {
			return true
		}
	}
	return false
}

func keyColumns(t *table) []string {
	var out []string
	for _, ci := range t.pk {
		out = append(out, t.cols[ci].name)
	}
	return out
}

// planDelete selects the keys of the matching rows and deletes them.
func (s *service) planDelete(ctx context.Context, st *spansql.Delete, p *params) ([]*spannerpb.Mutation, int64, error) {
	t, err := s.table(ctx, string(st.Table))
	if err != nil {
		return nil, 0, err
	}
	sql := "SELECT " + strings.Join(quoted(keyColumns(t)), ", ") + " FROM " + spansql.ID(t.name).SQL() + " WHERE " + st.Where.SQL()
	got, _, err := s.engineQuery(ctx, sql, p)
	if err != nil || len(got) == 0 {
		return nil, 0, err
	}
	d := &spannerpb.Mutation_Delete{Table: t.name, KeySet: &spannerpb.KeySet{Keys: got}}
	return []*spannerpb.Mutation{{Operation: &spannerpb.Mutation_Delete_{Delete: d}}}, int64(len(got)), nil
}

func quoted(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = spansql.ID(n).SQL()
	}
	return out
}
