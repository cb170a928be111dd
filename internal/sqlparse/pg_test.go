package sqlparse

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

func parsePG(sql string) (Statement, error) { return ParseDialect(PostgreSQL, sql) }

// TestParseDialectGoogleSQL: ParseDialect(GoogleSQL, ...) and an unknown
// dialect value are Parse.
func TestParseDialectGoogleSQL(t *testing.T) {
	for _, sql := range []string{"SELECT ?, '?'", "SELECT @a # c\n", "@{x=1} UPDATE T SET a = 1 THEN RETURN a", "SET x = 1", "SELECT 'a"} {
		want, werr := Parse(sql)
		for _, d := range []Dialect{GoogleSQL, Dialect(7)} {
			got, err := ParseDialect(d, sql)
			if describe(got) != describe(want) || fmt.Sprint(err) != fmt.Sprint(werr) {
				t.Errorf("ParseDialect(%v, %q) = %s %v; want %s %v", d, sql, describe(got), err, describe(want), werr)
			}
		}
	}
	if GoogleSQL.String() != "GoogleSQL" || PostgreSQL.String() != "PostgreSQL" {
		t.Errorf("String: %v %v", GoogleSQL, PostgreSQL)
	}
}

// TestLiteralsPG: every PostgreSQL literal, quoted identifier and comment
// hides ?, $1, @name and the other quotes; text after it is scanned again.
func TestLiteralsPG(t *testing.T) {
	inside := `? $1 @x # -- ` + "` "
	for _, lit := range []string{
		`'` + inside + `"'`, `'it''s'`, `''`, `''''`, "'line\nfeed'", `'a\'`, // a backslash is a byte
		`E'` + inside + `\' \\'`, `e'it''s \n'`, `E'\\'`,
		`$$` + inside + `'"$ $1 $a $$`, `$tag$ $$ ' $Tag$ $tag$`, `$_1$x$_1$`, `$é$x$é$`,
		`"` + inside + `'"`, `"a""b"`, "\"multi\nline\"",
		"-- ? $1 ' \n", "/* ? $1 ' /* nested */ still */", "/**/", "/* /* */ */",
	} {
		sql := "SELECT " + lit + " ?"
		st, err := parsePG(sql)
		want := "SELECT " + lit + " $1"
		if err != nil || st.SQL != want || !slices.Equal(st.Params, []string{"p1"}) {
			t.Errorf("ParseDialect(PostgreSQL, %q) = %q %q %v; want %q [p1]", sql, st.SQL, st.Params, err, want)
		}
		if got := literalTexts(t, PostgreSQL, sql); len(got) != 1 || got[0] != lit {
			t.Errorf("literals of %q = %q, want [%q]", sql, got, lit)
		}
	}
	// What is a literal in GoogleSQL is not one in PostgreSQL.
	for sql, want := range map[string][]string{
		"SELECT `a` # b":          nil,
		"SELECT r'a', b'x'":       {"'a'", "'x'"},
		"SELECT '''a'''":          {"'''a'''"}, // ' then '' then a then '' then '
		"SELECT where'x'":         {"'x'"},     // only a lone E starts an escape string
		"SELECT 1e'x\\''":         {"e'x\\''"},
		"SELECT a$$b$$":           nil, // a word: identifiers may hold $
		"SELECT $ 1, $1a, $":      nil,
		"SELECT $a b$ c":          nil, // not a tag: "$a " has no closing $
		"SELECT U&'d\\0061t'":     {"'d\\0061t'"},
		"SELECT x::text, $1::int": nil,
	} {
		if got := literalTexts(t, PostgreSQL, sql); !slices.Equal(got, want) {
			t.Errorf("literals of %q = %q, want %q", sql, got, want)
		}
	}
}

