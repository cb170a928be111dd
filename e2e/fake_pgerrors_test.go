package e2e

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"testing"

	"cloud.google.com/go/spanner"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/spannerfast/spannerfast/conn"
	sfdriver "github.com/spannerfast/spannerfast/driver"
	"github.com/spannerfast/spannerfast/internal/fakespanner"
)

// SQLSTATE on a PostgreSQL-dialect database (docs/postgresql.md, "Errors
// and SQLSTATE") and the transaction error state, against the scripted
// fake server: each way an error leaves the driver, with Spanner's
// ErrorInfo detail and without.

const (
	pgErrFirst   = "SELECT 1 / 0"                          // fails before its first row
	pgErrMidway  = "SELECT s FROM t WHERE pg_midway"       // fails after a row
	pgErrUnique  = "INSERT INTO t (s) VALUES ('dup')"      // AlreadyExists, no detail
	pgErrDDL     = "CREATE TABLE t (k bigint primary key)" // its operation fails
	pgErrBatched = "UPDATE t SET s = 'b' WHERE k = 1"      // fails in a DML batch
	pgErrPlain   = "SELECT s FROM t WHERE pg_plain"        // InvalidArgument, no detail
)

// errorInfo is a status error with Spanner's ErrorInfo carrying sqlstate
// under key.
func errorInfo(t *testing.T, code codes.Code, msg, key, sqlstate string) error {
	t.Helper()
	s, err := status.New(code, msg).WithDetails(&errdetails.ErrorInfo{Reason: "PG", Metadata: map[string]string{key: sqlstate}})
	if err != nil {
		t.Fatal(err)
	}
	return s.Err()
}

// startPGErrFake serves the failing statements above, and txnQuery,
// txnUpdate, txnInsert (startTxnFake); props are extra DSN properties.
func startPGErrFake(t *testing.T, props ...string) (*fakespanner.Server, *sql.DB) {
	t.Helper()
	s, db := startTxnFake(t, props...)
	fail := func(sql string, r *fakespanner.Result, at int, err error) {
		r.Faults = []fakespanner.Fault{{AfterMessage: at, Err: err, Times: -1}}
		s.AddResult(sql, r)
	}
	fail(pgErrFirst, fakespanner.Select1(), 0, errorInfo(t, codes.OutOfRange, "division by zero", "pg_sqlerrcode", "22012"))
	fail(pgErrMidway, &fakespanner.Result{ResultSet: stringRows("a", "b"), Split: fakespanner.SplitOptions{MaxValues: 1}}, 1,
		errorInfo(t, codes.FailedPrecondition, "check constraint violated", "sqlstate", "23514"))
	fail(pgErrUnique, fakespanner.DML(0), 0, status.Error(codes.AlreadyExists, "Row [dup] in table t already exists"))
	fail(pgErrBatched, fakespanner.DML(0), 0, errorInfo(t, codes.InvalidArgument, "value too long", "pg_sqlerrcode", "22001"))
	fail(pgErrPlain, fakespanner.Select1(), 0, status.Error(codes.InvalidArgument, `relation "nosuch" does not exist`))
	return s, db
}

// wantSQLState checks that err carries sqlstate (errors.As), keeps code
// (status.Code and spanner.ErrCode) and its text, prefixed as
// go-sql-spanner's.
func wantSQLState(t *testing.T, what string, err error, sqlstate string, code codes.Code, text string) {
	t.Helper()
	var pgErr *sfdriver.PGError
	switch {
	case err == nil:
		t.Errorf("%s: no error", what)
	case !errors.As(err, &pgErr):
		t.Errorf("%s: %v has no SQLSTATE (%T)", what, err, err)
	case pgErr.SQLState() != sqlstate || sfdriver.ToPGSQLState(err) != sqlstate:
		t.Errorf("%s: SQLSTATE %q (ToPGSQLState %q), want %q", what, pgErr.SQLState(), sfdriver.ToPGSQLState(err), sqlstate)
	case status.Code(err) != code || spanner.ErrCode(err) != code:
		t.Errorf("%s: code %v (spanner.ErrCode %v), want %v", what, status.Code(err), spanner.ErrCode(err), code)
	case !strings.Contains(err.Error(), "[SQLSTATE "+sqlstate+"] ") || !strings.Contains(err.Error(), text):
		t.Errorf("%s: text %q, want [SQLSTATE %s] and %q", what, err, sqlstate, text)
	}
}

