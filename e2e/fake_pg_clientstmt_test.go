package e2e

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/spannerfast/spannerfast/internal/fakespanner"
)

// The request shapes of the PostgreSQL forms of the client-side statements
// (emulator_pg_clientstmt_test.go runs their semantics on the emulator):
// what BEGIN, START TRANSACTION, SET TRANSACTION and the isolation settings
// send, and statement_timeout as the calls' deadline.

// pgTxnConn is a connection to a fake PostgreSQL-dialect database serving
// txnQuery, txnUpdate and txnInsert.
func pgTxnConn(t *testing.T) (*fakespanner.Server, *sql.Conn) {
	t.Helper()
	s, db := startTxnFake(t, "database_dialect=POSTGRESQL")
	return s, dbConn(t, db)
}

// TestFakePGBeginOptions: each PostgreSQL way of beginning a transaction
// (and SET TRANSACTION, default_transaction_isolation, isolation_level in
// its PostgreSQL spellings) sends the transaction options it says with the
// transaction's first statement; each way of ending it sends one Commit or
// one Rollback.
func TestFakePGBeginOptions(t *testing.T) {
	ctx := context.Background()
	const (
		unspecified = spannerpb.TransactionOptions_ISOLATION_LEVEL_UNSPECIFIED
		serializ    = spannerpb.TransactionOptions_SERIALIZABLE
		repeatable  = spannerpb.TransactionOptions_REPEATABLE_READ
	)
	for _, tc := range []struct {
		stmts    []string // before the transaction's first statement
		readOnly bool
		iso      spannerpb.TransactionOptions_IsolationLevel
		end      string
	}{
		{[]string{"BEGIN"}, false, unspecified, "COMMIT"},
		{[]string{"BEGIN TRANSACTION"}, false, unspecified, "END"},
		{[]string{"begin work isolation level repeatable read"}, false, repeatable, "COMMIT WORK"},
		{[]string{"START TRANSACTION ISOLATION LEVEL SERIALIZABLE, READ WRITE"}, false, serializ, "END TRANSACTION"},
		{[]string{"START"}, false, unspecified, "ROLLBACK"},
		{[]string{"START WORK ISOLATION LEVEL REPEATABLE READ NOT DEFERRABLE"}, false, repeatable, "ABORT"},
		{[]string{"BEGIN READ ONLY"}, true, unspecified, "COMMIT TRANSACTION"},
		{[]string{"START TRANSACTION READ ONLY, DEFERRABLE"}, true, unspecified, "ROLLBACK WORK"},
		{[]string{"BEGIN", "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ"}, false, repeatable, "COMMIT"},
		{[]string{"BEGIN", "SET TRANSACTION READ ONLY"}, true, unspecified, "ABORT TRANSACTION"},
		{[]string{"SET default_transaction_isolation TO 'repeatable read'", "BEGIN"}, false, repeatable, "COMMIT"},
		{[]string{"SET default_transaction_isolation = 'repeatable read'", "SET isolation_level = 'serializable'", "BEGIN"}, false, serializ, "COMMIT"},
		{[]string{"SET default_transaction_isolation = 'repeatable read'", "BEGIN ISOLATION LEVEL SERIALIZABLE"}, false, serializ, "COMMIT"},
		{[]string{"SET SESSION spanner.isolation_level TO 'repeatable_read'", "START TRANSACTION"}, false, repeatable, "COMMIT"},
		{[]string{"BEGIN", "SET LOCAL default_transaction_isolation = 'repeatable read'"}, false, repeatable, "COMMIT"},
	} {
		s, c := pgTxnConn(t)
		for _, st := range tc.stmts {
			if _, err := c.ExecContext(ctx, st); err != nil {
				t.Fatalf("%q: %s: %v", tc.stmts, st, err)
			}
		}
		var begin *spannerpb.TransactionOptions
		if tc.readOnly {
			rows, err := c.QueryContext(ctx, txnQuery)
			if err != nil {
				t.Fatalf("%q: %v", tc.stmts, err)
			}
			readStrings(t, rows)
			begin = s.RequestsFor("ExecuteStreamingSql")[0].ExecuteSQL().GetTransaction().GetBegin()
		} else {
			if _, err := c.ExecContext(ctx, txnUpdate); err != nil {
				t.Fatalf("%q: %v", tc.stmts, err)
			}
			begin = s.RequestsFor("ExecuteSql")[0].ExecuteSQL().GetTransaction().GetBegin()
		}
		if begin == nil || (begin.GetReadOnly() != nil) != tc.readOnly || begin.GetIsolationLevel() != tc.iso {
			t.Errorf("%q: the first statement begins %v; want read-only %v, isolation %v", tc.stmts, begin, tc.readOnly, tc.iso)
		}
		if _, err := c.ExecContext(ctx, tc.end); err != nil {
			t.Fatalf("%q: %s: %v", tc.stmts, tc.end, err)
		}
		commits, rollbacks := len(s.RequestsFor("Commit")), len(s.RequestsFor("Rollback"))
		wantCommit := tc.end[0] == 'C' || tc.end[0] == 'E' || tc.end[0] == 'c'
		switch {
		case tc.readOnly && (commits != 0 || rollbacks != 0):
			// A read-only transaction ends without a call.
			t.Errorf("%q, %s: %d commits, %d rollbacks; want none", tc.stmts, tc.end, commits, rollbacks)
		case !tc.readOnly && wantCommit && (commits != 1 || rollbacks != 0):
			t.Errorf("%q, %s: %d commits, %d rollbacks; want one commit", tc.stmts, tc.end, commits, rollbacks)
		case !tc.readOnly && !wantCommit && (commits != 0 || rollbacks != 1):
			t.Errorf("%q, %s: %d commits, %d rollbacks; want one rollback", tc.stmts, tc.end, commits, rollbacks)
		}
		// The transaction's options were its own.
		if got := showText(t, ctx, c, "transaction_read_only"); got != "false" {
			t.Errorf("%q: transaction_read_only after the transaction = %s", tc.stmts, got)
		}
	}
}