func TestParamsPG(t *testing.T) {
	for _, c := range []struct {
		in, out       string
		params, named []string
	}{
		{"SELECT 1", "SELECT 1", nil, nil},
		{"SELECT * FROM T WHERE a = $1 AND b = $2", "SELECT * FROM T WHERE a = $1 AND b = $2", []string{"p1", "p2"}, nil},
		{"SELECT $2, $1, $2, $10", "SELECT $2, $1, $2, $10", []string{"p1", "p2", "p10"}, nil}, // ordered by number: the n-th argument binds $n
		{"SELECT $1::int, x::text", "SELECT $1::int, x::text", []string{"p1"}, nil},
		{"SELECT * FROM T WHERE a = ? AND b = ?", "SELECT * FROM T WHERE a = $1 AND b = $2", []string{"p1", "p2"}, nil},
		{"SELECT a=?AND b=?1, ?$$x$$, x?", "SELECT a=$1 AND b=$2 1, $3 $$x$$, x $4", []string{"p1", "p2", "p3", "p4"}, nil},
		{"SELECT ??", "SELECT $1 $2", []string{"p1", "p2"}, nil},
		{"SELECT @b, @a, @b, @B", "SELECT $1, $2, $1, $3", []string{"p1", "p2", "p3"}, []string{"b", "a", "B"}},
		{"SELECT x@a", "SELECT x $1", []string{"p1"}, []string{"a"}},
		{"SELECT a$1, $1", "SELECT a$1, $1", []string{"p1"}, nil},
		{"SELECT '$1', \"?\", $$@a$$ -- ?\n", "SELECT '$1', \"?\", $$@a$$ -- ?\n", nil, nil},
		{"/*@ hint=1 */ SELECT ?", "/*@ hint=1 */ SELECT $1", []string{"p1"}, nil},
		{"SELECT $01", "SELECT $01", []string{"p01"}, nil},
	} {
		st, err := parsePG(c.in)
		if err != nil || st.SQL != c.out || !slices.Equal(st.Params, c.params) || !slices.Equal(st.Named, c.named) {
			t.Errorf("ParseDialect(PostgreSQL, %q) = %q %q %q %v; want %q %q %q", c.in, st.SQL, st.Params, st.Named, err, c.out, c.params, c.named)
		}
	}
}

func TestErrorsPG(t *testing.T) {
	checkSyntaxErrors(t, PostgreSQL, []syntaxCase{
		{"SELECT 'abc", ErrUnclosedLiteral, "string literal", 7},
		{"SELECT 'it''s", ErrUnclosedLiteral, "string literal", 7},
		{`SELECT 'a\'b'c`, ErrUnclosedLiteral, "string literal", 12},
		{`SELECT E'a\'b`, ErrUnclosedLiteral, "escape string literal", 7},
		{`SELECT "abc""`, ErrUnclosedLiteral, "quoted identifier", 7},
		{"SELECT $$abc", ErrUnclosedLiteral, "dollar-quoted string", 7},
		{"SELECT $a$abc$b$", ErrUnclosedLiteral, "dollar-quoted string", 7},
		{"SELECT 1 /* abc", ErrUnclosedComment, "block comment", 9},
		{"SELECT 1 /* a /* b */", ErrUnclosedComment, "block comment", 9},
		{"SET x = 'abc", ErrUnclosedLiteral, "string literal", 8},
		{"SELECT ?, $1", ErrMixedParams, "$1", 10},
		{"SELECT $1, ?", ErrMixedParams, "$1", 7},
		{"SELECT ?, @name", ErrMixedParams, "@name", 10},
		{"SELECT $1, @name", ErrMixedParams, "@name", 11},
		{"SELECT @name, $2", ErrMixedParams, "$2", 14},
	})
}

func TestClassifyPG(t *testing.T) {
	checkClassify(t, PostgreSQL, []classifyCase{
		{"SELECT 1", Query, NotDML, "SELECT", "1"},
		{"  -- c\n /* c /* n */ */ /*@ hint=1 */ select 1", Query, NotDML, "SELECT", "1"},
		{"@{x=1} SELECT 1", Query, NotDML, "", "@{x=1} SELECT 1"}, // no GoogleSQL hints
		{"# c\nSELECT 1", Query, NotDML, "", "# c\nSELECT 1"},     // no # comments
		{"with t as (select 1) select * from t", Query, NotDML, "WITH", "t as (select 1) select * from t"},
		{"insert into t (a) values ($1) returning *", DML, Insert, "INSERT", "into t (a) values ($1) returning *"},
		{"UPDATE t SET a = 1", DML, Update, "UPDATE", "t SET a = 1"},
		{"delete from t", DML, Delete, "DELETE", "from t"},
		{"CREATE TABLE t (a bigint primary key)", DDL, NotDML, "CREATE", "TABLE t (a bigint primary key)"},
		{"DROP TABLE t", DDL, NotDML, "DROP", "TABLE t"},
		{"ALTER TABLE t ADD COLUMN b text", DDL, NotDML, "ALTER", "TABLE t ADD COLUMN b text"},
		{"ANALYZE", DDL, NotDML, "ANALYZE", ""},
		{"GRANT SELECT ON TABLE t TO r", DDL, NotDML, "GRANT", "SELECT ON TABLE t TO r"},
		{"REVOKE SELECT ON TABLE t FROM r", DDL, NotDML, "REVOKE", "SELECT ON TABLE t FROM r"},
		{"RENAME TABLE a TO b", DDL, NotDML, "RENAME", "TABLE a TO b"},
		{"SET spanner.read_only TO true", Client, NotDML, "SET", "spanner.read_only TO true"},
		{"show statement_timeout", Client, NotDML, "SHOW", "statement_timeout"},
		{"RESET spanner.read_only", Client, NotDML, "RESET", "spanner.read_only"},
		{"begin work", Client, NotDML, "BEGIN", "work"},
		{"START TRANSACTION", Client, NotDML, "START", "TRANSACTION"},
		{"END", Client, NotDML, "END", ""},
		{"ABORT WORK", Client, NotDML, "ABORT", "WORK"},
		{"RUN BATCH", Client, NotDML, "RUN", "BATCH"},
		{"PARTITION SELECT 1", Client, NotDML, "PARTITION", "SELECT 1"},
		{"EXPLAIN SELECT 1", Query, NotDML, "EXPLAIN", "SELECT 1"},
		{"", Query, NotDML, "", ""},
	})
	// END is a query in GoogleSQL (an unknown keyword), as in go-sql-spanner.
	if st, _ := Parse("END"); st.Kind != Query {
		t.Errorf("Parse(END).Kind = %v, want Query", st.Kind)
	}
}

