package sqlparse

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

func ptr(b bool) *bool { return &b }

// TestClientStatements: every client-side statement form, its parsed
// fields, and the error a malformed one carries in Invalid (never returned
// by Parse: the executor reports it when it runs the statement).
func TestClientStatements(t *testing.T) {
	for _, c := range []struct {
		sql     string
		want    ClientStatement
		invalid string // "" = well formed; else a part of the InvalidArgument error
	}{
		// SET
		{sql: "SET raw_decode = true", want: ClientStatement{Command: CmdSet, Name: "raw_decode", Value: "true", Text: "raw_decode = true"}},
		{sql: "set SPANNER.Statement_Tag='a=b' ;", want: ClientStatement{Command: CmdSet, Name: "Statement_Tag", Value: "a=b", Text: "SPANNER.Statement_Tag='a=b' ;"}},
		{sql: `SET x.y = "v"`, want: ClientStatement{Command: CmdSet, Name: "x.y", Value: "v", Text: `x.y = "v"`}},
		{sql: "SET read_only = DEFAULT;", want: ClientStatement{Command: CmdSet, Name: "read_only", Value: "DEFAULT", Default: true, Text: "read_only = DEFAULT;"}},
		{sql: "SET read_only = 'DEFAULT'", want: ClientStatement{Command: CmdSet, Name: "read_only", Value: "DEFAULT", Text: "read_only = 'DEFAULT'"}},
		{sql: "SET x = ?", want: ClientStatement{Command: CmdSet, Name: "x", Value: "?", Text: "x = ?"}},
		{sql: "SET raw_decode", want: ClientStatement{Command: CmdSet, Text: "raw_decode"}, invalid: `SET needs the form SET name = value, got "SET raw_decode"`},
		{sql: "SET", want: ClientStatement{Command: CmdSet}, invalid: `got "SET "`},
		// SET LOCAL
		{sql: "SET LOCAL statement_tag = 'x'", want: ClientStatement{Command: CmdSetLocal, Name: "statement_tag", Value: "x", Text: "statement_tag = 'x'"}},
		{sql: "set local spanner.retry_aborts_internally = default", want: ClientStatement{Command: CmdSetLocal, Name: "retry_aborts_internally", Value: "default", Default: true, Text: "spanner.retry_aborts_internally = default"}},
		{sql: "SET LOCAL x", want: ClientStatement{Command: CmdSetLocal, Text: "x"}, invalid: `got "SET  x"`},
		// SET TRANSACTION
		{sql: "SET TRANSACTION READ ONLY", want: ClientStatement{Command: CmdSetTransaction, Txn: TxnOptions{ReadOnly: ptr(true)}}},
		{sql: "set transaction read write, isolation level repeatable read, not deferrable;",
			want: ClientStatement{Command: CmdSetTransaction, Txn: TxnOptions{ReadOnly: ptr(false), Isolation: IsolationRepeatableRead, Deferrable: ptr(false)}}},
		{sql: "SET TRANSACTION ISOLATION LEVEL SERIALIZABLE DEFERRABLE", want: ClientStatement{Command: CmdSetTransaction, Txn: TxnOptions{Isolation: IsolationSerializable, Deferrable: ptr(true)}}},
		{sql: "SET TRANSACTION ;", want: ClientStatement{Command: CmdSetTransaction}},
		{sql: "SET TRANSACTION", want: ClientStatement{Command: CmdSetTransaction}, invalid: "SET TRANSACTION: missing option"},
		{sql: "SET TRANSACTION READ SOMETIMES", want: ClientStatement{Command: CmdSetTransaction}, invalid: `SET TRANSACTION: invalid transaction option at "READ SOMETIMES"`},
		// SHOW
		{sql: "SHOW VARIABLE raw_decode", want: ClientStatement{Command: CmdShow, Name: "raw_decode", Column: "raw_decode"}},
		{sql: "show variable Spanner.Commit_Timestamp ;", want: ClientStatement{Command: CmdShow, Name: "Commit_Timestamp", Column: "Spanner.Commit_Timestamp"}},
		{sql: "SHOW my.ext", want: ClientStatement{Command: CmdShow, Name: "my.ext", Column: "my.ext"}},
		{sql: "SHOW VARIABLE", want: ClientStatement{Command: CmdShow}, invalid: `want SHOW VARIABLE name, got "SHOW VARIABLE"`},
		{sql: "SHOW ;", want: ClientStatement{Command: CmdShow}, invalid: `got "SHOW ;"`},
		// SHOW TRANSACTION: in GoogleSQL too, as go-sql-spanner reads it.
		{sql: "SHOW TRANSACTION ISOLATION LEVEL", want: ClientStatement{Command: CmdShow, Name: "isolation_level", Column: "isolation_level"}},
		{sql: "show transaction read only;", want: ClientStatement{Command: CmdShow, Name: "transaction_read_only", Column: "transaction_read_only"}},
		{sql: "SHOW TRANSACTION LEVEL", want: ClientStatement{Command: CmdShow}, invalid: "want SHOW TRANSACTION ISOLATION LEVEL"},
		{sql: "SHOW VARIABLE transaction_tag", want: ClientStatement{Command: CmdShow, Name: "transaction_tag", Column: "transaction_tag"}},
		// RESET
		{sql: "RESET spanner.raw_decode;", want: ClientStatement{Command: CmdReset, Name: "raw_decode"}},
		{sql: "RESET", want: ClientStatement{Command: CmdReset}},
		{sql: "RESET all;", want: ClientStatement{Command: CmdReset, Name: "all"}, invalid: "RESET ALL is not supported"},
		// BEGIN, COMMIT, ROLLBACK
		{sql: "BEGIN", want: ClientStatement{Command: CmdBegin}},
		{sql: "begin transaction read only;", want: ClientStatement{Command: CmdBegin, Txn: TxnOptions{ReadOnly: ptr(true)}}},
		{sql: "BEGIN ISOLATION LEVEL SERIALIZABLE, READ WRITE", want: ClientStatement{Command: CmdBegin, Txn: TxnOptions{ReadOnly: ptr(false), Isolation: IsolationSerializable}}},
		{sql: "BEGIN WORK", want: ClientStatement{Command: CmdBegin}, invalid: `BEGIN: invalid transaction option at "WORK"`},
		{sql: "COMMIT", want: ClientStatement{Command: CmdCommit}},
		{sql: "commit transaction ;", want: ClientStatement{Command: CmdCommit}},
		{sql: "COMMIT WORK", want: ClientStatement{Command: CmdCommit}, invalid: `COMMIT: unexpected "WORK"`},
		{sql: "Rollback", want: ClientStatement{Command: CmdRollback}},
		{sql: "ROLLBACK TRANSACTION now", want: ClientStatement{Command: CmdRollback}, invalid: `ROLLBACK: unexpected "NOW"`},
		// Batches
		{sql: "START BATCH DDL", want: ClientStatement{Command: CmdStartBatch, Batch: BatchDDL}},
		{sql: " start  batch\tdml ;", want: ClientStatement{Command: CmdStartBatch, Batch: BatchDML}},
		{sql: "/* c */ START BATCH DML -- trailing\n", want: ClientStatement{Command: CmdStartBatch, Batch: BatchDML}},
		{sql: "START BATCH", want: ClientStatement{Command: CmdStartBatch}, invalid: "expected START BATCH DDL or START BATCH DML"},
		{sql: "START TRANSACTION", want: ClientStatement{Command: CmdStartBatch}, invalid: `"START TRANSACTION": expected START BATCH`},
		{sql: "RUN BATCH", want: ClientStatement{Command: CmdRunBatch}},
		{sql: "RUN BATCH NOW  ", want: ClientStatement{Command: CmdRunBatch}, invalid: `unexpected "NOW" after RUN BATCH`},
		{sql: "RUN", want: ClientStatement{Command: CmdRunBatch}, invalid: "expected RUN BATCH"},
		{sql: "abort batch;", want: ClientStatement{Command: CmdAbortBatch}},
		{sql: "ABORT", want: ClientStatement{Command: CmdAbortBatch}, invalid: "expected ABORT BATCH"},
		// Partitions
		{sql: "RUN PARTITION 'abc'", want: ClientStatement{Command: CmdRunPartition, Value: "abc"}},
		{sql: "run partition abc;", want: ClientStatement{Command: CmdRunPartition, Value: "abc"}},
		{sql: "RUN PARTITIONED", want: ClientStatement{Command: CmdRunPartitionedQuery}, invalid: "want RUN PARTITIONED QUERY <query> or RUN PARTITION '<id>'"},
		{sql: "RUN PARTITIONED QUERY UPDATE T SET a = 1", want: ClientStatement{Command: CmdRunPartitionedQuery}, invalid: "RUN PARTITIONED QUERY needs a query, got a UPDATE statement"},
		{sql: "PARTITION SET x = 1", want: ClientStatement{Command: CmdPartition}, invalid: "PARTITION needs a query, got a SET statement"},
		{sql: "PARTITION EXPLAIN SELECT 1", want: ClientStatement{Command: CmdPartition, Query: &Statement{Keyword: "EXPLAIN", SQL: "EXPLAIN SELECT 1"}}},
		{sql: "PARTITION", want: ClientStatement{Command: CmdPartition, Query: &Statement{}}}, // an empty query, sent as it is
	} {
		st, err := Parse(c.sql)
		if err != nil || st.Kind != Client || st.Client == nil {
			t.Errorf("Parse(%q) = %+v, %v; want a client-side statement", c.sql, st, err)
			continue
		}
		if got, want := describeClient(st.Client), describeClient(&c.want); got != want {
			t.Errorf("Parse(%q).Client = %s\nwant %s", c.sql, got, want)
		}
		switch {
		case c.invalid == "" && st.Invalid != nil:
			t.Errorf("Parse(%q).Invalid = %v, want none", c.sql, st.Invalid)
		case c.invalid != "" && (status.Code(st.Invalid) != codes.InvalidArgument || !strings.Contains(fmt.Sprint(st.Invalid), c.invalid)):
			t.Errorf("Parse(%q).Invalid = %v; want InvalidArgument with %q", c.sql, st.Invalid, c.invalid)
		}
	}
}

