package spannergorm

import (
	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/spannerfast/spannerfast/spannergorm/internal/gormcore"
)

// Exprs is a list of expressions written one after the other, separated
// by a space; it is how several hints share the FROM clause.
type Exprs = gormcore.Exprs

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
func (h IndexHint) ModifyStatement(stmt *gorm.Statement) { gormcore.AppendAfterFrom(stmt, h) }

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
)

// buildFrom writes the query's index hints right after its first table,
// where Spanner reads a table hint, and before any join (GORM would put
// them after the joins).
func buildFrom(c clause.Clause, b clause.Builder) { gormcore.BuildFrom(c, b, writeHints) }

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