// TestReturningPG: PostgreSQL DML returns rows with RETURNING (outside
// literals, identifiers and comments); THEN RETURN is GoogleSQL only.
func TestReturningPG(t *testing.T) {
	for sql, want := range map[string]bool{
		"INSERT INTO t (a) VALUES ($1) RETURNING a":        true,
		"update t set a = 1 returning *":                   true,
		"DELETE FROM t WHERE a = 'RETURNING' -- returning": false,
		`DELETE FROM "returning"`:                          false,
		"DELETE FROM t $$ RETURNING $$":                    false,
		"INSERT INTO t (a) VALUES (1) THEN RETURN a":       false,
		"UPDATE t SET a = 1 /* RETURNING */":               false,
		"SELECT 1 RETURNING":                               false, // not DML
		"UPDATE t SET a = (SELECT 1 RETURNING) WHERE b":    false, // not the statement's
		"UPDATE t SET a = (1) WHERE (b) RETURNING (a)":     true,
	} {
		st, err := parsePG(sql)
		if err != nil || st.ThenReturn != want {
			t.Errorf("ParseDialect(PostgreSQL, %q).ThenReturn = %v %v, want %v", sql, st.ThenReturn, err, want)
		}
	}
}

// TestClientStatementsPG: the PostgreSQL forms of the client-side
// statements give the ClientStatement the GoogleSQL ones give, so the
// executors run them unchanged.
func TestClientStatementsPG(t *testing.T) {
	for _, c := range []struct {
		sql     string
		want    ClientStatement
		invalid string
	}{
		// SET [SESSION | LOCAL] name {= | TO} value
		{sql: "SET spanner.read_only = true", want: ClientStatement{Command: CmdSet, Name: "read_only", Value: "true", Text: "spanner.read_only = true"}},
		{sql: "set spanner.read_only to false;", want: ClientStatement{Command: CmdSet, Name: "read_only", Value: "false", Text: "spanner.read_only to false;"}},
		{sql: "SET SESSION spanner.statement_tag TO 'it''s'", want: ClientStatement{Command: CmdSet, Name: "statement_tag", Value: "it's", Text: "spanner.statement_tag TO 'it''s'"}},
		{sql: "SET statement_timeout = '5s'", want: ClientStatement{Command: CmdSet, Name: "statement_timeout", Value: "5s", Text: "statement_timeout = '5s'"}},
		{sql: "SET statement_timeout TO 1000", want: ClientStatement{Command: CmdSet, Name: "statement_timeout", Value: "1000", Text: "statement_timeout TO 1000"}},
		{sql: "SET statement_timeout TO DEFAULT", want: ClientStatement{Command: CmdSet, Name: "statement_timeout", Value: "DEFAULT", Default: true, Text: "statement_timeout TO DEFAULT"}},
		{sql: "SET application_name = 'app'", want: ClientStatement{Command: CmdSet, Name: "application_name", Value: "app", Text: "application_name = 'app'"}},
		{sql: "SET client_min_messages TO warning", want: ClientStatement{Command: CmdSet, Name: "client_min_messages", Value: "warning", Text: "client_min_messages TO warning"}},
		{sql: "SET client_encoding TO 'UTF8'", want: ClientStatement{Command: CmdSet, Name: "client_encoding", Value: "UTF8", Text: "client_encoding TO 'UTF8'"}},
		{sql: "SET timezone = 'UTC'", want: ClientStatement{Command: CmdSet, Name: "timezone", Value: "UTC", Text: "timezone = 'UTC'"}},
		{sql: "SET default_transaction_isolation TO serializable", want: ClientStatement{Command: CmdSet, Name: "default_transaction_isolation", Value: "serializable", Text: "default_transaction_isolation TO serializable"}},
		{sql: "SET toast=1", want: ClientStatement{Command: CmdSet, Name: "toast", Value: "1", Text: "toast=1"}},
		{sql: "SET x", want: ClientStatement{Command: CmdSet, Text: "x"}, invalid: `SET needs the form SET name {= | TO} value, got "SET x"`},
		{sql: "SET x TOO 1", want: ClientStatement{Command: CmdSet, Text: "x TOO 1"}, invalid: "SET name {= | TO} value"},
		{sql: "SET = 1", want: ClientStatement{Command: CmdSet, Text: "= 1"}, invalid: "SET name {= | TO} value"},
		{sql: "SET LOCAL spanner.retry_aborts_internally TO false", want: ClientStatement{Command: CmdSetLocal, Name: "retry_aborts_internally", Value: "false", Text: "spanner.retry_aborts_internally TO false"}},
		{sql: "set local statement_timeout = default", want: ClientStatement{Command: CmdSetLocal, Name: "statement_timeout", Value: "default", Default: true, Text: "statement_timeout = default"}},
		// SET TRANSACTION
		{sql: "SET TRANSACTION READ ONLY", want: ClientStatement{Command: CmdSetTransaction, Txn: TxnOptions{ReadOnly: ptr(true)}}},
		{sql: "set transaction isolation level repeatable read, read write not deferrable",
			want: ClientStatement{Command: CmdSetTransaction, Txn: TxnOptions{ReadOnly: ptr(false), Isolation: IsolationRepeatableRead, Deferrable: ptr(false)}}},
		{sql: "SET TRANSACTION", want: ClientStatement{Command: CmdSetTransaction}, invalid: "SET TRANSACTION: missing option"},
		// SHOW, RESET
		{sql: "SHOW spanner.read_only", want: ClientStatement{Command: CmdShow, Name: "read_only", Column: "spanner.read_only"}},
		{sql: "show statement_timeout;", want: ClientStatement{Command: CmdShow, Name: "statement_timeout", Column: "statement_timeout"}},
		{sql: "SHOW", want: ClientStatement{Command: CmdShow}, invalid: "want SHOW VARIABLE name"},
		{sql: "RESET spanner.read_only", want: ClientStatement{Command: CmdReset, Name: "read_only"}},
		{sql: "reset statement_timeout;", want: ClientStatement{Command: CmdReset, Name: "statement_timeout"}},
		{sql: "RESET ALL", want: ClientStatement{Command: CmdReset, Name: "ALL"}, invalid: "RESET ALL is not supported"},
		{sql: "SHOW server_version_num", want: ClientStatement{Command: CmdShow, Name: "server_version_num", Column: "server_version_num"}},
		{sql: "SHOW transaction_isolation", want: ClientStatement{Command: CmdShow, Name: "transaction_isolation", Column: "transaction_isolation"}},
		// SHOW TRANSACTION: the property of the option, in a column of its name.
		{sql: "SHOW TRANSACTION ISOLATION LEVEL", want: ClientStatement{Command: CmdShow, Name: "isolation_level", Column: "isolation_level"}},
		{sql: "show transaction /* c */ isolation level;", want: ClientStatement{Command: CmdShow, Name: "isolation_level", Column: "isolation_level"}},
		{sql: "SHOW TRANSACTION READ ONLY", want: ClientStatement{Command: CmdShow, Name: "transaction_read_only", Column: "transaction_read_only"}},
		{sql: "SHOW TRANSACTION DEFERRABLE", want: ClientStatement{Command: CmdShow, Name: "transaction_deferrable", Column: "transaction_deferrable"}},
		{sql: "SHOW TRANSACTION NOT DEFERRABLE", want: ClientStatement{Command: CmdShow, Name: "transaction_deferrable", Column: "transaction_deferrable"}},
		{sql: "SHOW TRANSACTION", want: ClientStatement{Command: CmdShow}, invalid: "want SHOW TRANSACTION ISOLATION LEVEL"},
		{sql: "SHOW TRANSACTION READ WRITE", want: ClientStatement{Command: CmdShow}, invalid: `got "SHOW TRANSACTION READ WRITE"`},
		{sql: "SHOW TRANSACTION ISOLATION LEVEL SERIALIZABLE", want: ClientStatement{Command: CmdShow}, invalid: "want SHOW TRANSACTION ISOLATION LEVEL"},
		// SET SESSION CHARACTERISTICS is not go-sql-spanner's either: a
		// malformed SET.
		{sql: "SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY", want: ClientStatement{Command: CmdSet, Text: "CHARACTERISTICS AS TRANSACTION READ ONLY"}, invalid: "SET name {= | TO} value"},
		// BEGIN, START TRANSACTION
		{sql: "BEGIN", want: ClientStatement{Command: CmdBegin}},
		{sql: "begin work", want: ClientStatement{Command: CmdBegin}},
		{sql: "BEGIN TRANSACTION READ ONLY", want: ClientStatement{Command: CmdBegin, Txn: TxnOptions{ReadOnly: ptr(true)}}},
		{sql: "BEGIN ISOLATION LEVEL SERIALIZABLE, READ WRITE, DEFERRABLE",
			want: ClientStatement{Command: CmdBegin, Txn: TxnOptions{ReadOnly: ptr(false), Isolation: IsolationSerializable, Deferrable: ptr(true)}}},
		{sql: "START", want: ClientStatement{Command: CmdBegin}},
		{sql: "start transaction;", want: ClientStatement{Command: CmdBegin}},
		{sql: "START;", want: ClientStatement{Command: CmdBegin}},
		{sql: "START /* c */ -- c\n TRANSACTION READ WRITE", want: ClientStatement{Command: CmdBegin, Txn: TxnOptions{ReadOnly: ptr(false)}}},
		{sql: "START /* c */ BATCH DDL", want: ClientStatement{Command: CmdStartBatch, Batch: BatchDDL}},
		{sql: "START READ ONLY", want: ClientStatement{Command: CmdStartBatch}, invalid: "expected START BATCH"},
		{sql: "START WORK READ ONLY NOT DEFERRABLE", want: ClientStatement{Command: CmdBegin, Txn: TxnOptions{ReadOnly: ptr(true), Deferrable: ptr(false)}}},
		{sql: "START TRANSACTION ISOLATION LEVEL REPEATABLE READ", want: ClientStatement{Command: CmdBegin, Txn: TxnOptions{Isolation: IsolationRepeatableRead}}},
		{sql: "START TRANSACTION READ SOMETIMES", want: ClientStatement{Command: CmdBegin}, invalid: `START: invalid transaction option at "READ SOMETIMES"`},
		{sql: "BEGIN WORK TRANSACTION", want: ClientStatement{Command: CmdBegin}, invalid: `BEGIN: invalid transaction option at "TRANSACTION"`},
		// COMMIT, END, ROLLBACK, ABORT
		{sql: "COMMIT", want: ClientStatement{Command: CmdCommit}},
		{sql: "commit work;", want: ClientStatement{Command: CmdCommit}},
		{sql: "COMMIT TRANSACTION", want: ClientStatement{Command: CmdCommit}},
		{sql: "END", want: ClientStatement{Command: CmdCommit}},
		{sql: "end transaction", want: ClientStatement{Command: CmdCommit}},
		{sql: "END WORK now", want: ClientStatement{Command: CmdCommit}, invalid: `END: unexpected "NOW"`},
		{sql: "ROLLBACK", want: ClientStatement{Command: CmdRollback}},
		{sql: "rollback work", want: ClientStatement{Command: CmdRollback}},
		{sql: "ABORT", want: ClientStatement{Command: CmdRollback}},
		{sql: "abort transaction;", want: ClientStatement{Command: CmdRollback}},
		{sql: "ABORT WORK x", want: ClientStatement{Command: CmdRollback}, invalid: `ABORT: unexpected "X"`},
		// Batches
		{sql: "START BATCH DDL", want: ClientStatement{Command: CmdStartBatch, Batch: BatchDDL}},
		{sql: "start batch dml;", want: ClientStatement{Command: CmdStartBatch, Batch: BatchDML}},
		{sql: "START BATCH", want: ClientStatement{Command: CmdStartBatch}, invalid: "expected START BATCH DDL or START BATCH DML"},
		{sql: "START SOMETHING", want: ClientStatement{Command: CmdStartBatch}, invalid: "expected START BATCH"},
		{sql: "RUN BATCH", want: ClientStatement{Command: CmdRunBatch}},
		{sql: "ABORT BATCH", want: ClientStatement{Command: CmdAbortBatch}},
		{sql: "ABORT -- c\n BATCH", want: ClientStatement{Command: CmdAbortBatch}},
		{sql: "abort batch now", want: ClientStatement{Command: CmdAbortBatch}, invalid: `unexpected "NOW" after ABORT BATCH`},
		// Partitions
		{sql: "RUN PARTITION 'abc'", want: ClientStatement{Command: CmdRunPartition, Value: "abc"}},
		{sql: "RUN PARTITIONED QUERY SELECT * FROM t WHERE a = ?", want: ClientStatement{Command: CmdRunPartitionedQuery,
			Query: &Statement{Keyword: "SELECT", SQL: "SELECT * FROM t WHERE a = $1", Params: []string{"p1"}}}},
		{sql: "PARTITION SELECT $1", want: ClientStatement{Command: CmdPartition, Query: &Statement{Keyword: "SELECT", SQL: "SELECT $1", Params: []string{"p1"}}}},
		{sql: "PARTITION DELETE FROM t", want: ClientStatement{Command: CmdPartition}, invalid: "PARTITION needs a query, got a DELETE statement"},
	} {
		st, err := parsePG(c.sql)
		if err != nil || st.Kind != Client || st.Client == nil {
			t.Errorf("ParseDialect(PostgreSQL, %q) = %+v, %v; want a client-side statement", c.sql, st, err)
			continue
		}
		if got, want := describeClient(st.Client), describeClient(&c.want); got != want {
			t.Errorf("ParseDialect(PostgreSQL, %q).Client = %s\nwant %s", c.sql, got, want)
		}
		switch {
		case c.invalid == "" && st.Invalid != nil:
			t.Errorf("ParseDialect(PostgreSQL, %q).Invalid = %v, want none", c.sql, st.Invalid)
		case c.invalid != "" && (status.Code(st.Invalid) != codes.InvalidArgument || !strings.Contains(fmt.Sprint(st.Invalid), c.invalid)):
			t.Errorf("ParseDialect(PostgreSQL, %q).Invalid = %v; want InvalidArgument with %q", c.sql, st.Invalid, c.invalid)
		}
	}
}

