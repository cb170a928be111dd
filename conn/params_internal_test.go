package conn

import "testing"

func TestRewritePositional(t *testing.T) {
	for _, c := range []struct {
		in, out    string
		positional int
		named      bool
	}{
		{"SELECT 1", "SELECT 1", 0, false},
		{"SELECT * FROM T WHERE a = ? AND b = ?", "SELECT * FROM T WHERE a = @p1 AND b = @p2", 2, false},
		{"SELECT '?', \"?\", `?` FROM T WHERE x = ?", "SELECT '?', \"?\", `?` FROM T WHERE x = @p1", 1, false},
		{"SELECT 'it\\'s ?' WHERE a = ?", "SELECT 'it\\'s ?' WHERE a = @p1", 1, false},
		{"SELECT '''a ? ''' , ?", "SELECT '''a ? ''' , @p1", 1, false},
		{"-- what?\nSELECT ? # really?\n, ?", "-- what?\nSELECT @p1 # really?\n, @p2", 2, false},
		{"/* ? */ SELECT ? /* unterminated ?", "/* ? */ SELECT @p1 /* unterminated ?", 1, false},
		{"SELECT @name", "SELECT @name", 0, true},
		{"SELECT ?, @name", "SELECT @p1, @name", 1, true},
		{"SELECT '@name'", "SELECT '@name'", 0, false},
		{"?", "@p1", 1, false},
	} {
		out, n, named := rewritePositional(c.in)
		if out != c.out || n != c.positional || named != c.named {
			t.Errorf("rewritePositional(%q) = %q, %d, %v; want %q, %d, %v", c.in, out, n, named, c.out, c.positional, c.named)
		}
	}
}

func TestRewritePositionalNoCopy(t *testing.T) {
	sql := "SELECT a, b, c FROM T WHERE a = @a -- no positional parameters"
	if allocs := testing.AllocsPerRun(100, func() { rewritePositional(sql) }); allocs != 0 {
		t.Fatalf("a statement without ? allocates %v times, want 0", allocs)
	}
}

func TestClassify(t *testing.T) {
	for _, c := range []struct {
		in   string
		kind statementKind
	}{
		{"SELECT 1", kindQuery},
		{"  -- c\n /* c */ @{FORCE_INDEX=x} select 1", kindQuery},
		{"WITH t AS (SELECT 1) SELECT * FROM t", kindQuery},
		{"insert into T (a) values (1)", kindDML},
		{"CREATE TABLE T (a INT64) PRIMARY KEY (a)", kindDDL},
		{"SET RAW_DECODE = true", kindClientSet},
		{"show variable raw_decode", kindClientShow},
		{"RESET raw_decode", kindClientReset},
	} {
		if got := classify(c.in).kind; got != c.kind {
			t.Errorf("classify(%q) = %v, want %v", c.in, got, c.kind)
		}
	}
}
