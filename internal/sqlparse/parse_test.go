package sqlparse

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// TestLiterals: every literal form hides `?`, @name, quotes of the other
// kind and comment markers; text after it is scanned again.
func TestLiterals(t *testing.T) {
	inside := `? @x -- # /* */ ` + "`"
	for _, lit := range []string{
		`'` + inside + `"'`, `"` + inside + `'"`,
		`'''` + inside + `' '' " """ ` + "\n" + `'''`, `"""` + inside + `" "" ''' ` + "\n" + `"""`,
		`r'` + inside + `\'\\'`, `R"` + inside + `"`, `r'''` + inside + `'''`, `R"""` + inside + `"""`,
		`b'` + inside + `'`, `B"` + inside + `"`, `b'''` + inside + `'''`, `B"""` + inside + `"""`,
		`rb'` + inside + `'`, `RB"` + inside + `"`, `bR'''` + inside + `'''`, `Br"""` + inside + `"""`,
		`'it\'s'`, `"say \"hi\""`, `'a\\'`, `'''a\''''`, `""`, `''`, `'\n?'`,
		"`" + `? @x '"` + "`", "`a\\`b`",
		"-- ? @x '\n", "# ? @x \"\n", "/* ? @x ' \n */", "/**/",
	} {
		sql := "SELECT " + lit + " ?"
		st, err := Parse(sql)
		want := "SELECT " + lit + " @p1"
		if err != nil || st.SQL != want || !slices.Equal(st.Params, []string{"p1"}) {
			t.Errorf("Parse(%q) = %q %q %v; want %q [p1]", sql, st.SQL, st.Params, err, want)
		}
		if got := literalTexts(t, GoogleSQL, sql); len(got) != 1 || got[0] != lit {
			t.Errorf("literals of %q = %q, want [%q]", sql, got, lit)
		}
	}
}

// TestPrefixesAreWords: r, b, rb and br are literal prefixes only as whole
// words; other words before a quote are just words.
func TestPrefixesAreWords(t *testing.T) {
	for sql, want := range map[string][]string{
		"SELECT x'?'":   {"'?'"},
		"SELECT bar'?'": {"'?'"},
		"SELECT rb'?'":  {"rb'?'"},
		"SELECT _b'?'":  {"'?'"},
		"SELECT @b'?'":  {"'?'"}, // the parameter @b, then a string
	} {
		if got := literalTexts(t, GoogleSQL, sql); !slices.Equal(got, want) {
			t.Errorf("literals of %q = %q, want %q", sql, got, want)
		}
	}
}

func TestParams(t *testing.T) {
	for _, c := range []struct {
		in, out string
		names   []string
	}{
		{"SELECT 1", "SELECT 1", nil},
		{"SELECT * FROM T WHERE a = ? AND b = ?", "SELECT * FROM T WHERE a = @p1 AND b = @p2", []string{"p1", "p2"}},
		{"SELECT * FROM T WHERE a=?AND b=?1", "SELECT * FROM T WHERE a=@p1 AND b=@p2 1", []string{"p1", "p2"}},
		{"SELECT @b, @a, @B, @_c1, @b", "SELECT @b, @a, @B, @_c1, @b", []string{"b", "a", "B", "_c1"}},
		{"@{FORCE_INDEX=i} SELECT @x", "@{FORCE_INDEX=i} SELECT @x", []string{"x"}},
		{"SELECT @1, @, @@x", "SELECT @1, @, @@x", []string{"x"}},
		{"SELECT 'é?', ? -- ü", "SELECT 'é?', @p1 -- ü", []string{"p1"}},
		{"?", "@p1", []string{"p1"}},
	} {
		st, err := Parse(c.in)
		if err != nil || st.SQL != c.out || !slices.Equal(st.Params, c.names) {
			t.Errorf("Parse(%q) = %q %q %v; want %q %q", c.in, st.SQL, st.Params, err, c.out, c.names)
		}
	}
}

