package gormcore

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"gorm.io/gorm"
	"gorm.io/gorm/callbacks"
	"gorm.io/gorm/clause"
)

// A partial upsert is GORM's ON CONFLICT (key) DO UPDATE SET of some
// columns, which GORM sends to save has-one and has-many children (SET the
// foreign key) and which applications write with AssignmentColumns or
// Assignments. Spanner has no such statement in either dialect: GoogleSQL
// only has INSERT OR UPDATE (every inserted column) and INSERT OR IGNORE,
// and PostgreSQL's DO UPDATE must set every inserted column. The rule is
// the same for both, so it lives here: first one UPDATE of the asked
// columns for the keys being inserted (it changes only the rows that
// exist), then the INSERT with DO NOTHING on the key (it adds only the
// rows that do not). Both run on the statement's connection, which is
// GORM's transaction of the Create; when there is none (SkipDefaultTransaction)
// the two run in a transaction of their own, so no writer can slip a row
// between them. Rows whose key is not inserted (IDENTITY keys left to the
// database) cannot conflict: when no row inserts its key, the ON CONFLICT
// is dropped and the Create is one plain INSERT. A DryRun (and ToSQL)
// shows the UPDATEs and the INSERT as one text, "UPDATE ...; INSERT ...",
// with all their arguments in order. RowsAffected counts the
// rows updated and the rows inserted, as PostgreSQL counts an ON CONFLICT
// DO UPDATE (endUpsert).

const upsertStateKey = "spanner:upsert"

// RegisterUpsert makes Create run partial upserts as an UPDATE and an
// INSERT ... DO NOTHING. It must be registered after GORM's default
// callbacks.
func RegisterUpsert(db *gorm.DB) error {
	create := db.Callback().Create()
	if err := create.Before("gorm:create").Register("spanner:upsert", upsert); err != nil {
		return err
	}
	// The transaction upsert begins ends where GORM's own would: after the
	// associations and the AfterCreate hooks.
	return create.After("gorm:after_create").Before("gorm:commit_or_rollback_transaction").
		Register("spanner:upsert_end", endUpsert)
}

// ErrUpsertAssignment is the error of a DO UPDATE assignment that the
// UPDATE cannot express: excluded.column of a column that the INSERT does
// not write.
var ErrUpsertAssignment = status.Error(codes.InvalidArgument,
	"spannergorm: OnConflict DoUpdates refers to excluded.column of a column the INSERT does not write")

func upsert(db *gorm.DB) {
	stmt := db.Statement
	if db.Error != nil || stmt.Schema == nil || stmt.SQL.Len() != 0 {
		return
	}
	oc, ok := partialUpsert(stmt)
	if !ok {
		return
	}
	values := callbacks.ConvertToCreateValues(stmt)
	if db.Error != nil {
		return
	}
	keyIdx, ok := keyColumns(stmt, values.Columns)
	if !ok {
		// No row writes its key, so none can conflict.
		delete(stmt.Clauses, "ON CONFLICT")
		return
	}
	// A conflict on the key means the key columns already hold the
	// inserted values, so assigning them (GORM does, for a child whose
	// foreign key is part of its key, as in an interleaved table) changes
	// nothing, and Spanner refuses to SET key columns.
	set := make(clause.Set, 0, len(oc.DoUpdates))
	for _, a := range oc.DoUpdates {
		if !isKey(stmt, a.Column.Name) {
			set = append(set, a)
		}
	}
	if len(set) == 0 {
		stmt.AddClause(clause.OnConflict{Columns: oc.Columns, DoNothing: true})
		return
	}
	updates, err := upsertUpdates(stmt, set, values, keyIdx, db.DryRun)
	if err != nil {
		_ = db.AddError(err)
		return
	}
	stmt.AddClause(clause.OnConflict{Columns: oc.Columns, DoNothing: true})
	if len(updates) == 0 {
		return
	}
	if db.DryRun {
		// endUpsert builds GORM's INSERT again after the UPDATEs' text and
		// arguments, so that it numbers its arguments after theirs ($n in
		// PostgreSQL).
		texts := make([]string, len(updates))
		for i, u := range updates {
			texts[i] = u.SQL.String()
		}
		db.InstanceSet(upsertStateKey, &upsertState{
			shown: strings.Join(texts, "; ") + "; ", shownVars: updates[len(updates)-1].Vars})
		return
	}
	state := &upsertState{rows: int64(len(values.Values))}
	db.InstanceSet(upsertStateKey, state)
	if _, inTx := stmt.ConnPool.(gorm.TxCommitter); !inTx {
		tx := db.Session(&gorm.Session{NewDB: true, Context: stmt.Context}).Begin()
		switch {
		case tx.Error == nil:
			state.own = &ownTx{tx: tx, pool: stmt.ConnPool}
			stmt.ConnPool = tx.Statement.ConnPool
		case errors.Is(tx.Error, gorm.ErrInvalidTransaction):
			// A pool that cannot begin one (a recording pool): as is.
		default:
			_ = db.AddError(tx.Error)
			return
		}
	}
	for _, u := range updates {
		sql := u.SQL.String()
		begin := time.Now()
		res, err := stmt.ConnPool.ExecContext(stmt.Context, sql, u.Vars...)
		if db.Logger != nil {
			db.Logger.Trace(stmt.Context, begin, func() (string, int64) {
				var n int64 = -1
				if err == nil {
					n, _ = res.RowsAffected()
				}
				return db.Dialector.Explain(sql, u.Vars...), n
			}, err)
		}
		if err != nil {
			_ = db.AddError(err)
			return
		}
	}
}