// TestGoogleSQLKeepsItsForms: the PostgreSQL-only forms stay what they were
// in GoogleSQL (malformed, or not client-side at all).
func TestGoogleSQLKeepsItsForms(t *testing.T) {
	for sql, invalid := range map[string]string{
		"SET x TO 1":        `SET needs the form SET name = value`,
		"START TRANSACTION": "expected START BATCH",
		"ABORT":             "expected ABORT BATCH",
		"COMMIT WORK":       `COMMIT: unexpected "WORK"`,
	} {
		st, err := Parse(sql)
		if err != nil || !strings.Contains(fmt.Sprint(st.Invalid), invalid) {
			t.Errorf("Parse(%q).Invalid = %v, %v; want %q", sql, st.Invalid, err, invalid)
		}
	}
	if st, _ := Parse(`DROP DATABASE "x"`); st.Database != DropDatabase || !strings.Contains(fmt.Sprint(st.Invalid), `unexpected "\"x\""`) {
		t.Errorf("Parse(DROP DATABASE \"x\") = %s; want a string, not a name", describe(st))
	}
	if st, _ := Parse("SET SESSION x = 1"); st.Client.Name != "SESSION x" {
		t.Errorf("Parse(SET SESSION x = 1).Client.Name = %q, want %q", st.Client.Name, "SESSION x")
	}
}

