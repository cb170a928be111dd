package gormcore

import (
	"strings"

	"gorm.io/gorm/clause"

	"github.com/spannerfast/spannerfast/internal/sqlparse"
)

// QuoteTo is both dialectors' gorm.Dialector.QuoteTo: it writes name as
// quoted identifiers of dialect d joined by dots, and nothing else, so no
// name (a column, an alias, a table, an index, a sequence, a hint's
// index) can end its identifier early and add SQL. The quoting itself is
// sqlparse.QuoteIdent's, the rule of each dialect's lexer.
//
// GORM gives a qualified name as one string, schema.table or
// table.column, and some callers quote a part themselves (`users`), so
// name is read as a path first (path): parts split at dots, a part that
// is one quoted identifier read as the name it quotes. Text that is not
// such a path (a quote inside a part, an empty part) is one name, quoted
// whole.
//
// A name QuoteIdent refuses (empty, not UTF-8, PostgreSQL's NUL) is
// written as the empty quoted identifier: GORM gives QuoteTo no way to
// return an error, and both engines refuse that token with their own
// error ("Invalid empty identifier", "zero-length delimited
// identifier"), so the statement fails rather than running on a name it
// was not given.
func QuoteTo(d sqlparse.Dialect, w clause.Writer, name string) {
	for i, part := range path(d, name) {
		if i > 0 {
			_ = w.WriteByte('.')
		}
		q, err := sqlparse.QuoteIdent(d, part)
		if err != nil {
			q = string([]byte{sqlparse.QuoteChar(d), sqlparse.QuoteChar(d)})
		}
		_, _ = w.WriteString(q)
	}
}

// path splits name into the names of a dotted path (see QuoteTo), or
// returns name alone when it is not one.
func path(d sqlparse.Dialect, name string) []string {
	quote := sqlparse.QuoteChar(d)
	if strings.IndexByte(name, '.') < 0 && strings.IndexByte(name, quote) < 0 {
		return []string{name}
	}
	var parts []string
	for rest := name; ; {
		var part string
		if rest != "" && rest[0] == quote {
			var err error
			if part, rest, err = sqlparse.CutQuotedIdent(d, rest); err != nil {
				return []string{name}
			}
		} else {
			end := strings.IndexByte(rest, '.')
			if end < 0 {
				end = len(rest)
			}
			part, rest = rest[:end], rest[end:]
			if part == "" || strings.IndexByte(part, quote) >= 0 {
				return []string{name}
			}
		}
		parts = append(parts, part)
		if rest == "" {
			return parts
		}
		if rest[0] != '.' || len(rest) == 1 {
			return []string{name}
		}
		rest = rest[1:]
	}
}
