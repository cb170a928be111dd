package spannergorm

import (
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/spannerfast/spannerfast/spannergorm/internal/gormcore"
)

// clauseBuilders replace GORM's renderings where GoogleSQL differs.
var clauseBuilders = map[string]clause.ClauseBuilder{
	"INSERT":    buildInsert,
	"RETURNING": buildReturning,
	"LIMIT":     gormcore.BuildLimit,
	"FROM":      buildFrom,
}

// buildReturning renders RETURNING as GoogleSQL's THEN RETURN; GORM reads
// its rows through QueryContext.
func buildReturning(c clause.Clause, b clause.Builder) {
	r, _ := c.Expression.(clause.Returning)
	b.WriteString("THEN RETURN ")
	if len(r.Columns) == 0 {
		b.WriteByte('*')
		return
	}
	for i, col := range r.Columns {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteQuoted(col)
	}
}

// ErrOnConflict is the error of an OnConflict clause that Spanner cannot
// express: only UpdateAll (INSERT OR UPDATE) and DoNothing (INSERT OR
// IGNORE) on the primary key exist.
var ErrOnConflict = status.Error(codes.Unimplemented,
	"spannergorm: OnConflict supports only UpdateAll or DoNothing on the primary key")

// ErrUpsertAssignment is the error of an OnConflict DoUpdates that sets a
// column to excluded.column for a column the INSERT does not write.
var ErrUpsertAssignment = gormcore.ErrUpsertAssignment

// buildInsert renders INSERT, with OR UPDATE or OR IGNORE from the
// statement's OnConflict clause.
func buildInsert(c clause.Clause, b clause.Builder) {
	insert, ok := c.Expression.(clause.Insert)
	stmt, isStmt := b.(*gorm.Statement)
	if !ok || !isStmt {
		c.Build(b)
		return
	}
	if oc, has := stmt.Clauses[clause.OnConflict{}.Name()]; has {
		modifier, err := conflictModifier(stmt, oc.Expression)
		if err != nil {
			_ = stmt.AddError(err)
			return
		}
		insert.Modifier = modifier
	}
	b.WriteString("INSERT ")
	insert.Build(b)
}

func conflictModifier(stmt *gorm.Statement, e clause.Expression) (string, error) {
	oc, _ := e.(clause.OnConflict)
	if oc.OnConstraint != "" || len(oc.Where.Exprs) > 0 || len(oc.TargetWhere.Exprs) > 0 ||
		!gormcore.OnPrimaryKey(stmt, oc.Columns) {
		return "", ErrOnConflict
	}
	switch {
	case oc.DoNothing:
		return "OR IGNORE", nil
	case oc.UpdateAll:
		return "OR UPDATE", nil
	}
	return "", ErrOnConflict
}