// TestPartitionQueries: the query of PARTITION and RUN PARTITIONED QUERY
// is parsed with the statement, `?` rewritten; a syntax error in it is the
// statement's Invalid.
func TestPartitionQueries(t *testing.T) {
	for sql, want := range map[string]string{
		"PARTITION SELECT * FROM T WHERE a = ?":                          "SELECT * FROM T WHERE a = @p1",
		"partition  @{x=1} select 1 ":                                    "@{x=1} select 1",
		"RUN PARTITIONED QUERY SELECT @a FROM T":                         "SELECT @a FROM T",
		"run partitioned query\n  with t as (select 1) select * from t;": "with t as (select 1) select * from t;",
	} {
		st, err := Parse(sql)
		if err != nil || st.Invalid != nil || st.Client.Query == nil || st.Client.Query.SQL != want || st.Client.Query.Kind != Query {
			t.Errorf("Parse(%q) = %+v, %v, %v; want the query %q", sql, st.Client, st.Invalid, err, want)
			continue
		}
		if st.SQL != sql || st.Params != nil {
			t.Errorf("Parse(%q): the statement's own text and parameters changed: %q %q", sql, st.SQL, st.Params)
		}
	}
	// The outer scan finds an unclosed literal first; the inner query's own
	// syntax errors (mixed parameters are the outer statement's too) are
	// Parse's error, as before.
	if _, err := Parse("PARTITION SELECT ?, @x"); !errors.Is(err, ErrMixedParams) {
		t.Errorf("PARTITION with mixed parameters: %v", err)
	}
	// A partition statement inside another is not read further.
	st, err := Parse("PARTITION PARTITION PARTITION SELECT 1")
	if err != nil || status.Code(st.Invalid) != codes.InvalidArgument || !strings.Contains(st.Invalid.Error(), "got a PARTITION statement") {
		t.Errorf("nested PARTITION: %v, %v", st.Invalid, err)
	}
}