// upsertState is what upsert leaves for endUpsert: the number of rows of
// the Create and the transaction it began, if any; in a DryRun, the
// UPDATEs' text to show before the INSERT.
type upsertState struct {
	rows      int64
	own       *ownTx
	shown     string
	shownVars []any
}

// ownTx is the transaction upsert began for a Create that had none, and
// the pool to give the statement back after it.
type ownTx struct {
	tx   *gorm.DB
	pool gorm.ConnPool
}

// endUpsert sets RowsAffected and commits or rolls back the transaction
// that upsert began. PostgreSQL's ON CONFLICT DO UPDATE reports every row
// it inserted or updated, which (without a WHERE) is every row of the
// statement. Here too each row was either updated (its key existed, so
// the UPDATE, earlier in the same transaction, changed it) or inserted by
// the INSERT ... DO NOTHING, so the Create's rows are that count. GORM's
// own count covers only the INSERT, and under RETURNING with DO NOTHING
// it is a position in the slice, not a number of rows.
func endUpsert(db *gorm.DB) {
	v, ok := db.InstanceGet(upsertStateKey)
	if !ok {
		return
	}
	state := v.(*upsertState)
	if state.shown != "" {
		if stmt := db.Statement; db.Error == nil {
			stmt.SQL.Reset()
			stmt.SQL.WriteString(state.shown)
			stmt.Vars = state.shownVars
			stmt.Build(stmt.BuildClauses...)
		}
		return
	}
	if db.Error == nil {
		db.RowsAffected = state.rows
		if db.Statement.Result != nil {
			db.Statement.Result.RowsAffected = state.rows
		}
	}
	own := state.own
	if own == nil {
		return
	}
	db.Statement.ConnPool = own.pool
	if db.Error != nil {
		_ = own.tx.Rollback()
		return
	}
	_ = db.AddError(own.tx.Commit().Error)
}

// partialUpsert returns the statement's ON CONFLICT when it is a DO UPDATE
// of some columns on the primary key, the form this file handles.
func partialUpsert(stmt *gorm.Statement) (clause.OnConflict, bool) {
	c, has := stmt.Clauses["ON CONFLICT"]
	if !has {
		return clause.OnConflict{}, false
	}
	oc, _ := c.Expression.(clause.OnConflict)
	if oc.UpdateAll || oc.DoNothing || len(oc.DoUpdates) == 0 || oc.OnConstraint != "" ||
		len(oc.Where.Exprs) > 0 || len(oc.TargetWhere.Exprs) > 0 || !OnPrimaryKey(stmt, oc.Columns) {
		return clause.OnConflict{}, false
	}
	if len(oc.Columns) == 0 {
		for _, name := range stmt.Schema.PrimaryFieldDBNames {
			oc.Columns = append(oc.Columns, clause.Column{Name: name})
		}
	}
	return oc, true
}

// OnPrimaryKey reports whether a conflict target is empty or the primary
// key, the only conflict Spanner detects.
func OnPrimaryKey(stmt *gorm.Statement, cols []clause.Column) bool {
	if len(cols) == 0 {
		return true
	}
	if stmt.Schema == nil || len(cols) != len(stmt.Schema.PrimaryFieldDBNames) {
		return false
	}
	for i, c := range cols {
		if !strings.EqualFold(c.Name, stmt.Schema.PrimaryFieldDBNames[i]) {
			return false
		}
	}
	return true
}

