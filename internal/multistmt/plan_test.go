package multistmt

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/spannerfast/spannerfast/internal/sqlparse"
)

// plan classifies stmts as New would, parsed in dialect d.
func plan(t *testing.T, d sqlparse.Dialect, stmts ...string) *Plan {
	t.Helper()
	p, err := New(sqlparse.NewDialectCache(0, d), strings.Join(stmts, "; "))
	if err != nil {
		t.Fatalf("New(%q): %v", stmts, err)
	}
	if !slices.Equal(p.Stmts, stmts) {
		t.Fatalf("New split %q into %q", stmts, p.Stmts)
	}
	return p
}

// TestMultiPlanRules: the classes of statements and go-sql-spanner's rules
// for where the implicit transaction begins and whether it is read-only.
func TestMultiPlanRules(t *testing.T) {
	for _, tc := range []struct {
		stmts    []string
		classes  []Class
		starts   []bool // StartsImplicit per statement
		readOnly bool   // ImplicitReadOnly(0)
		runs     []int  // RunLength per statement
	}{
		{[]string{"SELECT 1", "select 2"}, []Class{Query, Query}, []bool{true, false}, true, []int{1, 1}},
		{[]string{"INSERT INTO T (a) VALUES (1)", "UPDATE T SET a = 1 WHERE true"}, []Class{DML, DML}, []bool{true, false}, false, []int{2, 1}},
		{[]string{"INSERT INTO T (a) VALUES (1) THEN RETURN a", "DELETE FROM T WHERE 'then return' = ''"},
			[]Class{DMLReturning, DML}, []bool{true, false}, false, []int{1, 1}},
		{[]string{"SELECT 1", "CREATE TABLE X (a INT64) PRIMARY KEY (a)", "ALTER TABLE X ADD COLUMN b INT64"},
			[]Class{Query, DDL, DDL}, []bool{false, false, false}, true, []int{1, 2, 1}},
		{[]string{"SELECT 1", "SELECT 2", "CREATE TABLE X (a INT64) PRIMARY KEY (a)"},
			[]Class{Query, Query, DDL}, []bool{true, false, false}, true, []int{1, 1, 1}},
		{[]string{"SELECT 1", "SELECT 2", "BEGIN", "SELECT 3"},
			[]Class{Query, Query, Begin, Query}, []bool{true, true, false, false}, false, []int{1, 1, 1, 1}},
		{[]string{"SELECT 1", "SELECT 2", "COMMIT", "INSERT INTO T (a) VALUES (1)"},
			[]Class{Query, Query, End, DML}, []bool{true, true, false, false}, true, []int{1, 1, 1, 1}},
		{[]string{"SET statement_tag = 'x'", "gibberish stuff", "SELECT 1"},
			[]Class{Client, Other, Query}, []bool{false, true, false}, false, []int{1, 1, 1}},
	} {
		p := plan(t, sqlparse.GoogleSQL, tc.stmts...)
		if !slices.Equal(p.Classes, tc.classes) {
			t.Errorf("%q: classes %v, want %v", tc.stmts, p.Classes, tc.classes)
			continue
		}
		for i := range tc.stmts {
			if got := p.StartsImplicit(i); got != tc.starts[i] {
				t.Errorf("%q: StartsImplicit(%d) = %v", tc.stmts, i, got)
			}
			if got := p.RunLength(i); got != tc.runs[i] {
				t.Errorf("%q: RunLength(%d) = %d, want %d", tc.stmts, i, got, tc.runs[i])
			}
		}
		if got := p.ImplicitReadOnly(0); got != tc.readOnly {
			t.Errorf("%q: ImplicitReadOnly(0) = %v", tc.stmts, got)
		}
	}
}

