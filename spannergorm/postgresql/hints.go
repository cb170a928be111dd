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
type IndexHint struct {
	Type string
	Key  string
}

// ForceIndex is the FORCE_INDEX hint: the query reads through the index
// name ("_base_table" for the table itself).
func ForceIndex(name string) IndexHint {
	return IndexHint{Type: "FORCE_INDEX=", Key: name}
}

// ModifyStatement implements gorm.StatementModifier.
func (h IndexHint) ModifyStatement(stmt *gorm.Statement) { gormcore.AppendAfterFrom(stmt, h) }

// Build implements clause.Expression.
func (h IndexHint) Build(b clause.Builder) { writeHints(b, []IndexHint{h}) }

var (
	_ gorm.StatementModifier = IndexHint{}
	_ clause.Expression      = IndexHint{}
)

// buildFrom writes the query's index hints right after its table.
func buildFrom(c clause.Clause, b clause.Builder) { gormcore.BuildFrom(c, b, writeHints) }

// writeHints writes table hints as Spanner's PostgreSQL dialect takes
// them: one comment, /*@ A=a, B=b */. The index name is written as
// given: it is an identifier in a comment, where quoting does not apply,
// so a name with characters other than letters, digits and _ is refused.
func writeHints(b clause.Builder, hints []IndexHint) {
	n := 0
	for _, h := range hints {
		if h.Key == "" {
			continue
		}
		if !isHintWord(h.Key) || !isHintWord(strings.TrimSuffix(h.Type, "=")) {
			_ = b.AddError(fmt.Errorf("%w: hint %s%s", ErrHint, h.Type, h.Key))
			return
		}
		if n == 0 {
			b.WriteString("/*@ ")
		} else {
			b.WriteString(", ")
		}
		b.WriteString(h.Type)
		b.WriteString(h.Key)
		n++
	}
	if n > 0 {
		b.WriteString(" */")
	}
}

// ErrHint is the error of a hint whose name or value is not a plain word
// (letters, digits and _): PostgreSQL-dialect hints live in a comment,
// where nothing can be quoted.
var ErrHint = status.Error(codes.InvalidArgument, "spannerpg: invalid hint")

func isHintWord(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return s != ""
}