func TestErrors(t *testing.T) {
	checkSyntaxErrors(t, GoogleSQL, []syntaxCase{
		{"SELECT 'abc", ErrUnclosedLiteral, "string literal", 7},
		{"SELECT 'ab\nc'", ErrUnclosedLiteral, "string literal", 7},
		{`SELECT "abc\"`, ErrUnclosedLiteral, "string literal", 7},
		{"SELECT '''abc''", ErrUnclosedLiteral, "triple-quoted string literal", 7},
		{`SELECT R"""abc`, ErrUnclosedLiteral, "triple-quoted raw string literal", 7},
		{"SELECT b'abc", ErrUnclosedLiteral, "bytes literal", 7},
		{"SELECT Rb'abc", ErrUnclosedLiteral, "raw bytes literal", 7},
		{"SELECT `abc", ErrUnclosedLiteral, "quoted identifier", 7},
		{"SELECT 1 /* abc", ErrUnclosedComment, "block comment", 9},
		{"/* abc", ErrUnclosedComment, "block comment", 0},
		{"SET x = 'abc", ErrUnclosedLiteral, "string literal", 8},
		{"SELECT ?, @name", ErrMixedParams, "@name", 10},
		{"SELECT @name, ?", ErrMixedParams, "@name", 7},
	})
}

func TestClassify(t *testing.T) {
	checkClassify(t, GoogleSQL, []classifyCase{
		{"SELECT 1", Query, NotDML, "SELECT", "1"},
		{"  -- c\n /* c */ # c\n@{FORCE_INDEX=x} select 1", Query, NotDML, "SELECT", "1"},
		{"@{a='}'} WITH t AS (SELECT 1) SELECT * FROM t", Query, NotDML, "WITH", "t AS (SELECT 1) SELECT * FROM t"},
		{"graph g match (n) return n", Query, NotDML, "GRAPH", "g match (n) return n"},
		{"(SELECT 1)", Query, NotDML, "", "(SELECT 1)"},
		{"insert into T (a) values (1)", DML, Insert, "INSERT", "into T (a) values (1)"},
		{"@{PDML_MAX_PARALLELISM=1} Update T SET a=1 WHERE true", DML, Update, "UPDATE", "T SET a=1 WHERE true"},
		{"DELETE FROM T WHERE true", DML, Delete, "DELETE", "FROM T WHERE true"},
		{"CREATE TABLE T (a INT64) PRIMARY KEY (a)", DDL, NotDML, "CREATE", "TABLE T (a INT64) PRIMARY KEY (a)"},
		{"drop table T", DDL, NotDML, "DROP", "table T"},
		{"ALTER TABLE T ADD COLUMN b INT64", DDL, NotDML, "ALTER", "TABLE T ADD COLUMN b INT64"},
		{"analyze", DDL, NotDML, "ANALYZE", ""},
		{"GRANT SELECT ON TABLE T TO ROLE r", DDL, NotDML, "GRANT", "SELECT ON TABLE T TO ROLE r"},
		{"REVOKE SELECT ON TABLE T FROM ROLE r", DDL, NotDML, "REVOKE", "SELECT ON TABLE T FROM ROLE r"},
		{"RENAME TABLE a TO b", DDL, NotDML, "RENAME", "TABLE a TO b"},
		{"SET RAW_DECODE = true", Client, NotDML, "SET", "RAW_DECODE = true"},
		{"show variable raw_decode", Client, NotDML, "SHOW", "variable raw_decode"},
		{"RESET raw_decode", Client, NotDML, "RESET", "raw_decode"},
		{"begin transaction read only", Client, NotDML, "BEGIN", "transaction read only"},
		{"Commit", Client, NotDML, "COMMIT", ""},
		{"ROLLBACK TRANSACTION", Client, NotDML, "ROLLBACK", "TRANSACTION"},
		{"START BATCH DML", Client, NotDML, "START", "BATCH DML"},
		{"run batch", Client, NotDML, "RUN", "batch"},
		{"ABORT BATCH", Client, NotDML, "ABORT", "BATCH"},
		{"partition SELECT * FROM T WHERE a = ?", Client, NotDML, "PARTITION", "SELECT * FROM T WHERE a = ?"},
		{"RUN PARTITIONED QUERY SELECT 1", Client, NotDML, "RUN", "PARTITIONED QUERY SELECT 1"},
		{"run partition 'abc'", Client, NotDML, "RUN", "partition 'abc'"},
		{"EXPLAIN SELECT 1", Query, NotDML, "EXPLAIN", "SELECT 1"},
		{"", Query, NotDML, "", ""},
		{"-- only a comment", Query, NotDML, "", ""},
	})
}