func TestDatabaseStatementsPG(t *testing.T) {
	for sql, want := range map[string]string{
		"DROP DATABASE db1":     "db1",
		`drop database "My-Db"`: "My-Db",
		"DROP DATABASE my-db;":  "my-db",
	} {
		st, err := parsePG(sql)
		if err != nil || st.Database != DropDatabase || st.DatabaseName != want || st.Invalid != nil {
			t.Errorf("ParseDialect(PostgreSQL, %q) = %v %q %v %v; want DROP DATABASE %q", sql, st.Database, st.DatabaseName, st.Invalid, err, want)
		}
	}
	if st, _ := parsePG("CREATE DATABASE x"); st.Database != CreateDatabase {
		t.Errorf("CREATE DATABASE: %v", st.Database)
	}
}

func TestSplitPG(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"SELECT 1; SELECT 2;", []string{"SELECT 1", "SELECT 2"}},
		{"SELECT ';', \";\", $$;$$, $t$;$t$, E'\\';' /* ; /* ; */ ; */ -- ;\n; SELECT `a; # b",
			[]string{"SELECT ';', \";\", $$;$$, $t$;$t$, E'\\';' /* ; /* ; */ ; */ -- ;", "SELECT `a", "# b"}},
		{"; /* only ; a comment */ ;", nil},
	} {
		got, err := SplitDialect(PostgreSQL, c.in)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("SplitDialect(PostgreSQL, %q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
	if _, err := SplitDialect(PostgreSQL, "SELECT 1; SELECT $$;"); !errors.Is(err, ErrUnclosedLiteral) {
		t.Errorf("SplitDialect of an unclosed literal: %v, want ErrUnclosedLiteral", err)
	}
	// Multi, and each statement keeps its own parameter style.
	st, err := parsePG("SELECT ?; SELECT $1; SELECT @a")
	if err != nil || !st.Multi || st.Params != nil || st.SQL != "SELECT ?; SELECT $1; SELECT @a" {
		t.Errorf("multi: %s %v", describe(st), err)
	}
	if st, _ := parsePG("SELECT '1;2'; -- end"); st.Multi {
		t.Errorf("one statement is Multi: %s", describe(st))
	}
}

func TestDialectCache(t *testing.T) {
	if c := NewCache(2); c.Dialect() != GoogleSQL {
		t.Errorf("NewCache: %v", c.Dialect())
	}
	if c := (*Cache)(nil); c.Dialect() != GoogleSQL || c.Len() != 0 {
		t.Errorf("nil Cache: %v", c.Dialect())
	}
	if c := NewDialectCache(0, GoogleSQL); c != nil {
		t.Errorf("NewDialectCache(0, GoogleSQL) = %p, want nil", c)
	}
	for _, size := range []int{0, 2} {
		c := NewDialectCache(size, PostgreSQL)
		if c.Dialect() != PostgreSQL {
			t.Errorf("size %d: %v", size, c.Dialect())
		}
		for range 2 {
			st, err := c.Parse("SELECT ? -- ?")
			if err != nil || st.SQL != "SELECT $1 -- ?" {
				t.Errorf("size %d: %q %v", size, st.SQL, err)
			}
		}
		if want := min(size, 1); c.Len() != want {
			t.Errorf("size %d: Len %d, want %d", size, c.Len(), want)
		}
		if _, err := c.Parse("SELECT $$"); !errors.Is(err, ErrUnclosedLiteral) {
			t.Errorf("size %d: %v", size, err)
		}
	}
	c := NewDialectCache(10, PostgreSQL)
	sql := "SELECT a FROM t WHERE a = $1 AND b = $2"
	if _, err := c.Parse(sql); err != nil {
		t.Fatal(err)
	}
	if allocs := testing.AllocsPerRun(100, func() { _, _ = c.Parse(sql) }); allocs != 0 {
		t.Fatalf("a PostgreSQL cache hit allocates %v times, want 0", allocs)
	}
}

// TestParseNoCopyPG: a PostgreSQL query or DML statement without
// parameters is returned without a copy or an allocation, as a GoogleSQL
// one.
func TestParseNoCopyPG(t *testing.T) {
	for _, sql := range []string{
		"SELECT a, b::text FROM t WHERE a = 'x?$1' AND c = $$@y$$ -- no parameters?",
		"INSERT INTO t (a) VALUES ('x') RETURNING a",
	} {
		if allocs := testing.AllocsPerRun(100, func() { _, _ = parsePG(sql) }); allocs != 0 {
			t.Errorf("%q allocates %v times, want 0", sql, allocs)
		}
	}
}

// FuzzParsePostgreSQL: FuzzParse for the PostgreSQL dialect. Any text gives
// a Statement or an InvalidArgument *SyntaxError, never a panic, the same
// one each time; the rewrite leaves every literal, quoted identifier and
// comment as it was; Params are exactly the $n of the rewritten text (no
// `?` or @name is left in it), distinct, ordered by number, and Numbered
// says the text was written with $n; and it is a fixed point.
func FuzzParsePostgreSQL(f *testing.F) {
	for _, s := range []string{
		"SELECT ?", "SELECT $1, $2, $1", "SELECT $2, $10, $1, $01, $3", "SELECT @a, @A, @b", "SELECT '?', \"$1\", $$?$$, $t$@a$t$", "SELECT 'it''s' ?",
		"E'\\'?'?", "e'\\\\'$1", "/* /* ? */ ? */ ?", "-- ?\n?", "# ?", "`?`", "SELECT 'unterminated ?", "SELECT $$", "$a$ $b$",
		"SELECT ?, $1", "SELECT $1, @x", "a$1?", "??1", "x::int", "$1::text", "$", "$$", "$1$", "@", "?$$x$$?", "/*", "'", "\"",
		"SET spanner.a TO 'b'", "SET SESSION x = 1", "SET LOCAL a TO DEFAULT", "SET TRANSACTION READ ONLY", "SHOW statement_timeout",
		"RESET spanner.x", "BEGIN WORK", "START TRANSACTION ISOLATION LEVEL SERIALIZABLE NOT DEFERRABLE", "START", "START BATCH DML",
		"END", "COMMIT WORK", "ABORT", "ABORT BATCH", "ROLLBACK TRANSACTION", "RUN BATCH", "RUN PARTITIONED QUERY SELECT $1",
		"PARTITION SELECT ?", "DROP DATABASE \"a-b\"", "INSERT INTO t (a) VALUES (?) RETURNING a", "SELECT 1; SELECT ?",
		"SHOW TRANSACTION ISOLATION LEVEL", "SHOW TRANSACTION NOT DEFERRABLE", "SHOW TRANSACTION /* x */ READ ONLY;", "SHOW TRANSACTION",
		"RESET ALL", "SHOW server_version", "SET default_transaction_isolation TO 'repeatable read'", "SET application_name = 'a''b'",
		"BEGIN READ ONLY, NOT DEFERRABLE", "START TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ WRITE",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		st, err := parsePG(sql)
		again, err2 := parsePG(sql)
		if describe(st) != describe(again) || fmt.Sprint(err) != fmt.Sprint(err2) || !slices.Equal(st.Named, again.Named) {
			t.Fatalf("%q parsed twice:\n%s %v\n%s %v", sql, describe(st), err, describe(again), err2)
		}
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) || status.Code(err) != codes.InvalidArgument {
				t.Fatalf("%q: error %v is not an InvalidArgument *SyntaxError", sql, err)
			}
			return
		}
		if st.Invalid != nil && status.Code(st.Invalid) != codes.InvalidArgument {
			t.Fatalf("%q: Invalid %v is not InvalidArgument", sql, st.Invalid)
		}
		if (st.Kind == Client && !st.Multi) != (st.Client != nil) || (st.ThenReturn && st.Kind != DML) {
			t.Fatalf("%q: %s", sql, describe(st))
		}
		if a, b := literalTexts(t, PostgreSQL, sql), literalTexts(t, PostgreSQL, st.SQL); !slices.Equal(a, b) {
			t.Fatalf("%q -> %q changed literals or comments: %q -> %q", sql, st.SQL, a, b)
		}
		if st.Kind == Client || st.Multi {
			if st.SQL != sql || st.Params != nil || st.Named != nil {
				t.Fatalf("%q: client-side or several statements rewritten: %s", sql, describe(st))
			}
			return
		}
		var numbered []string
		for i := 0; i < len(st.SQL); {
			k, end, _ := nextPG(st.SQL, i)
			switch k {
			case tokPositional, tokNamed:
				t.Fatalf("%q -> %q: %q left at %d", sql, st.SQL, st.SQL[i:end], i)
			case tokNumbered:
				numbered = addName(numbered, "p"+st.SQL[i+1:end])
			}
			i = end
		}
		// Params are the $n of the text ordered by number ($1 before $2
		// whatever comes first: the n-th argument binds $n), so for a
		// rewritten statement, whose $1..$n appear in order, p1..pn.
		slices.SortStableFunc(numbered, func(a, b string) int { return CompareNumber(a, b[1:]) })
		if !slices.Equal(numbered, st.Params) {
			t.Fatalf("%q -> %q: Params %q, want the $n of the text by number %q", sql, st.SQL, st.Params, numbered)
		}
		for i := 1; i < len(st.Params); i++ {
			if CompareNumber(st.Params[i-1], st.Params[i][1:]) > 0 {
				t.Fatalf("%q: Params %q not ordered by number", sql, st.Params)
			}
		}
		if st.Numbered != (len(st.Params) > 0 && st.SQL == sql && st.Named == nil) {
			t.Fatalf("%q: Numbered %v for Params %q", sql, st.Numbered, st.Params)
		}
		if !st.Numbered && len(st.Params) > 0 && !slices.Equal(st.Params, positionalNames(len(st.Params))) {
			t.Fatalf("%q: rewritten parameters %q, want p1..pn", sql, st.Params)
		}
		if st.Named != nil && len(st.Named) != len(st.Params) {
			t.Fatalf("%q: Named %q for Params %q", sql, st.Named, st.Params)
		}
		fixed, err := parsePG(st.SQL)
		if err != nil || fixed.SQL != st.SQL || !slices.Equal(fixed.Params, st.Params) || fixed.Kind != st.Kind || fixed.ThenReturn != st.ThenReturn {
			t.Fatalf("%q -> %q %q; parsed again: %q %q %v", sql, st.SQL, st.Params, fixed.SQL, fixed.Params, err)
		}
	})
}