// TestClassifyPostgreSQL: the PostgreSQL forms of the statements get the
// classes of their GoogleSQL counterparts.
func TestClassifyPostgreSQL(t *testing.T) {
	for _, tc := range []struct {
		sql  string
		want Class
	}{
		{"select 1", Query},
		{"WITH x AS (SELECT 1) SELECT * FROM x", Query},
		{"insert into t (a) values ($1)", DML},
		{"insert into t (a) values (1) returning a", DMLReturning},
		{"delete from t where a = 'returning'", DML},
		{"create table t (a bigint primary key)", DDL},
		{"begin", Begin},
		{"start transaction read only", Begin},
		{"commit", End},
		{"end", End},
		{"rollback", End},
		{"abort", End},
		{"set spanner.statement_tag = 'x'", Client},
		{"show spanner.read_only_staleness", Client},
		{"start batch dml", Client},
		{"run batch", Client},
		{"values (1)", Other},
	} {
		st, err := sqlparse.ParseDialect(sqlparse.PostgreSQL, tc.sql)
		if got := Classify(st, err); got != tc.want {
			t.Errorf("Classify(%q) = %v, want %v", tc.sql, got, tc.want)
		}
	}
	// A statement that does not parse is Other, whatever its keyword.
	st, _ := sqlparse.Parse("SELECT 1")
	if got := Classify(st, errors.New("bad")); got != Other {
		t.Errorf("Classify of a parse error = %v, want Other", got)
	}
}

// TestNewKeepsParseErrors: New splits in the parser's dialect, and a
// statement that does not parse keeps its error for when it runs, as
// class Other; only a string that cannot be split fails.
func TestNewKeepsParseErrors(t *testing.T) {
	// $$...$$ is a string in PostgreSQL only: the semicolon in it does not
	// split there.
	p, err := New(sqlparse.NewDialectCache(0, sqlparse.PostgreSQL), "SELECT $$a;b$$; SELECT 2")
	if err != nil || len(p.Stmts) != 2 || p.Stmts[0] != "SELECT $$a;b$$" {
		t.Fatalf("PostgreSQL split: %q, %v", p.Stmts, err)
	}
	p, err = New(sqlparse.NewCache(0), "SELECT 1; SELECT ? AND @a; SELECT 3")
	if err != nil {
		t.Fatal(err)
	}
	if p.Errs[1] == nil || p.Errs[0] != nil || p.Classes[1] != Other {
		t.Errorf("statement 2 mixes parameters: errs %v, classes %v", p.Errs, p.Classes)
	}
	if _, err := New(sqlparse.NewCache(0), "SELECT 'unclosed; SELECT 2"); err == nil {
		t.Error("New of a string with an unclosed literal: no error")
	}
}

// TestImplicitReadOnly: each way a read-only implicit transaction becomes
// read-write or stays read-only.
func TestImplicitReadOnly(t *testing.T) {
	for _, tc := range []struct {
		stmts []string
		want  bool
	}{
		{[]string{"SELECT 1", "SELECT 2"}, true},
		{[]string{"SELECT 1", "UPDATE T SET a = 1 WHERE true"}, false},                                            // DML follows
		{[]string{"SELECT 1", "INSERT INTO T (a) VALUES (1) THEN RETURN a"}, false},                               // DML with THEN RETURN
		{[]string{"SELECT 1", "gibberish"}, false},                                                                // unknown: may write
		{[]string{"SELECT 1", "COMMIT", "UPDATE T SET a = 1 WHERE true"}, true},                                   // DML after the end
		{[]string{"SELECT 1", "ROLLBACK", "UPDATE T SET a = 1 WHERE true"}, true},                                 // DML after the end
		{[]string{"SELECT 1", "BEGIN"}, false},                                                                    // left open: read-write
		{[]string{"SELECT 1", "BEGIN", "COMMIT"}, true},                                                           // ended after all
		{[]string{"SELECT 1", "SET statement_tag = 'x'", "SELECT 2"}, true},                                       // client-side: no write
		{[]string{"UPDATE T SET a = 1 WHERE true", "SELECT 1"}, false},                                            // begun by DML
		{[]string{"SELECT 1", "CREATE TABLE X (a INT64) PRIMARY KEY (a)", "UPDATE T SET a = 1 WHERE true"}, true}, // DDL ends it
	} {
		p := plan(t, sqlparse.GoogleSQL, tc.stmts...)
		if got := p.ImplicitReadOnly(0); got != tc.want {
			t.Errorf("%q: ImplicitReadOnly(0) = %v, want %v", tc.stmts, got, tc.want)
		}
	}
}

