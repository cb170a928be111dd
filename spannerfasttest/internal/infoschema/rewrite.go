package infoschema

import (
	"strings"

	"cloud.google.com/go/spanner/spansql"
	"github.com/spannerfast/spannerfast/spannerfasttest/internal/sqltext"
)

// isPrefix marks a table name as an INFORMATION_SCHEMA table after
// rewriting: no user table can have a dot in its name.
const isPrefix = "INFORMATION_SCHEMA."

// rewriteInfoSchema prepares a query that names INFORMATION_SCHEMA.X for
// spansql, which knows neither dotted table names, nor table aliases without
// AS, nor a trailing comma in the select list. Each INFORMATION_SCHEMA.X
// outside string literals becomes the quoted identifier
// `INFORMATION_SCHEMA.X`. ok is false when the query names none.
func rewriteInfoSchema(sql string) (out string, ok bool) {
	var b strings.Builder
	for i := 0; i < len(sql); {
		c := sql[i]
		switch {
		case c == '\'' || c == '"' || c == '`':
			j := sqltext.SkipQuoted(sql, i)
			b.WriteString(sql[i:j])
			i = j
		case sqltext.IsWordByte(c) && isWordStart(sql, i) && boolKeywords[strings.ToUpper(nextWord(sql, i))]:
			w := nextWord(sql, i)
			b.WriteString(w)
			i += len(w)
			if path, end := barePath(sql, i); path != "" {
				b.WriteString(" (" + path + " = TRUE)")
				i = end
			}
		case c == ',' && strings.EqualFold(nextWord(sql, i+1), "FROM"):
			b.WriteByte(' ')
			i++
		case isWordStart(sql, i) && hasFoldPrefix(sql[i:], "INFORMATION_SCHEMA"):
			j := sqltext.SkipSpace(sql, i+len("INFORMATION_SCHEMA"))
			if j >= len(sql) || sql[j] != '.' {
				b.WriteByte(c)
				i++
				continue
			}
			name := nextWord(sql, j+1)
			j = sqltext.SkipSpace(sql, j+1) + len(name)
			b.WriteString("`" + isPrefix + strings.ToUpper(name) + "`")
			if alias := nextWord(sql, j); alias != "" && !aliasStop[strings.ToUpper(alias)] {
				b.WriteString(" AS")
			}
			i, ok = j, true
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String(), ok
}

// boolKeywords precede a boolean operand. spansql wants a boolean
// expression there and refuses a bare column such as "AND I.IS_UNIQUE".
var boolKeywords = map[string]bool{"AND": true, "OR": true, "NOT": true, "WHERE": true, "ON": true}

// barePath finds a lone column reference (a or a.b) used as a boolean
// operand from i: one followed by the end of the query, ")" or a word
// that ends the operand. It returns "" otherwise.
func barePath(s string, i int) (path string, end int) {
	j := sqltext.SkipSpace(s, i)
	start := j
	for {
		w := nextWord(s, j)
		if w == "" || j != sqltext.SkipSpace(s, j) && j != start {
			return "", 0
		}
		if operandStop[strings.ToUpper(w)] || w[0] >= '0' && w[0] <= '9' {
			return "", 0
		}
		j += len(w)
		if j < len(s) && s[j] == '.' {
			j++
			continue
		}
		break
	}
	k := sqltext.SkipSpace(s, j)
	if k == len(s) || s[k] == ')' || operandStop[strings.ToUpper(nextWord(s, k))] && nextWord(s, k) != "" {
		return s[start:j], j
	}
	return "", 0
}

// operandStop holds the words that end a boolean operand, or that cannot
// be one.
var operandStop = map[string]bool{
	"AND": true, "OR": true, "NOT": true, "ORDER": true, "GROUP": true, "LIMIT": true, "HAVING": true,
	"TRUE": true, "FALSE": true, "NULL": true, "EXISTS": true, "UNION": true, "LEFT": true, "INNER": true,
	"JOIN": true, "CROSS": true, "WHERE": true, "OFFSET": true,
}

// aliasStop holds the words that may follow a table name without being
// its alias.
var aliasStop = map[string]bool{
	"AS": true, "WHERE": true, "LEFT": true, "RIGHT": true, "INNER": true, "FULL": true, "CROSS": true,
	"JOIN": true, "ON": true, "USING": true, "ORDER": true, "GROUP": true, "LIMIT": true, "OFFSET": true,
	"HAVING": true, "UNION": true, "EXCEPT": true, "INTERSECT": true, "WINDOW": true, "TABLESAMPLE": true,
	"HASH": true, "LOOKUP": true,
}

// nextWord returns the identifier starting at the first non-space byte
// from i, or "".
func nextWord(s string, i int) string {
	i = sqltext.SkipSpace(s, i)
	j := i
	for j < len(s) && sqltext.IsWordByte(s[j]) {
		j++
	}
	return s[i:j]
}

func isWordStart(s string, i int) bool {
	return i == 0 || !sqltext.IsWordByte(s[i-1]) && s[i-1] != '.' && s[i-1] != '@'
}

func hasFoldPrefix(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix) &&
		(len(s) == len(prefix) || !sqltext.IsWordByte(s[len(prefix)]))
}

// infoSchemaTable returns X for a FROM item naming INFORMATION_SCHEMA.X.
func infoSchemaTable(id spansql.ID) (string, bool) {
	return strings.CutPrefix(string(id), isPrefix)
}
