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
// Spanner reads it as @{FORCE_INDEX=`name`}.
type IndexHint = gormcore.IndexHint[hintSyntax]

// ForceIndex is the FORCE_INDEX hint: the query reads through the index
// name ("_BASE_TABLE" for the table itself).
func ForceIndex(name string) IndexHint {
	return IndexHint{Type: "FORCE_INDEX=", Key: name}
}

var (
	_ gorm.StatementModifier = IndexHint{}
	_ clause.Expression      = IndexHint{}
	_ gormcore.HintSyntax    = hintSyntax{}
)

// hintSyntax writes several table hints as Spanner takes them, in one
// @{A=a, B=b}, the index name quoted.
type hintSyntax struct{}

func (hintSyntax) Open() string                          { return "@{" }
func (hintSyntax) Close() string                         { return "}" }
func (hintSyntax) Check(string, string) error            { return nil }
func (hintSyntax) WriteKey(b clause.Builder, key string) { b.WriteQuoted(key) }

// buildFrom writes the query's index hints right after its first table,
// where Spanner reads a table hint, and before any join (GORM would put
// them after the joins).
func buildFrom(c clause.Clause, b clause.Builder) {
	gormcore.BuildFrom(c, b, gormcore.WriteHints[hintSyntax])
}
