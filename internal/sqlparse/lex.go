package sqlparse

import "strings"

// tokKind is what next found at a position.
type tokKind uint8

const (
	tokText       tokKind = iota // a word, a number, white space, punctuation
	tokPositional                // ?
	tokNamed                     // @name
	tokString                    // '...', "...", r'...' and triple-quoted forms
	tokBytes                     // b'...', rb'...', br'...' and triple-quoted forms
	tokIdent                     // `quoted identifier`
	tokComment                   // -- ..., # ..., /* ... */
	tokSpace                     // white space
	tokNumbered                  // PostgreSQL: $1, $2...
)

// literal reports whether k is text the rewrite must never change.
func (k tokKind) literal() bool { return k >= tokString && k <= tokComment }

// next returns the kind and end of the GoogleSQL token starting at sql[i].
// It and nextPG are the only places that know the lexical rules:
// classification, parameter scanning and the tests all walk the text with
// one of them (dialect.next).
func next(sql string, i int) (tokKind, int, error) {
	c := sql[i]
	switch {
	case c == '?':
		return tokPositional, i + 1, nil
	case c == '@' && i+1 < len(sql) && isIdentStart(sql[i+1]):
		return tokNamed, identEnd(sql, i+2), nil
	case c == '\'' || c == '"':
		end, err := quoted(sql, i, i)
		return tokString, end, err
	case c == '`':
		end, err := quoted(sql, i, i)
		return tokIdent, end, err
	case c == '-' && i+1 < len(sql) && sql[i+1] == '-', c == '#':
		return tokComment, lineEnd(sql, i), nil
	case c == '/' && i+1 < len(sql) && sql[i+1] == '*':
		j := strings.Index(sql[i+2:], "*/")
		if j < 0 {
			return tokComment, len(sql), syntaxError(sql, i, ErrUnclosedComment, "block comment")
		}
		return tokComment, i + 2 + j + 2, nil
	case isSpace(c):
		j := i + 1
		for j < len(sql) && isSpace(sql[j]) {
			j++
		}
		return tokSpace, j, nil
	case isIdentStart(c):
		j := identEnd(sql, i+1)
		if j < len(sql) && (sql[j] == '\'' || sql[j] == '"') {
			if k, ok := prefixKind(sql[i:j]); ok {
				end, err := quoted(sql, i, j)
				return k, end, err
			}
		}
		return tokText, j, nil
	}
	return tokText, i + 1, nil
}

// prefixKind reports whether word is a literal prefix (r, b, rb, br in any
// case) and what literal it makes.
func prefixKind(word string) (tokKind, bool) {
	switch strings.ToLower(word) {
	case "r":
		return tokString, true
	case "b", "rb", "br":
		return tokBytes, true
	}
	return 0, false
}

// quoted returns the end of the literal or quoted identifier whose opening
// quote is at q (start is where its prefix, if any, begins).
func quoted(sql string, start, q int) (int, error) {
	quote := sql[q]
	triple := q+2 < len(sql) && sql[q+1] == quote && sql[q+2] == quote
	j := q + 1
	if triple {
		j = q + 3
	}
	for j < len(sql) {
		switch sql[j] {
		case '\\':
			j += 2
			continue
		case quote:
			if !triple {
				return j + 1, nil
			}
			if j+2 < len(sql) && sql[j+1] == quote && sql[j+2] == quote {
				return j + 3, nil
			}
		case '\n':
			if !triple {
				return len(sql), syntaxError(sql, start, ErrUnclosedLiteral, literalName(sql[start:q], quote, false))
			}
		}
		j++
	}
	return len(sql), syntaxError(sql, start, ErrUnclosedLiteral, literalName(sql[start:q], quote, triple))
}

// literalName says in an error which literal was left open.
func literalName(prefix string, quote byte, triple bool) string {
	if quote == '`' {
		return "quoted identifier"
	}
	kind := "string literal"
	switch strings.ToLower(prefix) {
	case "r":
		kind = "raw string literal"
	case "b":
		kind = "bytes literal"
	case "rb", "br":
		kind = "raw bytes literal"
	}
	if triple {
		return "triple-quoted " + kind
	}
	return kind
}

func lineEnd(sql string, i int) int {
	j := strings.IndexByte(sql[i:], '\n')
	if j < 0 {
		return len(sql)
	}
	return i + j + 1
}

func identEnd(sql string, j int) int {
	for j < len(sql) && isIdentPart(sql[j]) {
		j++
	}
	return j
}

func isIdentStart(c byte) bool {
	return c == '_' || (c|0x20 >= 'a' && c|0x20 <= 'z')
}

