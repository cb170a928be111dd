package spannerpg

import (
	"fmt"
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/spannerfast/spannerfast/spannergorm/internal/gormcore"
)

// Exprs is a list of expressions written one after the other; it is how
// several hints share the FROM clause (the same type as spannergorm's).
type Exprs = gormcore.Exprs

// IndexHint is a table hint, such as FORCE_INDEX, for the table of a
// query: db.Clauses(spannerpg.ForceIndex("idx_singers_name")).Find(&s)
// reads through that index. Type is the hint and its equals sign
// ("FORCE_INDEX="), Key the index name; an empty Key writes nothing. It
// has spannergorm.IndexHint's API; PostgreSQL writes it as a comment,
// /*@ FORCE_INDEX=name */.
type IndexHint = gormcore.IndexHint[hintSyntax]

// ForceIndex is the FORCE_INDEX hint: the query reads through the index
// name ("_base_table" for the table itself).
func ForceIndex(name string) IndexHint {
	return IndexHint{Type: "FORCE_INDEX=", Key: name}
}

var (
	_ gorm.StatementModifier = IndexHint{}
	_ clause.Expression      = IndexHint{}
	_ gormcore.HintSyntax    = hintSyntax{}
)

// buildFrom writes the query's index hints right after its table.
func buildFrom(c clause.Clause, b clause.Builder) {
	gormcore.BuildFrom(c, b, gormcore.WriteHints[hintSyntax])
}

// hintSyntax writes table hints as Spanner's PostgreSQL dialect takes
// them: one comment, /*@ A=a, B=b */. The index name is written as
// given: it is an identifier in a comment, where quoting does not apply,
// so a name with characters other than letters, digits and _ is refused.
type hintSyntax struct{}

func (hintSyntax) Open() string                          { return "/*@ " }
func (hintSyntax) Close() string                         { return " */" }
func (hintSyntax) WriteKey(b clause.Builder, key string) { b.WriteString(key) }

func (hintSyntax) Check(typ, key string) error {
	if !gormcore.IsWord(key) || !gormcore.IsWord(strings.TrimSuffix(typ, "=")) {
		return fmt.Errorf("%w: hint %s%s", ErrHint, typ, key)
	}
	return nil
}

// ErrHint is the error of a hint whose name or value is not a plain word
// (letters, digits and _): PostgreSQL-dialect hints live in a comment,
// where nothing can be quoted.
var ErrHint = status.Error(codes.InvalidArgument, "spannerpg: invalid hint")