// TestFakePGStatementTimeout: statement_timeout in each PostgreSQL form
// (an integer is milliseconds, TO, SESSION, the spanner. prefix) is the
// deadline of the calls that follow; RESET and SET ... TO DEFAULT take it
// away.
func TestFakePGStatementTimeout(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		set  string
		want time.Duration // 0: no deadline
	}{
		{"SET statement_timeout = 7000", 7 * time.Second},
		{"SET statement_timeout TO '7s'", 7 * time.Second},
		{"SET SESSION spanner.statement_timeout TO 7000", 7 * time.Second},
		{"set spanner.statement_timeout = '7000ms'", 7 * time.Second},
		{"RESET statement_timeout", 0},
		{"SET statement_timeout TO DEFAULT", 0},
		{"SET statement_timeout = 0", 0},
	} {
		s, c := pgTxnConn(t)
		if _, err := c.ExecContext(ctx, "SET statement_timeout = 1000000"); err != nil {
			t.Fatal(err)
		}
		if _, err := c.ExecContext(ctx, tc.set); err != nil {
			t.Fatalf("%s: %v", tc.set, err)
		}
		rows, err := c.QueryContext(ctx, txnQuery)
		if err != nil {
			t.Fatal(err)
		}
		readStrings(t, rows)
		if _, err := c.ExecContext(ctx, txnUpdate); err != nil {
			t.Fatal(err)
		}
		for _, m := range []string{"ExecuteStreamingSql", "ExecuteSql"} {
			r := s.RequestsFor(m)[0]
			left := time.Until(r.Deadline)
			if tc.want == 0 && !r.Deadline.IsZero() {
				t.Errorf("%s: %s has a deadline %v away, want none", tc.set, m, left)
			}
			if tc.want > 0 && (r.Deadline.IsZero() || left > tc.want || left < tc.want-2*time.Second) {
				t.Errorf("%s: %s deadline %v away (zero: %v), want about %v", tc.set, m, left, r.Deadline.IsZero(), tc.want)
			}
		}
	}
	// What PostgreSQL would read as a unit go-sql-spanner refuses: so does
	// spannerfast, and the value in effect stays.
	_, c := pgTxnConn(t)
	if _, err := c.ExecContext(ctx, "SET statement_timeout = '1 min'"); status.Code(err) != codes.InvalidArgument {
		t.Errorf("SET statement_timeout = '1 min': %v, want InvalidArgument", err)
	}
	if got := showText(t, ctx, c, "statement_timeout"); got != "0s" {
		t.Errorf("statement_timeout after a refused SET = %q", got)
	}
}