// TestDMLThenReturn: THEN RETURN outside literals, comments and
// parentheses; RETURNING is PostgreSQL's (TestReturningPG), a plain word
// in GoogleSQL.
func TestDMLThenReturn(t *testing.T) {
	for sql, want := range map[string]bool{
		"INSERT INTO T (a) VALUES (1) THEN RETURN a":             true,
		"insert into T (a) values (1) then  /* c */ return *":    true,
		"UPDATE T SET a = 1 WHERE true RETURNING a":              false,
		"UPDATE T SET returning = 1 WHERE true":                  false,
		"UPDATE T SET a = (CASE WHEN b THEN return END) WHERE c": false,
		"UPDATE T SET a = (b) WHERE (c) THEN RETURN a":           true,
		"DELETE FROM T WHERE 'then return' = ''":                 false,
		"DELETE FROM T WHERE a = 1 -- THEN RETURN a":             false,
		"UPDATE T SET `then` = 1, `return` = 2 WHERE true":       false,
		"UPDATE T SET a = 1 WHERE true THEN, RETURN":             false,
		"INSERT INTO T (a) VALUES (?) THEN RETURN a":             true,
		"@{PDML_MAX_PARALLELISM=1} DELETE FROM T WHERE b = @x":   false,
		"SELECT 1 THEN RETURN a":                                 false, // a query: not looked at
		"INSERT INTO T (a) VALUES (1); SELECT 1 THEN RETURN a":   false, // several statements: each is parsed alone
		"INSERT INTO T (a) VALUES (1) THEN RETURN a; SELECT 2 ;": false,
	} {
		st, err := Parse(sql)
		if err != nil || st.ThenReturn != want {
			t.Errorf("Parse(%q).ThenReturn = %v, %v; want %v", sql, st.ThenReturn, err, want)
		}
	}
	sql := "UPDATE T SET a = 'x' WHERE b = 1 THEN RETURN a"
	if allocs := testing.AllocsPerRun(100, func() { _, _ = Parse(sql) }); allocs != 0 {
		t.Fatalf("DML without parameters allocates %v times, want 0", allocs)
	}
}

