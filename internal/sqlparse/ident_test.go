package sqlparse

import (
	"errors"
	"testing"
	"unicode/utf8"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// injection is the name of issue 28: in GoogleSQL, escaping only the
// backtick leaves x\\` (an escaped backslash, then the closing backtick),
// and the rest runs as two more statements.
const injection = "x\\` FROM t; DELETE FROM t WHERE TRUE; --"

// TestQuoteIdent: the quoted form of each name in each dialect, and the
// names refused.
func TestQuoteIdent(t *testing.T) {
	for _, c := range []struct {
		d          Dialect
		name, want string
	}{
		{GoogleSQL, "users", "`users`"},
		{GoogleSQL, injection, "`x\\\\\\` FROM t; DELETE FROM t WHERE TRUE; --`"},
		{GoogleSQL, "a`b", "`a\\`b`"},
		{GoogleSQL, `a\`, "`a\\\\`"},
		{GoogleSQL, "a\nb\rc\x00d\x7fe\tf", "`a\\nb\\rc\\x00d\\x7fe\\x09f`"},
		{GoogleSQL, "é😀\"'", "`é😀\"'`"},
		{GoogleSQL, "`", "`\\``"},
		{PostgreSQL, "users", `"users"`},
		{PostgreSQL, `a"b`, `"a""b"`},
		{PostgreSQL, `". FROM t; DELETE FROM t; --`, `""". FROM t; DELETE FROM t; --"`},
		{PostgreSQL, "a\\b`\n", "\"a\\b`\n\""},
	} {
		got, err := QuoteIdent(c.d, c.name)
		if err != nil || got != c.want {
			t.Errorf("QuoteIdent(%v, %q) = %q, %v; want %q", c.d, c.name, got, err, c.want)
		}
	}
	for _, c := range []struct {
		d    Dialect
		name string
	}{
		{GoogleSQL, ""}, {PostgreSQL, ""},
		{GoogleSQL, "a\xffb"}, {PostgreSQL, "a\xffb"},
		{PostgreSQL, "a\x00b"},
	} {
		got, err := QuoteIdent(c.d, c.name)
		var ie *IdentifierError
		if got != "" || !errors.As(err, &ie) || !errors.Is(err, ErrInvalidIdentifier) || status.Code(err) != codes.InvalidArgument {
			t.Errorf("QuoteIdent(%v, %q) = %q, %v; want an InvalidArgument *IdentifierError", c.d, c.name, got, err)
		}
	}
}

// TestUnquoteIdent: GoogleSQL's escapes (those the emulator was seen to
// read: \n, \x00, \xff as U+00FF, \u00e9, \U0001F600, \101, \?, \\, \`),
// PostgreSQL's doubled quote, and what neither reads.
func TestUnquoteIdent(t *testing.T) {
	for _, c := range []struct {
		d            Dialect
		quoted, want string
	}{
		{GoogleSQL, "`a\\nb`", "a\nb"},
		{GoogleSQL, "`a\\x00b`", "a\x00b"},
		{GoogleSQL, "`a\\xffb`", "aÿb"},
		{GoogleSQL, "`a\\u00e9b`", "aéb"},
		{GoogleSQL, "`a\\U0001F600b`", "a😀b"},
		{GoogleSQL, "`a\\101b`", "aAb"},
		{GoogleSQL, "`a\\?b`", "a?b"},
		{GoogleSQL, "`a\\\\b`", `a\b`},
		{GoogleSQL, "`a\\`b`", "a`b"},
		{GoogleSQL, "`a\\a\\b\\f\\r\\t\\v\\\"\\'`", "a\a\b\f\r\t\v\"'"},
		{PostgreSQL, `"a""b"`, `a"b`},
		{PostgreSQL, `"a\b"`, `a\b`},
	} {
		got, err := UnquoteIdent(c.d, c.quoted)
		if err != nil || got != c.want {
			t.Errorf("UnquoteIdent(%v, %q) = %q, %v; want %q", c.d, c.quoted, got, err, c.want)
		}
	}
	for _, c := range []struct {
		d      Dialect
		quoted string
	}{
		{GoogleSQL, "``"}, {GoogleSQL, "```a```"}, {GoogleSQL, "`a\\qb`"}, {GoogleSQL, "`a\\ud800b`"},
		{GoogleSQL, "`a\\x4`"}, {GoogleSQL, "`a\\400`"}, {GoogleSQL, "`a\nb`"}, {GoogleSQL, "`a"},
		{GoogleSQL, "`a`b"}, {GoogleSQL, "a"}, {GoogleSQL, "`\\xff\xff`"},
		{PostgreSQL, `""`}, {PostgreSQL, `"a`}, {PostgreSQL, `"a"b`}, {PostgreSQL, "`a`"}, {PostgreSQL, "\"a\x00\""},
	} {
		if got, err := UnquoteIdent(c.d, c.quoted); !errors.Is(err, ErrInvalidIdentifier) {
			t.Errorf("UnquoteIdent(%v, %q) = %q, %v; want ErrInvalidIdentifier", c.d, c.quoted, got, err)
		}
	}
}

// FuzzQuoteIdent: for any name, in each dialect, QuoteIdent refuses it
// exactly when it is empty, not UTF-8 or (PostgreSQL) holds NUL; else its
// text is one quoted identifier token to the dialect's scanner, from the
// first byte to the last, and reads back as the same name. The seed
// corpus (testdata/fuzz/FuzzQuoteIdent) holds issue 28's names.
func FuzzQuoteIdent(f *testing.F) {
	for _, s := range []string{"users", injection, `". FROM t; DELETE FROM t WHERE TRUE; --`, "a`b", `a\`, "\\`", "\n", "\r", "\x00", "é", "```", `""`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		for _, d := range []Dialect{GoogleSQL, PostgreSQL} {
			q, err := QuoteIdent(d, name)
			invalid := name == "" || !utf8.ValidString(name) || (d == PostgreSQL && containsNUL(name))
			if invalid != (err != nil) {
				t.Fatalf("QuoteIdent(%v, %q) = %q, %v", d, name, q, err)
			}
			if err != nil {
				continue
			}
			kind, end, err := d.rules().next(q, 0)
			if err != nil || kind != tokIdent || end != len(q) {
				t.Fatalf("%v: %q quoted as %q, which scans as a %v token of %d bytes (%v)", d, name, q, kind, end, err)
			}
			if back, err := UnquoteIdent(d, q); err != nil || back != name {
				t.Fatalf("%v: %q quoted as %q reads back as %q, %v", d, name, q, back, err)
			}
		}
	})
}

func containsNUL(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == 0 {
			return true
		}
	}
	return false
}
