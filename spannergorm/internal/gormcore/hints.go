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

// HintSyntax is how a dialect writes a list of table hints: Open, the
// hints separated by ", ", Close. Check refuses a hint the dialect cannot
// write; WriteKey writes the index name.
type HintSyntax interface {
	Open() string
	Close() string
	Check(typ, key string) error
	WriteKey(b clause.Builder, key string)
}

// IndexHint is a table hint, such as FORCE_INDEX, for the table of a
// query, written in the syntax S. Type is the hint and its equals sign
// ("FORCE_INDEX="), Key the index name; an empty Key writes nothing.
type IndexHint[S HintSyntax] struct {
	Type string
	Key  string
}

// ModifyStatement implements gorm.StatementModifier: the hint goes with
// the statement's FROM clause, after any hint already there.
func (h IndexHint[S]) ModifyStatement(stmt *gorm.Statement) { AppendAfterFrom(stmt, h) }

// Build implements clause.Expression.
func (h IndexHint[S]) Build(b clause.Builder) { WriteHints(b, []IndexHint[S]{h}) }

// WriteHints writes several table hints as one list; a hint that the
// syntax refuses adds its error to the statement and ends the list.
func WriteHints[S HintSyntax](b clause.Builder, hints []IndexHint[S]) {
	var syntax S
	n := 0
	for _, h := range hints {
		if h.Key == "" {
			continue
		}
		if err := syntax.Check(h.Type, h.Key); err != nil {
			_ = b.AddError(err)
			return
		}
		if n == 0 {
			b.WriteString(syntax.Open())
		} else {
			b.WriteString(", ")
		}
		b.WriteString(h.Type)
		syntax.WriteKey(b, h.Key)
		n++
	}
	if n > 0 {
		b.WriteString(syntax.Close())
	}
}