func isKey(stmt *gorm.Statement, name string) bool {
	for _, k := range stmt.Schema.PrimaryFieldDBNames {
		if strings.EqualFold(k, name) {
			return true
		}
	}
	return false
}

// keyColumns returns the position of each key column among the inserted
// columns, and false when the INSERT does not write the whole key.
func keyColumns(stmt *gorm.Statement, cols []clause.Column) ([]int, bool) {
	idx := make([]int, 0, len(stmt.Schema.PrimaryFieldDBNames))
	for _, name := range stmt.Schema.PrimaryFieldDBNames {
		i := columnIndex(cols, name)
		if i < 0 {
			return nil, false
		}
		idx = append(idx, i)
	}
	return idx, true
}

func columnIndex(cols []clause.Column, name string) int {
	for i, c := range cols {
		if strings.EqualFold(c.Name, name) {
			return i
		}
	}
	return -1
}

// upsertUpdates returns the UPDATE statements, built, that apply set to the
// rows of values whose key exists: one per distinct list of assigned
// values (GORM's association saves assign the same foreign key to every
// child, so one in all), each for the keys of its rows. A row whose key
// is DEFAULT (an IDENTITY key in a batch where other rows give theirs) is
// new and gets no UPDATE. chained (for a DryRun) makes each statement's
// arguments follow those of the statement and of the UPDATEs before it,
// so that all of them can be shown as one text with one list of
// arguments.
func upsertUpdates(stmt *gorm.Statement, set clause.Set, values clause.Values, keyIdx []int, chained bool) ([]*gorm.Statement, error) {
	type group struct {
		assigned []any
		keys     [][]any
	}
	var groups []*group
	for _, row := range values.Values {
		key := make([]any, len(keyIdx))
		isNew := false
		for i, at := range keyIdx {
			if _, isExpr := row[at].(clause.Expression); isExpr {
				isNew = true
			}
			key[i] = row[at]
		}
		if isNew {
			continue
		}
		assigned := make([]any, len(set))
		for i, a := range set {
			v := a.Value
			if col, isCol := v.(clause.Column); isCol && strings.EqualFold(col.Table, "excluded") {
				at := columnIndex(values.Columns, col.Name)
				if at < 0 {
					return nil, fmt.Errorf("%w: %s", ErrUpsertAssignment, col.Name)
				}
				v = row[at]
			}
			assigned[i] = v
		}
		var g *group
		for _, have := range groups {
			if reflect.DeepEqual(have.assigned, assigned) {
				g = have
				break
			}
		}
		if g == nil {
			g = &group{assigned: assigned}
			groups = append(groups, g)
		}
		g.keys = append(g.keys, key)
	}
	out := make([]*gorm.Statement, 0, len(groups))
	var prior []any
	if chained {
		prior = stmt.Vars
	}
	for _, g := range groups {
		u := &gorm.Statement{DB: stmt.DB, Table: stmt.Table, Schema: stmt.Schema, Clauses: map[string]clause.Clause{},
			Vars: slices.Clone(prior)}
		assignments := make(clause.Set, len(set))
		for i, a := range set {
			assignments[i] = clause.Assignment{Column: a.Column, Value: g.assigned[i]}
		}
		u.AddClause(clause.Update{})
		u.AddClause(assignments)
		u.AddClause(clause.Where{Exprs: []clause.Expression{keyCondition(stmt.Schema.PrimaryFieldDBNames, g.keys)}})
		u.Build("UPDATE", "SET", "WHERE")
		if u.Error != nil {
			return nil, u.Error
		}
		if chained {
			prior = u.Vars
		}
		out = append(out, u)
	}
	return out, nil
}

// keyCondition matches the rows with the given keys: key IN (...) for a
// one-column key, else one AND of equalities per key, joined by OR.
func keyCondition(names []string, keys [][]any) clause.Expression {
	if len(names) == 1 {
		vals := make([]any, len(keys))
		for i, k := range keys {
			vals[i] = k[0]
		}
		return clause.IN{Column: clause.Column{Name: names[0]}, Values: vals}
	}
	ors := make([]clause.Expression, len(keys))
	for i, k := range keys {
		ands := make([]clause.Expression, len(names))
		for j, name := range names {
			ands[j] = clause.Eq{Column: clause.Column{Name: name}, Value: k[j]}
		}
		ors[i] = clause.And(ands...)
	}
	return clause.Or(ors...)
}