// TestClientStatementsKeepText: `?` and @x in client-side statements are
// not parameters; the text is not rewritten.
func TestClientStatementsKeepText(t *testing.T) {
	st, err := Parse("SET statement_tag = ?")
	if err != nil || st.SQL != "SET statement_tag = ?" || st.Params != nil {
		t.Fatalf("Parse = %q %q %v, want the text unchanged and no parameters", st.SQL, st.Params, err)
	}
}

// TestParseNoCopy: a statement without `?` is returned without a copy.
func TestParseNoCopy(t *testing.T) {
	sql := "SELECT a, b, c FROM T WHERE a = 'x?@y' -- no parameters?"
	if allocs := testing.AllocsPerRun(100, func() { _, _ = Parse(sql) }); allocs != 0 {
		t.Fatalf("a statement without parameters allocates %v times, want 0", allocs)
	}
}

// literalTexts lists the literals, quoted identifiers and comments of sql
// as the scanner of dialect d sees them.
func literalTexts(t testing.TB, d Dialect, sql string) []string {
	t.Helper()
	next := d.rules().next
	var out []string
	for i := 0; i < len(sql); {
		k, end, err := next(sql, i)
		if err != nil {
			t.Fatalf("scanning %q: %v", sql, err)
		}
		if end <= i {
			t.Fatalf("scanning %q: no progress at %d", sql, i)
		}
		if k.literal() {
			out = append(out, sql[i:end])
		}
		i = end
	}
	return out
}

// syntaxCase is a text that does not scan in a dialect, with the error it
// must give.
type syntaxCase struct {
	sql    string
	err    error
	what   string
	offset int
}

// checkSyntaxErrors parses each case in dialect d and checks its
// *SyntaxError: kind, what, offset, and code InvalidArgument.
func checkSyntaxErrors(t *testing.T, d Dialect, cases []syntaxCase) {
	t.Helper()
	for _, c := range cases {
		_, err := ParseDialect(d, c.sql)
		var se *SyntaxError
		if !errors.As(err, &se) || !errors.Is(err, c.err) || se.What != c.what || se.Offset != c.offset ||
			status.Code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), c.what) {
			t.Errorf("ParseDialect(%v, %q): %v; want %v (%s at %d), InvalidArgument", d, c.sql, err, c.err, c.what, c.offset)
		}
	}
}

// classifyCase is a statement and what its first keyword makes of it.
type classifyCase struct {
	in      string
	kind    Kind
	dml     DMLKind
	keyword string
	rest    string
}

// checkClassify parses each case in dialect d and checks its kind, DML
// kind, keyword and rest.
func checkClassify(t *testing.T, d Dialect, cases []classifyCase) {
	t.Helper()
	for _, c := range cases {
		st, err := ParseDialect(d, c.in)
		if err != nil || st.Kind != c.kind || st.DML != c.dml || st.Keyword != c.keyword || st.rest != c.rest {
			t.Errorf("ParseDialect(%v, %q) = %v %v %q %q %v; want %v %v %q %q", d, c.in, st.Kind, st.DML, st.Keyword, st.rest, err, c.kind, c.dml, c.keyword, c.rest)
		}
	}
}

