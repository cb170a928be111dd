package sqlparse

import (
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// The savepoint statements, the same in both dialects but for the words
// PostgreSQL adds to ROLLBACK:
//
//	SAVEPOINT name
//	ROLLBACK TO [SAVEPOINT] name   (PostgreSQL: ROLLBACK [WORK | TRANSACTION] TO [SAVEPOINT] name)
//	RELEASE [SAVEPOINT] name
//
// A name is one identifier, plain or quoted by the dialect's rule. A
// quoted one stands for its text; a plain one is kept as written in
// GoogleSQL and folded to lower case in PostgreSQL, as PostgreSQL folds
// unquoted identifiers. How names compare (GoogleSQL ignores case) is the
// executor's rule, which the Go API shares.

// rollbackTo reports whether ROLLBACK's rest is a ROLLBACK TO, and returns
// the text after TO.
func rollbackTo(d *dialect, keyword, rest string) (string, bool) {
	if keyword != "ROLLBACK" {
		return "", false
	}
	k, w, after := nextWord(d, rest)
	if d.pg && k == tokText && (strings.EqualFold(w, "TRANSACTION") || strings.EqualFold(w, "WORK")) {
		k, w, after = nextWord(d, after)
	}
	if k == tokText && strings.EqualFold(w, "TO") {
		return after, true
	}
	return "", false
}

// nextWord returns the first token of text that is neither white space nor
// a comment, its kind and the text after it; "" at the end or on a lexical
// error.
func nextWord(d *dialect, text string) (tokKind, string, string) {
	for i := 0; i < len(text); {
		k, end, err := d.next(text, i)
		if err != nil {
			return tokText, "", ""
		}
		if k != tokSpace && k != tokComment {
			return k, text[i:end], text[end:]
		}
		i = end
	}
	return tokText, "", ""
}

// savepointName reads the name that ends a savepoint statement (stmt names
// it in errors), after an optional SAVEPOINT keyword when optional is set.
func savepointName(d *dialect, stmt, text string, optional bool) (string, error) {
	type token struct {
		kind tokKind
		text string
	}
	var ts []token
	for rest := text; ; {
		k, w, after := nextWord(d, rest)
		if w == "" {
			break
		}
		ts = append(ts, token{k, w})
		rest = after
	}
	if n := len(ts); n > 0 && ts[n-1].kind == tokText && ts[n-1].text == ";" {
		ts = ts[:n-1]
	}
	if optional && len(ts) == 2 && ts[0].kind == tokText && strings.EqualFold(ts[0].text, "SAVEPOINT") {
		ts = ts[1:]
	}
	if len(ts) == 1 {
		switch t := ts[0]; {
		case t.kind == tokIdent:
			name, err := UnquoteIdent(d.dialect(), t.text)
			if err == nil {
				return name, nil
			}
		case t.kind == tokText && isPlainName(d, t.text):
			if d.pg {
				return asciiLower(t.text), nil
			}
			return t.text, nil
		}
	}
	return "", status.Errorf(codes.InvalidArgument,
		"spannerfast: %s: want one savepoint name (an identifier), got %q", stmt, strings.TrimSpace(text))
}

// isPlainName reports whether w is a whole unquoted identifier of d.
func isPlainName(d *dialect, w string) bool {
	if w == "" {
		return false
	}
	if d.pg {
		return isIdentStartPG(w[0]) && identEndPG(w, 1) == len(w)
	}
	return isIdentStart(w[0]) && identEnd(w, 1) == len(w)
}

// asciiLower folds A-Z to a-z, as PostgreSQL folds an unquoted identifier
// (other letters are left as they are).
func asciiLower(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'A' && r <= 'Z' {
			return r + ('a' - 'A')
		}
		return r
	}, s)
}
