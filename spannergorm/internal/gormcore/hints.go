package gormcore

import (
	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// Exprs is a list of expressions written one after the other, separated
// by a space; it is how several hints share the FROM clause.
type Exprs []clause.Expression

// Build implements clause.Expression.
func (exprs Exprs) Build(b clause.Builder) {
	for i, e := range exprs {
		if i > 0 {
			b.WriteByte(' ')
		}
		e.Build(b)
	}
}

// AppendAfterFrom adds e to what follows the statement's FROM clause,
// after anything already there: where both dialectors keep table hints.
func AppendAfterFrom(stmt *gorm.Statement, e clause.Expression) {
	from := stmt.Clauses["FROM"]
	if from.AfterExpression == nil {
		from.AfterExpression = e
	} else {
		from.AfterExpression = Exprs{from.AfterExpression, e}
	}
	stmt.Clauses["FROM"] = from
}

// BuildFrom renders FROM with the table hints of type H right after its
// first table, where Spanner reads a table hint in both dialects, and
// before any join (GORM would put them after the joins); write renders
// the hints in the dialect's form. Other expressions after FROM stay
// where GORM puts them.
func BuildFrom[H clause.Expression](c clause.Clause, b clause.Builder, write func(clause.Builder, []H)) {
	hints, rest := splitHints[H](c.AfterExpression, nil, nil)
	from, ok := c.Expression.(clause.From)
	if len(hints) == 0 || !ok {
		c.Build(b)
		return
	}
	b.WriteString("FROM ")
	tables := from.Tables
	if len(tables) == 0 {
		tables = []clause.Table{{Name: clause.CurrentTable}}
	}
	for i, t := range tables {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteQuoted(t)
		if i == 0 {
			write(b, hints)
		}
	}
	for _, j := range from.Joins {
		b.WriteByte(' ')
		j.Build(b)
	}
	if len(rest) > 0 {
		b.WriteByte(' ')
		rest.Build(b)
	}
}

// splitHints splits an expression after FROM into its hints and the rest.
func splitHints[H clause.Expression](e clause.Expression, hints []H, rest Exprs) ([]H, Exprs) {
	switch v := e.(type) {
	case nil:
	case H:
		hints = append(hints, v)
	case Exprs:
		for _, x := range v {
			hints, rest = splitHints(x, hints, rest)
		}
	default:
		rest = append(rest, v)
	}
	return hints, rest
}
