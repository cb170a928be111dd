package sqlparse

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Quoted identifiers are written and read here, by the lexical rules of
// next and nextPG, so that what QuoteIdent writes is exactly one quoted
// identifier token to the scanner of its dialect, and to the database's.
//
// GoogleSQL: `...`, read with the escapes of a string literal. QuoteIdent
// puts a backslash before \ and ` (a bare backslash would escape the
// closing backtick: that is the injection this file exists to prevent),
// writes line feed and carriage return as \n and \r (either ends a quoted
// identifier in GoogleSQL) and the other control characters (U+0000 to
// U+001F, U+007F) as \xhh, so the text holds no invisible bytes;
// everything else is written as it is.
//
// PostgreSQL: "...", a quote doubled, no backslash escapes.
//
// Either dialect refuses an empty name (both engines do: "Invalid empty
// identifier", "zero-length delimited identifier") and a name that is not
// UTF-8 (Spanner fails such a statement with code Internal and no
// message); PostgreSQL also refuses NUL, at which Spanner's PostgreSQL
// reader stops reading the statement.

// ErrInvalidIdentifier is what an *IdentifierError unwraps to.
var ErrInvalidIdentifier = errors.New("invalid identifier")

// IdentifierError is the error of a name QuoteIdent cannot write, or of
// text UnquoteIdent cannot read; gRPC code InvalidArgument.
type IdentifierError struct {
	Dialect Dialect
	Name    string // the name, or the quoted text
	Reason  string // e.g. "empty", "not UTF-8"
}

func (e *IdentifierError) Error() string {
	return fmt.Sprintf("spannerfast: %v: %s identifier %q: %s", ErrInvalidIdentifier, e.Dialect, e.Name, e.Reason)
}

func (e *IdentifierError) Unwrap() error { return ErrInvalidIdentifier }

// GRPCStatus reports InvalidArgument.
func (e *IdentifierError) GRPCStatus() *status.Status {
	return status.New(codes.InvalidArgument, e.Error())
}

func identError(d Dialect, name, reason string) error {
	return &IdentifierError{Dialect: d, Name: name, Reason: reason}
}

// QuoteIdent returns name as one quoted identifier of dialect d, whatever
// the name holds: no name can end the identifier early. It refuses (with
// an *IdentifierError) an empty name, one that is not UTF-8 and, in
// PostgreSQL, one with NUL.
func QuoteIdent(d Dialect, name string) (string, error) {
	switch {
	case name == "":
		return "", identError(d, name, "empty")
	case !utf8.ValidString(name):
		return "", identError(d, name, "not UTF-8")
	case d == PostgreSQL && strings.IndexByte(name, 0) >= 0:
		return "", identError(d, name, "holds NUL, where Spanner's PostgreSQL stops reading the statement")
	}
	if d == PostgreSQL {
		return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`, nil
	}
	var b strings.Builder
	b.Grow(len(name) + 2)
	b.WriteByte('`')
	for i := 0; i < len(name); i++ {
		switch c := name[i]; {
		case c == '\\' || c == '`':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\r':
			b.WriteString(`\r`)
		case c < 0x20 || c == 0x7f:
			b.WriteString(`\x`)
			b.WriteByte(hexDigits[c>>4])
			b.WriteByte(hexDigits[c&0xf])
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('`')
	return b.String(), nil
}

const hexDigits = "0123456789abcdef"

// QuoteChar is the byte that opens a quoted identifier in d.
func QuoteChar(d Dialect) byte {
	if d == PostgreSQL {
		return '"'
	}
	return '`'
}

// CutQuotedIdent reads the quoted identifier that s starts with: its
// name, and the text after it. The token's end is the scanner's (next,
// nextPG); the name is read with the dialect's escapes, and refused as
// QuoteIdent refuses names.
func CutQuotedIdent(d Dialect, s string) (name, rest string, err error) {
	if s == "" || s[0] != QuoteChar(d) {
		return "", s, identError(d, s, "does not start with "+string(QuoteChar(d)))
	}
	if d != PostgreSQL && len(s) > 1 && s[1] == '`' {
		// `` is an empty identifier; the scanner would read ``` as the
		// start of a triple-quoted token, which GoogleSQL has not.
		return "", s, identError(d, s, "empty")
	}
	kind, end, err := d.rules().next(s, 0)
	if err != nil || kind != tokIdent {
		return "", s, identError(d, s, "not a closed quoted identifier")
	}
	body := s[1 : end-1]
	if d == PostgreSQL {
		name = strings.ReplaceAll(body, `""`, `"`)
	} else if name, err = unescapeGoogleSQL(body); err != nil {
		return "", s, identError(d, s[:end], err.Error())
	}
	switch {
	case name == "":
		return "", s, identError(d, s[:end], "empty")
	case !utf8.ValidString(name):
		return "", s, identError(d, s[:end], "not UTF-8")
	case d == PostgreSQL && strings.IndexByte(name, 0) >= 0:
		return "", s, identError(d, s[:end], "holds NUL")
	}
	return name, s[end:], nil
}

// UnquoteIdent returns the name of quoted, which must be one quoted
// identifier of d and nothing else.
func UnquoteIdent(d Dialect, quoted string) (string, error) {
	name, rest, err := CutQuotedIdent(d, quoted)
	if err != nil {
		return "", err
	}
	if rest != "" {
		return "", identError(d, quoted, "text after the quoted identifier")
	}
	return name, nil
}

// unescapeGoogleSQL reads the escapes of a GoogleSQL string literal (the
// text between the quotes): \a \b \f \n \r \t \v \\ \? \" \' \`, \ooo
// (three octal digits), \xhh, \uhhhh and \Uhhhhhhhh, each a character.
func unescapeGoogleSQL(body string) (string, error) {
	if strings.IndexByte(body, '\\') < 0 {
		return body, nil
	}
	var b strings.Builder
	for i := 0; i < len(body); i++ {
		c := body[i]
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		if i+1 >= len(body) {
			return "", errors.New("ends with a backslash")
		}
		i++
		if r, ok := simpleEscapes[body[i]]; ok {
			b.WriteByte(r)
			continue
		}
		var digits, base int
		switch body[i] {
		case '0', '1', '2', '3', '4', '5', '6', '7':
			digits, base = 3, 8
			i-- // the first digit is part of the number
		case 'x', 'X':
			digits, base = 2, 16
		case 'u':
			digits, base = 4, 16
		case 'U':
			digits, base = 8, 16
		default:
			return "", fmt.Errorf("illegal escape sequence \\%c", body[i])
		}
		if i+digits >= len(body) {
			return "", errors.New("escape sequence cut short")
		}
		v, err := strconv.ParseUint(body[i+1:i+1+digits], base, 32)
		if err != nil || v > utf8.MaxRune || (v >= 0xD800 && v <= 0xDFFF) || (base == 8 && v > 0377) {
			return "", fmt.Errorf("illegal escape sequence \\%s", body[i:i+1+digits])
		}
		b.WriteRune(rune(v))
		i += digits
	}
	return b.String(), nil
}

// simpleEscapes are GoogleSQL's one-letter escapes.
var simpleEscapes = map[byte]byte{
	'a': '\a', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t', 'v': '\v',
	'\\': '\\', '?': '?', '"': '"', '\'': '\'', '`': '`',
}
