package gormcore

import (
	"slices"
	"strings"
	"testing"

	"github.com/spannerfast/spannerfast/internal/sqlparse"
)

// TestQuoteTo: names and dotted paths in both dialects, parts already
// quoted, text that is no path (quoted whole), names refused (the empty
// quoted identifier), and issue 28's attacks quoted as one identifier.
func TestQuoteTo(t *testing.T) {
	g, p := sqlparse.GoogleSQL, sqlparse.PostgreSQL
	for _, c := range []struct {
		d          sqlparse.Dialect
		name, want string
	}{
		{g, "users", "`users`"},
		{g, "s.users", "`s`.`users`"},
		{g, "`users`", "`users`"},
		{g, "`s`.users", "`s`.`users`"},
		{g, "`a.b`", "`a.b`"},
		{g, "`a\\`b`", "`a\\`b`"},
		{g, "x\\` FROM t; DELETE FROM t WHERE TRUE; --", "`x\\\\\\` FROM t; DELETE FROM t WHERE TRUE; --`"},
		{g, "`a`;DROP TABLE t", "`\\`a\\`;DROP TABLE t`"},
		{g, "a..b", "`a..b`"},
		{g, "a.", "`a.`"},
		{g, ".a", "`.a`"},
		{g, "a`b.c", "`a\\`b.c`"},
		{g, "", "``"},
		{g, "a\xff", "``"},
		{g, "a.\xff", "`a`.``"},
		{p, "users", `"users"`},
		{p, "s.users", `"s"."users"`},
		{p, `"users"`, `"users"`},
		{p, `"a""b".c`, `"a""b"."c"`},
		{p, `". FROM t; DELETE FROM t WHERE TRUE; --`, `""". FROM t; DELETE FROM t WHERE TRUE; --"`},
		{p, "a`b", "\"a`b\""},
		{p, "a\x00b", `""`},
	} {
		var b strings.Builder
		QuoteTo(c.d, &b, c.name)
		if got := b.String(); got != c.want {
			t.Errorf("QuoteTo(%v, %q) = %q, want %q", c.d, c.name, got, c.want)
		}
	}
}

// FuzzQuoteTo: for any name, in both dialects, QuoteTo writes quoted
// identifier tokens joined by single dots and nothing else (each token's
// end found by the dialect's scanner, through sqlparse.CutQuotedIdent),
// naming the parts of the name's path; a name without dots or quotes is
// one identifier naming it. Seeds: issue 28's attacks.
func FuzzQuoteTo(f *testing.F) {
	for _, s := range []string{"users", "s.users", "`a`.b", `"a"."b"`, "x\\` FROM t; DELETE FROM t WHERE TRUE; --",
		`". FROM t; DELETE FROM t WHERE TRUE; --`, `""0`, "a..b", "", "`", `"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		for _, d := range []sqlparse.Dialect{sqlparse.GoogleSQL, sqlparse.PostgreSQL} {
			var b strings.Builder
			QuoteTo(d, &b, name)
			out := b.String()
			empty := string([]byte{sqlparse.QuoteChar(d), sqlparse.QuoteChar(d)})
			var names []string
			for rest := out; ; {
				var n string
				if strings.HasPrefix(rest, empty) && (len(rest) == 2 || rest[2] == '.') {
					rest = rest[2:] // a refused name
				} else {
					var err error
					if n, rest, err = sqlparse.CutQuotedIdent(d, rest); err != nil {
						t.Fatalf("%v: QuoteTo(%q) = %q: %v", d, name, out, err)
					}
				}
				names = append(names, n)
				if rest == "" {
					break
				}
				if rest[0] != '.' {
					t.Fatalf("%v: QuoteTo(%q) = %q: %q after an identifier", d, name, out, rest)
				}
				rest = rest[1:]
			}
			if want := path(d, name); len(names) != len(want) {
				t.Fatalf("%v: QuoteTo(%q) = %q names %q, want the path %q", d, name, out, names, want)
			}
			plain := !strings.ContainsAny(name, ".`\"")
			if _, err := sqlparse.QuoteIdent(d, name); plain && err == nil && !slices.Equal(names, []string{name}) {
				t.Fatalf("%v: QuoteTo(%q) = %q names %q", d, name, out, names)
			}
		}
	})
}