// FuzzParse: any text gives a Statement or a *SyntaxError (InvalidArgument),
// never a panic; text that is not valid UTF-8 is ErrInvalidUTF8 at its
// first invalid byte, and only such text; parameter names are distinct and appear in the SQL; the
// rewrite leaves every literal, quoted identifier and comment as it was
// (re-scanning finds the same ones); and it is a fixed point.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"SELECT ?", "SELECT @a, @A, @b", "SELECT '?' , \"@x\", `?`", "SELECT '''?''' ?", "-- ?\n?", "/* ? */ ?",
		"SELECT 'unterminated ?", "@{hint=1} SELECT @p", "SELECT ?, @x", "#?\n@x", "'\\'?'", "@", "?a?1?_",
		"rb'?'?", "B\"\"\"?\"\"\"?", "r'\\''?", "SET x = '?'", "BEGIN", "@{", "/*", "'\n'", "`a`?",
		// client-side statements, well formed and not
		"SET LOCAL a = DEFAULT", "SET TRANSACTION READ ONLY, ISOLATION LEVEL REPEATABLE READ", "SET TRANSACTION",
		"set x", "SHOW VARIABLE spanner.a;", "SHOW", "RESET a", "BEGIN TRANSACTION NOT DEFERRABLE, READ",
		"COMMIT TRANSACTION;", "ROLLBACK x", "START BATCH DML", "START TRANSACTION", "RUN BATCH;", "ABORT",
		"RUN PARTITION 'x'", "RUN PARTITIONED QUERY SELECT ?", "RUN PARTITIONED", "PARTITION PARTITION SELECT 1",
		"PARTITION UPDATE T SET a = 1", "DROP DATABASE `a-b`", "DROP DATABASE a.b", "CREATE DATABASE x",
		"INSERT INTO T (a) VALUES (?) THEN RETURN a", "UPDATE T SET a = 1 WHERE true RETURNING *", "UPDATE T SET a = (CASE WHEN b THEN return END) WHERE (c) THEN RETURN a",
		"SHOW TRANSACTION ISOLATION LEVEL", "SHOW TRANSACTION NOT", "RESET ALL",
		"SAVEPOINT s1", "SAVEPOINT `a b`;", "SAVEPOINT", "ROLLBACK TO SAVEPOINT s", "ROLLBACK TO s t", "RELEASE SAVEPOINT", "RELEASE x",
	} {
		f.Add(s)
	}
	f.Add("SELECT 'a\xffb'")
	f.Add("SELECT '\xc3(' -- \xe2\x82")
	f.Fuzz(func(t *testing.T, sql string) {
		st, err := Parse(sql)
		if valid := utf8.ValidString(sql); valid == errors.Is(err, ErrInvalidUTF8) {
			t.Fatalf("%q (valid UTF-8: %v): %v", sql, valid, err)
		}
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) || status.Code(err) != codes.InvalidArgument {
				t.Fatalf("%q: error %v is not an InvalidArgument *SyntaxError", sql, err)
			}
			if r, n := utf8.DecodeRuneInString(sql[min(se.Offset, len(sql)):]); errors.Is(err, ErrInvalidUTF8) && (r != utf8.RuneError || n != 1 || !utf8.ValidString(sql[:se.Offset])) {
				t.Fatalf("%q: offset %d is not the first invalid byte", sql, se.Offset)
			}
			return
		}
		seen := map[string]bool{}
		for _, n := range st.Params {
			if n == "" || seen[n] || !strings.Contains(st.SQL, "@"+n) {
				t.Fatalf("%q: names %q: empty, repeated or not in %q", sql, st.Params, st.SQL)
			}
			seen[n] = true
		}
		if a, b := literalTexts(t, GoogleSQL, sql), literalTexts(t, GoogleSQL, st.SQL); !slices.Equal(a, b) {
			t.Fatalf("%q -> %q changed literals or comments: %q -> %q", sql, st.SQL, a, b)
		}
		checkTyped(t, sql, st)
		again, err := Parse(st.SQL)
		if err != nil || again.SQL != st.SQL || !slices.Equal(again.Params, st.Params) || again.Kind != st.Kind {
			t.Fatalf("%q -> %q %q; parsed again: %q %q %v", sql, st.SQL, st.Params, again.SQL, again.Params, err)
		}
	})
}

// checkTyped: the typed parts of a statement that parsed: parsing again
// gives the same (deterministic), a client-side statement has its form
// unless the text holds several, and a malformed one is InvalidArgument.
func checkTyped(t *testing.T, sql string, st Statement) {
	t.Helper()
	if again, _ := Parse(sql); describe(again) != describe(st) {
		t.Fatalf("%q parsed twice:\n%s\n%s", sql, describe(st), describe(again))
	}
	if (st.Kind == Client && !st.Multi) != (st.Client != nil) {
		t.Fatalf("%q: kind %v, multi %v, client form %+v", sql, st.Kind, st.Multi, st.Client)
	}
	if st.Invalid != nil && status.Code(st.Invalid) != codes.InvalidArgument {
		t.Fatalf("%q: Invalid %v is not InvalidArgument", sql, st.Invalid)
	}
	if st.Invalid != nil && st.Kind != Client && st.Database != DropDatabase {
		t.Fatalf("%q: Invalid %v on a %v statement", sql, st.Invalid, st.Kind)
	}
	if c := st.Client; c != nil {
		if c.Command == CmdNone {
			t.Fatalf("%q: client form without a command", sql)
		}
		if q := c.Query; q != nil && (q.Kind != Query || q.Client != nil || st.Invalid != nil) {
			t.Fatalf("%q: inner query %s with %v", sql, describe(*q), st.Invalid)
		}
	}
	if st.ThenReturn && st.Kind != DML {
		t.Fatalf("%q: ThenReturn on a %v statement", sql, st.Kind)
	}
}