// TestDatabaseStatements: CREATE DATABASE and DROP DATABASE, and the name
// DROP DATABASE drops.
func TestDatabaseStatements(t *testing.T) {
	for _, c := range []struct {
		sql     string
		op      DatabaseOp
		name    string
		invalid string
	}{
		{"CREATE DATABASE db", CreateDatabase, "", ""},
		{"create /* c */ database `my-db`", CreateDatabase, "", ""},
		{"CREATE TABLE T (a INT64) PRIMARY KEY (a)", NoDatabaseOp, "", ""},
		{"ALTER DATABASE db SET OPTIONS (x = 1)", NoDatabaseOp, "", ""},
		{"DROP TABLE T", NoDatabaseOp, "", ""},
		{"DROP DATABASE db", DropDatabase, "db", ""},
		{"drop database My-DB-2 ;", DropDatabase, "my-db-2", ""},
		{"DROP DATABASE `Quoted-Name`", DropDatabase, "Quoted-Name", ""},
		{"DROP DATABASE `a\\x2db`", DropDatabase, "a-b", ""},
		{"DROP DATABASE ``", DropDatabase, "", "identifier \"``\": empty"},
		{"DROP DATABASE", DropDatabase, "", "DROP DATABASE: missing database name"},
		{"DROP DATABASE db.x", DropDatabase, "", `DROP DATABASE: unexpected "." in the database name`},
		{"DROP DATABASE 'db'", DropDatabase, "", `unexpected "'db'"`},
	} {
		st, err := Parse(c.sql)
		if err != nil || st.Kind != DDL || st.Database != c.op || st.DatabaseName != c.name {
			t.Errorf("Parse(%q) = %v %v %q, %v; want DDL %v %q", c.sql, st.Kind, st.Database, st.DatabaseName, err, c.op, c.name)
		}
		if (c.invalid == "") != (st.Invalid == nil) || (st.Invalid != nil &&
			(status.Code(st.Invalid) != codes.InvalidArgument || !strings.Contains(st.Invalid.Error(), c.invalid))) {
			t.Errorf("Parse(%q).Invalid = %v, want %q", c.sql, st.Invalid, c.invalid)
		}
	}
}