// TestStartsImplicit: client-side statements (but for none) and the last
// statement begin nothing; a statement followed by DDL neither.
func TestStartsImplicit(t *testing.T) {
	p := plan(t, sqlparse.GoogleSQL,
		"SET statement_tag = 'x'", "START BATCH DML", "RUN BATCH", "BEGIN", "COMMIT",
		"INSERT INTO T (a) VALUES (1) THEN RETURN a", "gibberish", "SELECT 1",
		"CREATE TABLE X (a INT64) PRIMARY KEY (a)", "UPDATE T SET a = 1 WHERE true")
	want := []bool{false, false, false, false, false, true, true, false, false, false}
	for i, w := range want {
		if got := p.StartsImplicit(i); got != w {
			t.Errorf("StartsImplicit(%d) (%q) = %v, want %v", i, p.Stmts[i], got, w)
		}
	}
}

// TestBatch: runs of two or more DML (without THEN RETURN) or DDL
// statements go as one batch, unless a batch is active, and DDL not in a
// transaction.
func TestBatch(t *testing.T) {
	p := plan(t, sqlparse.GoogleSQL,
		"INSERT INTO T (a) VALUES (1)", "INSERT INTO T (a) VALUES (2)", "UPDATE T SET a = 1 WHERE true",
		"INSERT INTO T (a) VALUES (3) THEN RETURN a",
		"CREATE TABLE X (a INT64) PRIMARY KEY (a)", "CREATE TABLE Y (a INT64) PRIMARY KEY (a)",
		"SELECT 1", "SELECT 2", "DELETE FROM T WHERE true")
	for _, tc := range []struct {
		i              int
		inTxn, inBatch bool
		want           int
	}{
		{0, false, false, 3},
		{0, true, false, 3}, // DML batches run in the transaction
		{0, false, true, 0}, // the active batch takes each statement
		{1, false, false, 2},
		{2, false, false, 0}, // the last of the run: alone
		{3, false, false, 0}, // THEN RETURN: never batched
		{4, false, false, 2},
		{4, true, false, 0}, // DDL is not transactional
		{4, false, true, 0},
		{6, false, false, 0}, // queries are never batched
		{8, false, false, 0}, // a DML statement alone
	} {
		if got := p.Batch(tc.i, tc.inTxn, tc.inBatch); got != tc.want {
			t.Errorf("Batch(%d, inTxn %v, inBatch %v) (%q) = %d, want %d", tc.i, tc.inTxn, tc.inBatch, p.Stmts[tc.i], got, tc.want)
		}
	}
	// DML returning rows runs alone, also next to more of it.
	p = plan(t, sqlparse.GoogleSQL, "INSERT INTO T (a) VALUES (1) THEN RETURN a", "INSERT INTO T (a) VALUES (2) THEN RETURN a")
	if got := p.Batch(0, false, false); got != 0 {
		t.Errorf("two DML statements with THEN RETURN: Batch(0) = %d, want 0", got)
	}
}

// TestStatementError: the message names the statement (or the batch), the
// gRPC code and the cause are kept.
func TestStatementError(t *testing.T) {
	p := plan(t, sqlparse.GoogleSQL, "SELECT 1", "UPDATE T SET a = 1 WHERE true", "UPDATE T SET a = 2 WHERE true")
	cause := status.Error(codes.NotFound, "Table not found: T")
	err := error(p.Fail(1, 0, cause))
	var se *StatementError
	if !errors.As(err, &se) || se.Index != 1 || se.Last != 1 || se.Count != 3 || se.SQL != p.Stmts[1] {
		t.Fatalf("Fail(1, 0): %#v", se)
	}
	want := `spannerfast: statement 2 of 3 failed: rpc error: code = NotFound desc = Table not found: T (statement: "UPDATE T SET a = 1 WHERE true")`
	if err.Error() != want {
		t.Errorf("message %q, want %q", err, want)
	}
	if status.Code(err) != codes.NotFound || !errors.Is(err, cause) {
		t.Errorf("code %v, Is(cause) %v", status.Code(err), errors.Is(err, cause))
	}
	if got := p.Fail(1, 2, cause).Error(); !strings.HasPrefix(got, "spannerfast: statements 2-3 of 3 (sent as one batch) failed") {
		t.Errorf("batch failure: %q", got)
	}
}