func TestCacheLRU(t *testing.T) {
	c := NewCache(2)
	parse := func(sql string) {
		t.Helper()
		if _, err := c.Parse(sql); err != nil {
			t.Fatal(err)
		}
	}
	parse("SELECT 1")
	parse("SELECT 2")
	parse("SELECT 1") // 1 is now the most recent
	parse("SELECT 3") // evicts 2
	if c.Len() != 2 || c.m["SELECT 2"] != nil || c.m["SELECT 1"] == nil || c.m["SELECT 3"] == nil {
		t.Fatalf("cache holds %v, want SELECT 1 and SELECT 3", keys(c))
	}
	if _, err := c.Parse("SELECT '"); err == nil || c.Len() != 2 {
		t.Fatalf("a failing statement: err %v, %d cached; want an error and nothing added", err, c.Len())
	}
	st, err := c.Parse("SELECT ?")
	if err != nil || st.SQL != "SELECT @p1" {
		t.Fatalf("cached parse = %q, %v", st.SQL, err)
	}
	if st2, _ := c.Parse("SELECT ?"); st2.SQL != st.SQL || !slices.Equal(st2.Params, st.Params) {
		t.Fatalf("hit = %+v, want %+v", st2, st)
	}
	if NewCache(0) != nil || NewCache(-1) != nil {
		t.Fatal("NewCache(<1) must be nil (no caching)")
	}
	var none *Cache
	if st, err := none.Parse("SELECT ?"); err != nil || st.SQL != "SELECT @p1" || none.Len() != 0 {
		t.Fatalf("nil cache: %q %v", st.SQL, err)
	}
}

func keys(c *Cache) []string {
	var out []string
	for k := range c.m {
		out = append(out, k)
	}
	return out
}

func TestCacheHitAllocs(t *testing.T) {
	c := NewCache(10)
	sql := "SELECT a, b FROM T WHERE a = ? AND b = ?"
	if _, err := c.Parse(sql); err != nil {
		t.Fatal(err)
	}
	if allocs := testing.AllocsPerRun(100, func() { _, _ = c.Parse(sql) }); allocs != 0 {
		t.Fatalf("a cache hit allocates %v times, want 0", allocs)
	}
}

func BenchmarkCacheHit(b *testing.B) {
	c := NewCache(1000)
	sql := "SELECT a, b, c FROM Singers WHERE SingerId = ? AND LastName = ? AND Rating > ? -- a typical query"
	for i := range 1000 {
		_, _ = c.Parse(fmt.Sprintf("SELECT %d", i))
	}
	_, _ = c.Parse(sql)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Parse(sql); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParse(b *testing.B) {
	sql := "SELECT a, b, c FROM Singers WHERE SingerId = ? AND LastName = ? AND Rating > ? -- a typical query"
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(sql); err != nil {
			b.Fatal(err)
		}
	}
}

func TestWords(t *testing.T) {
	got, err := words(&googleSQL, "transaction /* c */ read only, isolation level -- x\n repeatable read;")
	want := []string{"TRANSACTION", "READ", "ONLY", ",", "ISOLATION", "LEVEL", "REPEATABLE", "READ", ";"}
	if err != nil || !slices.Equal(got, want) {
		t.Fatalf("words = %q %v, want %q", got, err, want)
	}
	if _, err := words(&googleSQL, "read /* only"); !errors.Is(err, ErrUnclosedComment) {
		t.Fatalf("words with an unclosed comment: %v", err)
	}
}