// TestFakePGErrorsCarrySQLState: on a PostgreSQL-dialect database every
// way an error leaves the driver gives it its SQLSTATE: from the server's
// ErrorInfo when it sends one, else from the code and message.
func TestFakePGErrorsCarrySQLState(t *testing.T) {
	ctx := context.Background()
	s, db := startPGErrFake(t, "database_dialect=POSTGRESQL")

	_, err := db.QueryContext(ctx, pgErrFirst)
	wantSQLState(t, "query", err, "22012", codes.OutOfRange, "division by zero")

	rows, err := db.QueryContext(ctx, pgErrMidway)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for rows.Next() {
		n++
	}
	wantSQLState(t, "rows.Err", rows.Err(), "23514", codes.FailedPrecondition, "check constraint violated")
	rows.Close()
	if n != 1 {
		t.Errorf("%d rows before the error, want 1", n)
	}

	_, err = db.ExecContext(ctx, pgErrUnique)
	wantSQLState(t, "exec", err, "23505", codes.AlreadyExists, "Row [dup] in table t already exists")

	stmt, err := db.PrepareContext(ctx, pgErrPlain)
	if err != nil {
		t.Fatal(err)
	}
	_, err = stmt.QueryContext(ctx)
	wantSQLState(t, "prepared query", err, "42P01", codes.InvalidArgument, `relation "nosuch" does not exist`)
	stmt.Close()

	// Inside a transaction: a query's rows, then the commit.
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.ExecContext(ctx, txnUpdate); err != nil {
		t.Fatal(err)
	}
	rows, err = tx.QueryContext(ctx, pgErrMidway)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
	}
	wantSQLState(t, "rows.Err in a transaction", rows.Err(), "23514", codes.FailedPrecondition, "check constraint violated")
	rows.Close()
	s.AddMethodFault("Commit", fakespanner.Fault{Err: errorInfo(t, codes.FailedPrecondition, "deferred check failed", "pg_sqlerrcode", "23P01")})
	wantSQLState(t, "commit", tx.Commit(), "23P01", codes.FailedPrecondition, "deferred check failed")

	// DML batches, through SQL and through the Go API.
	c := dbConn(t, db)
	mustExec(t, c, "START BATCH DML")
	mustExec(t, c, pgErrBatched)
	_, err = c.ExecContext(ctx, "RUN BATCH")
	wantSQLState(t, "RUN BATCH", err, "22001", codes.InvalidArgument, "value too long")
	if err := raw(t, c, func(cn *conn.Conn) error { return cn.StartBatchDML() }); err != nil {
		t.Fatal(err)
	}
	mustExec(t, c, pgErrBatched)
	err = raw(t, c, func(cn *conn.Conn) error { _, err := cn.RunDmlBatch(ctx); return err })
	wantSQLState(t, "RunDmlBatch", err, "22001", codes.InvalidArgument, "value too long")

	// DDL.
	s.AddDDLError(errorInfo(t, codes.FailedPrecondition, "duplicate table", "pg_sqlerrcode", "42P07"))
	_, err = db.ExecContext(ctx, pgErrDDL)
	wantSQLState(t, "DDL", err, "42P07", codes.FailedPrecondition, "duplicate table")

	// Errors the driver makes itself.
	_, err = db.ExecContext(ctx, "COMMIT")
	wantSQLState(t, "COMMIT without a transaction", err, "XX000", codes.FailedPrecondition, "no transaction")
	err = raw(t, c, func(cn *conn.Conn) error {
		return cn.BufferWrite([]*spanner.Mutation{spanner.Insert("t", []string{"s"}, []any{"x"})})
	})
	wantSQLState(t, "BufferWrite outside a transaction", err, "XX000", codes.FailedPrecondition, "BufferWrite")
}

// TestFakeGoogleSQLErrorsWithoutSQLState: on a GoogleSQL database the same
// failures are the server's errors as they were: no SQLSTATE, no prefix.
func TestFakeGoogleSQLErrorsWithoutSQLState(t *testing.T) {
	ctx := context.Background()
	_, db := startPGErrFake(t)
	var pgErr *sfdriver.PGError
	_, err := db.QueryContext(ctx, pgErrFirst)
	if err == nil || errors.As(err, &pgErr) || strings.Contains(err.Error(), "SQLSTATE") || status.Code(err) != codes.OutOfRange {
		t.Errorf("query on GoogleSQL: %v (%T)", err, err)
	}
	_, err = db.ExecContext(ctx, pgErrUnique)
	if err == nil || errors.As(err, &pgErr) || strings.Contains(err.Error(), "SQLSTATE") || status.Code(err) != codes.AlreadyExists {
		t.Errorf("exec on GoogleSQL: %v (%T)", err, err)
	}
}

// txState reads the connection's TransactionState.
func txState(t *testing.T, c *sql.Conn) sfdriver.TransactionState {
	t.Helper()
	var ts sfdriver.TransactionState
	if err := raw(t, c, func(cn *conn.Conn) error { ts = cn.TransactionState(); return nil }); err != nil {
		t.Fatal(err)
	}
	return ts
}