// TestFakePGSettingsOnGoogleSQL: the PostgreSQL settings do not exist on a
// GoogleSQL database (InvalidArgument, as in go-sql-spanner), and SHOW
// TRANSACTION ISOLATION LEVEL answers there in GoogleSQL's spelling.
func TestFakePGSettingsOnGoogleSQL(t *testing.T) {
	ctx := context.Background()
	_, db := startTxnFake(t, "database_dialect=GOOGLE_STANDARD_SQL")
	c := dbConn(t, db)
	for _, stmt := range []string{
		"SET application_name = 'app'", "SET timezone = 'UTC'", "SET default_transaction_isolation = 'serializable'",
	} {
		if _, err := c.ExecContext(ctx, stmt); status.Code(err) != codes.InvalidArgument {
			t.Errorf("%s on GoogleSQL: %v, want InvalidArgument", stmt, err)
		}
	}
	for _, name := range []string{"application_name", "server_version", "transaction_isolation", "client_encoding"} {
		var v string
		if err := c.QueryRowContext(ctx, "SHOW VARIABLE "+name).Scan(&v); status.Code(err) != codes.InvalidArgument {
			t.Errorf("SHOW VARIABLE %s on GoogleSQL: %q, %v; want InvalidArgument", name, v, err)
		}
	}
	var iso string
	if err := c.QueryRowContext(ctx, "SHOW TRANSACTION ISOLATION LEVEL").Scan(&iso); err != nil || iso != "Default" {
		t.Errorf("SHOW TRANSACTION ISOLATION LEVEL on GoogleSQL = %q, %v; want Default", iso, err)
	}
}

// TestFakePGShowTransaction: SHOW TRANSACTION ... and transaction_isolation
// on a PostgreSQL database follow the properties they show, as
// go-sql-spanner's TestStatementExecutor_ShowTransaction has it, and
// transaction_isolation cannot be set.
func TestFakePGShowTransaction(t *testing.T) {
	ctx := context.Background()
	_, c := pgTxnConn(t)
	check := func(want map[string]string) {
		t.Helper()
		for q, w := range want {
			var got string
			if err := c.QueryRowContext(ctx, q).Scan(&got); err != nil || got != w {
				t.Errorf("%s = %q, %v; want %q", q, got, err, w)
			}
		}
	}
	check(map[string]string{
		"show transaction isolation level": "serializable", "show transaction_isolation": "serializable",
		"show transaction read only": "false", "show transaction deferrable": "false",
	})
	for _, set := range []string{"set isolation_level = 'repeatable_read'", "set transaction_read_only = true", "set transaction_deferrable = true"} {
		if _, err := c.ExecContext(ctx, set); err != nil {
			t.Fatalf("%s: %v", set, err)
		}
	}
	check(map[string]string{
		"show transaction isolation level": "repeatable read", "show transaction_isolation": "repeatable read",
		"show transaction read only": "true", "show transaction not deferrable": "true",
	})
	if _, err := c.ExecContext(ctx, "set transaction_isolation = 'repeatable_read'"); status.Code(err) != codes.FailedPrecondition {
		t.Errorf("set transaction_isolation: %v, want FailedPrecondition (read-only)", err)
	}
}