func isIdentPart(c byte) bool {
	return isIdentStart(c) || (c >= '0' && c <= '9')
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

// nextPG is next for PostgreSQL. It differs from GoogleSQL in that:
//   - $1, $2... are parameters; $$...$$ and $tag$...$tag$ are strings (the
//     tag a letter or _, then letters, digits and _; another $ not starting
//     one of these is just a byte);
//   - '...' doubles a quote to escape it and may span lines; only E'...'
//     (escape strings) has backslash escapes; there are no raw, bytes or
//     triple-quoted literals;
//   - "..." is a quoted identifier ("" escapes a quote), ` is just a byte;
//   - /* */ comments nest; # is not a comment;
//   - identifiers may hold $ after their first character (a$1 is one word,
//     as PostgreSQL reads it) and bytes of UTF-8 letters.
//
// @name and ? are parameters as in GoogleSQL (scanPG rewrites them to $n).
func nextPG(sql string, i int) (tokKind, int, error) {
	c := sql[i]
	switch {
	case c == '?':
		return tokPositional, i + 1, nil
	case c == '@' && i+1 < len(sql) && isIdentStart(sql[i+1]):
		return tokNamed, identEnd(sql, i+2), nil
	case c == '$':
		if i+1 < len(sql) && sql[i+1] >= '0' && sql[i+1] <= '9' {
			j := i + 2
			for j < len(sql) && sql[j] >= '0' && sql[j] <= '9' {
				j++
			}
			return tokNumbered, j, nil
		}
		if tagEnd, ok := dollarTag(sql, i); ok {
			j := strings.Index(sql[tagEnd:], sql[i:tagEnd])
			if j < 0 {
				return tokString, len(sql), syntaxError(sql, i, ErrUnclosedLiteral, "dollar-quoted string")
			}
			return tokString, tagEnd + j + (tagEnd - i), nil
		}
		return tokText, i + 1, nil
	case c == '\'':
		end, err := quotedPG(sql, i, i, false)
		return tokString, end, err
	case c == '"':
		end, err := quotedPG(sql, i, i, false)
		return tokIdent, end, err
	case c == '-' && i+1 < len(sql) && sql[i+1] == '-':
		return tokComment, lineEnd(sql, i), nil
	case c == '/' && i+1 < len(sql) && sql[i+1] == '*':
		depth, j := 1, i+2
		for j+1 < len(sql) {
			switch {
			case sql[j] == '*' && sql[j+1] == '/':
				if depth--; depth == 0 {
					return tokComment, j + 2, nil
				}
				j += 2
			case sql[j] == '/' && sql[j+1] == '*':
				depth++
				j += 2
			default:
				j++
			}
		}
		return tokComment, len(sql), syntaxError(sql, i, ErrUnclosedComment, "block comment")
	case isSpace(c):
		j := i + 1
		for j < len(sql) && isSpace(sql[j]) {
			j++
		}
		return tokSpace, j, nil
	case isIdentStartPG(c):
		j := identEndPG(sql, i+1)
		if j == i+1 && (c|0x20) == 'e' && j < len(sql) && sql[j] == '\'' {
			end, err := quotedPG(sql, i, j, true)
			return tokString, end, err
		}
		return tokText, j, nil
	}
	return tokText, i + 1, nil
}

// dollarTag reports whether sql[i:] starts with a dollar quote ($$ or
// $tag$), and where it ends.
func dollarTag(sql string, i int) (int, bool) {
	j := i + 1
	if j < len(sql) && isIdentStartPG(sql[j]) {
		j++
		for j < len(sql) && (isIdentPart(sql[j]) || sql[j] >= 0x80) {
			j++
		}
	}
	if j < len(sql) && sql[j] == '$' {
		return j + 1, true
	}
	return 0, false
}

// quotedPG returns the end of the PostgreSQL string or quoted identifier
// whose opening quote is at q (start is where its E prefix, if any, begins).
// A doubled quote is an escaped one; in an escape string (E'...') a
// backslash also takes the next byte with it.
func quotedPG(sql string, start, q int, escapes bool) (int, error) {
	quote := sql[q]
	for j := q + 1; j < len(sql); j++ {
		switch sql[j] {
		case '\\':
			if escapes {
				j++
			}
		case quote:
			if j+1 < len(sql) && sql[j+1] == quote {
				j++
				continue
			}
			return j + 1, nil
		}
	}
	what := "string literal"
	switch {
	case quote == '"':
		what = "quoted identifier"
	case escapes:
		what = "escape string literal"
	}
	return len(sql), syntaxError(sql, start, ErrUnclosedLiteral, what)
}

// isIdentStartPG: PostgreSQL identifiers start with a letter, _ or a byte
// of a multi-byte UTF-8 character.
func isIdentStartPG(c byte) bool {
	return isIdentStart(c) || c >= 0x80
}

// identEndPG is identEnd for PostgreSQL, whose identifiers may also hold $
// and non-ASCII letters.
func identEndPG(sql string, j int) int {
	for j < len(sql) && (isIdentPart(sql[j]) || sql[j] == '$' || sql[j] >= 0x80) {
		j++
	}
	return j
}