// TestClientFormsNotRead: statements of several parts, and statements
// that do not scan, have no client form.
func TestClientFormsNotRead(t *testing.T) {
	for _, sql := range []string{"SET a = 1; SHOW VARIABLE a", "BEGIN; SELECT 1"} {
		if st, err := Parse(sql); err != nil || !st.Multi || st.Client != nil || st.Invalid != nil {
			t.Errorf("Parse(%q) = %+v, %v; want Multi without a client form", sql, st, err)
		}
	}
	if st, err := Parse("SET a = 'x"); err == nil || st.Client != nil {
		t.Errorf("an unclosed literal: %+v, %v", st, err)
	}
	for _, sql := range []string{"SELECT 1", "INSERT INTO T (a) VALUES (1)", "EXPLAIN SELECT 1"} {
		if st, _ := Parse(sql); st.Client != nil || st.Invalid != nil {
			t.Errorf("Parse(%q) has a client form: %+v", sql, st)
		}
	}
}

// describe is a statement's parse result as text, for comparisons:
// errors by code and text, pointers by what they point at.
func describe(st Statement) string {
	s := fmt.Sprintf("kind=%d dml=%d kw=%q sql=%q params=%q named=%q multi=%v then=%v db=%d dbname=%q",
		st.Kind, st.DML, st.Keyword, st.SQL, st.Params, st.Named, st.Multi, st.ThenReturn, st.Database, st.DatabaseName)
	if st.Invalid != nil {
		s += fmt.Sprintf(" invalid=%v:%q", status.Code(st.Invalid), st.Invalid.Error())
	}
	if st.Client != nil {
		s += " client={" + describeClient(st.Client) + "}"
	}
	return s
}

func describeClient(c *ClientStatement) string {
	b := func(p *bool) string {
		if p == nil {
			return "nil"
		}
		return fmt.Sprint(*p)
	}
	s := fmt.Sprintf("cmd=%d name=%q value=%q default=%v column=%q text=%q ro=%s iso=%d deferrable=%s batch=%d savepoint=%q",
		c.Command, c.Name, c.Value, c.Default, c.Column, c.Text, b(c.Txn.ReadOnly), c.Txn.Isolation, b(c.Txn.Deferrable), c.Batch, c.Savepoint)
	if c.Query != nil {
		s += " query={" + describe(*c.Query) + "}"
	}
	return s
}

// TestCacheKeepsInvalid: a malformed client-side statement is cached with
// its error, which a hit returns as the first parse did.
func TestCacheKeepsInvalid(t *testing.T) {
	c := NewCache(4)
	first, err := c.Parse("SET TRANSACTION READ SOMETIMES")
	if err != nil || first.Invalid == nil || c.Len() != 1 {
		t.Fatalf("first parse: %v, %v, %d cached", first.Invalid, err, c.Len())
	}
	hit, err := c.Parse("SET TRANSACTION READ SOMETIMES")
	if err != nil || hit.Invalid != first.Invalid || hit.Client != first.Client {
		t.Fatalf("hit: %v, %v; want the cached %v", hit.Invalid, err, first.Invalid)
	}
}
