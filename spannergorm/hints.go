package spannergorm

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

// IndexHint is a table hint, such as FORCE_INDEX, for the table of a
// query: db.Clauses(spannergorm.ForceIndex("idx_singers_name")).Find(&s)
// reads through that index. Type is the hint and its equals sign
// ("FORCE_INDEX="), Key the index name; an empty Key writes nothing.
type IndexHint struct {
	Type string
	Key  string
}

// ForceIndex is the FORCE_INDEX hint: the query reads through the index
// name ("_BASE_TABLE" for the table itself).
func ForceIndex(name string) IndexHint {
	return IndexHint{Type: "FORCE_INDEX=", Key: name}
}

// ModifyStatement implements gorm.StatementModifier: the hint goes with
// the statement's FROM clause, after any hint already there.
func (h IndexHint) ModifyStatement(stmt *gorm.Statement) {
	from := stmt.Clauses["FROM"]
	if from.AfterExpression == nil {
		from.AfterExpression = h
	} else {
		from.AfterExpression = Exprs{from.AfterExpression, h}
	}
	stmt.Clauses["FROM"] = from
}

// Build implements clause.Expression: @{FORCE_INDEX=`name`}.
func (h IndexHint) Build(b clause.Builder) {
	if h.Key == "" {
		return
	}
	b.WriteString("@{")
	b.WriteString(h.Type)
	b.WriteQuoted(h.Key)
	b.WriteByte('}')
}

var (
	_ gorm.StatementModifier = IndexHint{}
	_ clause.Expression      = IndexHint{}
	_ clause.Expression      = Exprs{}
)

// buildFrom renders FROM with the index hints of the query right after
// its first table, where Spanner reads a table hint, and before any join
// (GORM would put them after the joins). Other expressions after FROM
// stay where GORM puts them.
func buildFrom(c clause.Clause, b clause.Builder) {
	hints, rest := indexHints(c.AfterExpression, nil, nil)
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
			writeHints(b, hints)
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

// writeHints writes several table hints as Spanner takes them, in one
// @{A=a, B=b}.
func writeHints(b clause.Builder, hints []IndexHint) {
	n := 0
	for _, h := range hints {
		if h.Key == "" {
			continue
		}
		if n == 0 {
			b.WriteString("@{")
		} else {
			b.WriteString(", ")
		}
		b.WriteString(h.Type)
		b.WriteQuoted(h.Key)
		n++
	}
	if n > 0 {
		b.WriteByte('}')
	}
}

// indexHints splits an expression after FROM into its index hints and
// the rest.
func indexHints(e clause.Expression, hints []IndexHint, rest Exprs) ([]IndexHint, Exprs) {
	switch v := e.(type) {
	case nil:
	case IndexHint:
		hints = append(hints, v)
	case Exprs:
		for _, x := range v {
			hints, rest = indexHints(x, hints, rest)
		}
	default:
		rest = append(rest, v)
	}
	return hints, rest
}
