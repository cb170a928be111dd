package spannerfasttest

import (
	"context"
	"fmt"
	"strings"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"cloud.google.com/go/spanner/spansql"
	"github.com/spannerfast/spannerfast/spannerfasttest/internal/sqltext"
	"google.golang.org/protobuf/types/known/structpb"
)

// splitThenReturn cuts a THEN RETURN clause off a DML statement: the
// statement before it and the select list after it.
func splitThenReturn(sql string) (dml, list string, ok bool) {
	for i := 0; i < len(sql); {
		c := sql[i]
		switch {
		case c == '\'' || c == '"' || c == '`':
			i = sqltext.SkipQuoted(sql, i)
		case c == '#' || strings.HasPrefix(sql[i:], "--"):
			end := strings.IndexByte(sql[i:], '\n')
			if end < 0 {
				return sql, "", false
			}
			i += end + 1
		case strings.HasPrefix(sql[i:], "/*"):
			end := strings.Index(sql[i+2:], "*/")
			if end < 0 {
				return sql, "", false
			}
			i += end + 4
		case sqltext.IsWordByte(c):
			j := i
			for j < len(sql) && sqltext.IsWordByte(sql[j]) {
				j++
			}
			if strings.EqualFold(sql[i:j], "THEN") {
				if w := leadingWords(sql[j:], 1); len(w) == 1 && w[0] == "RETURN" {
					rest := sql[j:]
					k := strings.Index(strings.ToUpper(rest), "RETURN") + len("RETURN")
					return sql[:i], strings.TrimSpace(rest[k:]), true
				}
			}
			i = j
		default:
			i++
		}
	}
	return sql, "", false
}

// returning evaluates a THEN RETURN select list on the rows of t with the
// given keys, in the order of keys, on the engine as it is now.
func (s *service) returning(ctx context.Context, t *table, keys []*structpb.ListValue, list string, p *params) (*spannerpb.ResultSet, error) {
	if w := leadingWords(list, 2); len(w) == 2 && w[0] == "WITH" && w[1] == "ACTION" {
		return nil, unimplemented("THEN RETURN WITH ACTION is not supported")
	}
	values := &structpb.Struct{Fields: map[string]*structpb.Value{}}
	types := map[string]*spannerpb.Type{}
	for name, v := range p.values.GetFields() {
		values.Fields[name], types[name] = v, p.types[name]
	}
	var alts []string
	for i, k := range keys {
		var conds []string
		for j, ci := range t.pk {
			name := fmt.Sprintf("spannerfasttest_key_%d_%d", i, j)
			values.Fields[name], types[name] = k.GetValues()[j], typeOf(t.cols[ci].typ)
			conds = append(conds, spansql.ID(t.cols[ci].name).SQL()+" = @"+name)
		}
		alts = append(alts, "("+strings.Join(conds, " AND ")+")")
	}
	where := "FALSE"
	if len(alts) > 0 {
		where = strings.Join(alts, " OR ")
	}
	sql := "SELECT " + strings.Join(quoted(keyColumns(t)), ", ") + ", " + list + " FROM " + spansql.ID(t.name).SQL() + " WHERE " + where
	session, err := s.internalSession(ctx)
	if err != nil {
		return nil, err
	}
	rs, err := s.engine.ExecuteSql(ctx, &spannerpb.ExecuteSqlRequest{Session: session, Sql: sql, Params: values, ParamTypes: types})
	if err != nil {
		return nil, analysisError(err)
	}
	npk := len(t.pk)
	byKey := map[string]*structpb.ListValue{}
	for _, r := range rs.GetRows() {
		byKey[t.keyString(&structpb.ListValue{Values: r.GetValues()[:npk]})] = &structpb.ListValue{Values: r.GetValues()[npk:]}
	}
	out := &spannerpb.ResultSet{Metadata: &spannerpb.ResultSetMetadata{RowType: &spannerpb.StructType{Fields: rs.GetMetadata().GetRowType().GetFields()[npk:]}}}
	for _, k := range keys {
		if r := byKey[t.keyString(k)]; r != nil {
			out.Rows = append(out.Rows, r)
		}
	}
	return out, nil
}

// writtenKeys returns the keys a planned DML statement on t writes or
// deletes.
func writtenKeys(t *table, ms []*spannerpb.Mutation) ([]*structpb.ListValue, error) {
	var keys []*structpb.ListValue
	for _, m := range ms {
		if d := m.GetDelete(); d != nil {
			keys = append(keys, d.GetKeySet().GetKeys()...)
			continue
		}
		ks, err := t.keysOf(writeOf(m))
		if err != nil {
			return nil, err
		}
		keys = append(keys, ks...)
	}
	return keys, nil
}

// dmlTable is the table a DML statement writes.
func dmlTable(stmt spansql.DMLStmt) string {
	switch st := stmt.(type) {
	case *spansql.Insert:
		return string(st.Table)
	case *spansql.Update:
		return string(st.Table)
	case *spansql.Delete:
		return string(st.Table)
	}
	return ""
}
