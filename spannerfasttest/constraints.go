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

// The engine keeps UNIQUE indexes and CHECK constraints but does not
// enforce them. After every write the tables it touched are checked here:
// a key of a UNIQUE index held by two rows fails the write with
// AlreadyExists, as on Spanner (NULL is a value like any other there,
// except in a NULL_FILTERED index, which leaves out rows with a NULL in
// it); a row whose CHECK expression is FALSE fails it with OutOfRange.

// checkConstraints returns the CHECK constraints of a table, by name.
func (c *catalog) checkConstraints(table string) map[string]spansql.Expr {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.tableLocked(table)
	if t == nil {
		return nil
	}
	out := map[string]spansql.Expr{}
	for _, ck := range t.checks {
		if chk, ok := ck.c.(spansql.Check); ok {
			out[ck.name] = chk.Expr
		}
	}
	return out
}

// uniqueIndexes returns the UNIQUE indexes of a table.
func (c *catalog) uniqueIndexes(table string) []*spansql.CreateIndex {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []*spansql.CreateIndex
	for _, ix := range c.indexes {
		if ix.Unique && strings.EqualFold(string(ix.Table), table) {
			out = append(out, ix)
		}
	}
	return out
}

// checkUnique checks the UNIQUE indexes and CHECK constraints of the
// tables a write touched. Call with engineMu held, after the write.
func (s *service) checkUnique(ctx context.Context, snaps []*snapshot) error {
	for _, sn := range snaps {
		for name, expr := range s.catalog.checkConstraints(sn.table.name) {
			// A row fails a CHECK when its expression is FALSE (NULL passes).
			// A constraint the engine cannot evaluate is not enforced.
			sql := "SELECT COUNT(*) FROM " + spansql.ID(sn.table.name).SQL() + " WHERE NOT (" + expr.SQL() + ")"
			rows, _, err := s.engineQuery(ctx, sql, &params{types: map[string]*spannerpb.Type{}})
			if err == nil && len(rows) == 1 && rows[0].GetValues()[0].GetStringValue() != "0" {
				return status.Errorf(codes.OutOfRange, "spannerfasttest: check constraint %s of table %s is violated", name, sn.table.name)
			}
		}
		for _, ix := range s.catalog.uniqueIndexes(sn.table.name) {
			var cols, notNull []string
			for _, kp := range ix.Columns {
				cols = append(cols, kp.Column.SQL())
				notNull = append(notNull, kp.Column.SQL()+" IS NOT NULL")
			}
			sql := "SELECT " + strings.Join(cols, ", ") + ", COUNT(*) FROM " + spansql.ID(sn.table.name).SQL()
			if ix.NullFiltered {
				sql += " WHERE " + strings.Join(notNull, " AND ")
			}
			sql += " GROUP BY " + strings.Join(cols, ", ")
			rows, _, err := s.engineQuery(ctx, sql, &params{types: map[string]*spannerpb.Type{}})
			if err != nil {
				return status.Errorf(codes.Internal, "spannerfasttest: checking unique index %s: %v", ix.Name, err)
			}
			for _, r := range rows {
				vs := r.GetValues()
				if vs[len(vs)-1].GetStringValue() != "1" {
					return status.Errorf(codes.AlreadyExists, "spannerfasttest: unique index %s of table %s: two rows have the key %s",
						ix.Name, sn.table.name, keyText(&structpb.ListValue{Values: vs[:len(vs)-1]}))
				}
			}
		}
	}
	return nil
}