func setInErrorTx(t *testing.T, c *sql.Conn, b sfdriver.InErrorTxBehavior) {
	t.Helper()
	if err := raw(t, c, func(cn *conn.Conn) error { return cn.SetInErrorTxBehavior(b) }); err != nil {
		t.Fatal(err)
	}
}

// TestFakePGTransactionErrorState: a statement that fails in a transaction
// makes it failed ('E'). Under EnforceInErrorState the statements that
// follow fail with 25P02 without being sent, and COMMIT (Tx.Commit or the
// statement) rolls back and succeeds; under AllowCommands (the initial
// rule) they run.
func TestFakePGTransactionErrorState(t *testing.T) {
	ctx := context.Background()
	s, db := startPGErrFake(t, "database_dialect=POSTGRESQL")
	c := dbConn(t, db)
	var b sfdriver.InErrorTxBehavior
	if err := raw(t, c, func(cn *conn.Conn) error { b = cn.InErrorTxBehavior(); return nil }); err != nil || b != sfdriver.InErrorTxBehaviorAllowCommands {
		t.Fatalf("initial InErrorTxBehavior %d (%v), want AllowCommands", b, err)
	}
	setInErrorTx(t, c, sfdriver.InErrorTxBehaviorEnforceInErrorState)
	for _, end := range []string{"Tx.Commit", "COMMIT", "Tx.Rollback"} {
		t.Run(end, func(t *testing.T) {
			if got := txState(t, c); got != sfdriver.TransactionStateIdle {
				t.Fatalf("before: %q", got)
			}
			tx, err := c.BeginTx(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := txState(t, c); got != sfdriver.TransactionStateTransaction {
				t.Fatalf("after BeginTx: %q", got)
			}
			if _, err := tx.ExecContext(ctx, txnUpdate); err != nil {
				t.Fatal(err)
			}
			_, err = tx.ExecContext(ctx, pgErrUnique)
			wantSQLState(t, "failing DML", err, "23505", codes.AlreadyExists, "already exists")
			if got := txState(t, c); got != sfdriver.TransactionStateFailed {
				t.Fatalf("after the failure: %q", got)
			}
			s.ResetRequests()
			_, err = tx.QueryContext(ctx, txnQuery)
			wantSQLState(t, "query in a failed transaction", err, "25P02", codes.FailedPrecondition, "current transaction is failed")
			_, err = tx.ExecContext(ctx, "SET spanner.statement_tag = 'x'")
			wantSQLState(t, "SET in a failed transaction", err, "25P02", codes.FailedPrecondition, "current transaction is failed")
			if n := len(s.RequestsFor("ExecuteStreamingSql")) + len(s.RequestsFor("ExecuteSql")); n != 0 {
				t.Errorf("%d statements sent in the failed transaction", n)
			}
			switch end {
			case "Tx.Commit":
				err = tx.Commit()
			case "COMMIT":
				_, err = tx.ExecContext(ctx, "COMMIT")
				_ = tx.Rollback() // database/sql's side of the transaction
			default:
				err = tx.Rollback()
			}
			if err != nil {
				t.Fatalf("%s of a failed transaction: %v", end, err)
			}
			if n := len(s.RequestsFor("Commit")); n != 0 {
				t.Errorf("%s of a failed transaction sent %d Commit requests", end, n)
			}
			if n := len(s.RequestsFor("Rollback")); n != 1 {
				t.Errorf("%s of a failed transaction sent %d Rollback requests, want 1", end, n)
			}
			if got := txState(t, c); got != sfdriver.TransactionStateIdle {
				t.Fatalf("after %s: %q", end, got)
			}
		})
	}

	t.Run("rows error", func(t *testing.T) {
		tx, err := c.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		rows, err := tx.QueryContext(ctx, pgErrMidway)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
		}
		rows.Close()
		if got := txState(t, c); got != sfdriver.TransactionStateFailed {
			t.Fatalf("after the rows failed: %q (rows.Err %v)", got, rows.Err())
		}
		if err := tx.Rollback(); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("AllowCommands", func(t *testing.T) {
		setInErrorTx(t, c, sfdriver.InErrorTxBehaviorAllowCommands)
		tx, err := c.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.ExecContext(ctx, pgErrUnique); err == nil {
			t.Fatal("no error")
		}
		if got := txState(t, c); got != sfdriver.TransactionStateFailed {
			t.Fatalf("after the failure: %q", got)
		}
		if n, err := tx.ExecContext(ctx, txnUpdate); err != nil {
			t.Fatalf("DML after the failure under AllowCommands: %v (%v)", err, n)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		if n := len(s.RequestsFor("Commit")); n == 0 {
			t.Error("the commit was not sent")
		}
	})

	if err := raw(t, c, func(cn *conn.Conn) error { return cn.SetInErrorTxBehavior(7) }); status.Code(err) != codes.InvalidArgument {
		t.Errorf("SetInErrorTxBehavior(7): %v, want InvalidArgument", err)
	}
}
