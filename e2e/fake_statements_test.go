package e2e

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/proto"

	"github.com/spannerfast/spannerfast/internal/fakespanner"
)

// Client-side transaction statements (BEGIN, COMMIT, ROLLBACK, SET
// TRANSACTION, SET LOCAL) against the scripted fake server.

// txnWork is what a test does inside a transaction.
func txnWork(t *testing.T, ctx context.Context, q interface {
	queryerCtx
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}, withDML bool) {
	t.Helper()
	if got := readStrings(t, mustQuery(t, q, txnQuery)); len(got) != 2 {
		t.Fatalf("rows %v", got)
	}
	if withDML {
		if _, err := q.ExecContext(ctx, txnUpdate); err != nil {
			t.Fatal(err)
		}
	}
}

// sqlStatement runs a client-side statement through ExecContext or, with
// query, through QueryContext (which must return no rows).
func sqlStatement(t *testing.T, ctx context.Context, c *sql.Conn, query bool, stmt string) {
	t.Helper()
	if !query {
		if _, err := c.ExecContext(ctx, stmt); err != nil {
			t.Fatalf("Exec %s: %v", stmt, err)
		}
		return
	}
	rows, err := c.QueryContext(ctx, stmt)
	if err != nil {
		t.Fatalf("Query %s: %v", stmt, err)
	}
	if rows.Next() {
		t.Fatalf("Query %s returned a row", stmt)
	}
	rows.Close()
}

// txnRequests are the transaction's requests (sessions are made once per
// server and are left out).
func txnRequests(s *fakespanner.Server) []fakespanner.Request {
	var out []fakespanner.Request
	for _, r := range s.Requests() {
		if r.Method != "CreateSession" && r.Method != "BatchCreateSessions" {
			out = append(out, r)
		}
	}
	return out
}

// TestFakeTransactionStatementsAsAPI: BEGIN ... COMMIT / ROLLBACK as SQL,
// through ExecContext and QueryContext, send exactly the requests of
// BeginTx with the same options and Tx.Commit / Tx.Rollback.
func TestFakeTransactionStatementsAsAPI(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		begin   string
		opts    *sql.TxOptions
		end     string
		withDML bool
	}{
		{"BEGIN", nil, "COMMIT", true},
		{"begin transaction", nil, "rollback transaction", true},
		{"BEGIN TRANSACTION READ WRITE", &sql.TxOptions{}, "COMMIT TRANSACTION", true},
		{"BEGIN ISOLATION LEVEL REPEATABLE READ", &sql.TxOptions{Isolation: sql.LevelRepeatableRead}, "COMMIT", true},
		{"BEGIN READ WRITE, ISOLATION LEVEL SERIALIZABLE", &sql.TxOptions{Isolation: sql.LevelSerializable}, "COMMIT;", true},
		{"/* c */ BEGIN TRANSACTION READ ONLY", &sql.TxOptions{ReadOnly: true}, "COMMIT", false},
		{"BEGIN READ ONLY", &sql.TxOptions{ReadOnly: true}, "ROLLBACK", false},
	} {
		// Reference: database/sql's BeginTx and Tx.
		ref, refDB := startTxnFake(t)
		rc, err := refDB.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		tx, err := rc.BeginTx(ctx, c.opts)
		if err != nil {
			t.Fatal(err)
		}
		txnWork(t, ctx, tx, c.withDML)
		if strings.HasPrefix(strings.ToUpper(c.end), "COMMIT") {
			err = tx.Commit()
		} else {
			err = tx.Rollback()
		}
		if err != nil {
			t.Fatal(err)
		}
		rc.Close()
		want := txnRequests(ref)

		for _, query := range []bool{false, true} {
			s, db := startTxnFake(t)
			conn, err := db.Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			sqlStatement(t, ctx, conn, query, c.begin)
			txnWork(t, ctx, conn, c.withDML)
			sqlStatement(t, ctx, conn, query, c.end)
			got := txnRequests(s)
			if len(got) != len(want) {
				t.Fatalf("%s ... %s (query %v): %d requests, want %d like BeginTx", c.begin, c.end, query, len(got), len(want))
			}
			for i := range want {
				if got[i].Method != want[i].Method || !proto.Equal(got[i].Message, want[i].Message) {
					t.Fatalf("%s ... %s (query %v): request %d:\n%s %s\nwant\n%s %s", c.begin, c.end, query, i,
						got[i].Method, prototext.Format(got[i].Message), want[i].Method, prototext.Format(want[i].Message))
				}
			}
			// The connection is out of the transaction: it goes back to
			// the pool and its next statement runs on its own.
			conn.Close()
		}
	}
}

// TestFakeSetTransaction: SET TRANSACTION changes the open transaction
// before its first statement, and only then.
func TestFakeSetTransaction(t *testing.T) {
	ctx := context.Background()
	s, db := startTxnFake(t)
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()

	firstBegin := func() *spannerpb.TransactionOptions {
		t.Helper()
		streams := s.RequestsFor("ExecuteStreamingSql")
		return streams[len(streams)-1].ExecuteSQL().GetTransaction().GetBegin()
	}
	// READ ONLY after BEGIN: the query begins a read-only transaction.
	sqlStatement(t, ctx, c, false, "BEGIN")
	sqlStatement(t, ctx, c, false, "SET TRANSACTION READ ONLY")
	txnWork(t, ctx, c, false)
	if firstBegin().GetReadOnly() == nil {
		t.Fatalf("after SET TRANSACTION READ ONLY the transaction began as %v", firstBegin())
	}
	sqlStatement(t, ctx, c, false, "COMMIT")
	if n := len(s.RequestsFor("Commit")); n != 0 {
		t.Fatalf("a read-only transaction sent %d Commit requests", n)
	}

	// Isolation level and READ WRITE on a read-only BeginTx.
	tx, err := c.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.ExecContext(ctx, "SET TRANSACTION READ WRITE, ISOLATION LEVEL REPEATABLE READ"); err != nil {
		t.Fatal(err)
	}
	txnWork(t, ctx, tx, true)
	if b := firstBegin(); b.GetReadWrite() == nil || b.GetIsolationLevel() != spannerpb.TransactionOptions_REPEATABLE_READ {
		t.Fatalf("after SET TRANSACTION READ WRITE, ISOLATION LEVEL REPEATABLE READ the transaction began as %v", b)
	}
	// Too late now.
	_, err = tx.ExecContext(ctx, "SET TRANSACTION READ ONLY")
	if status.Code(err) != codes.FailedPrecondition || !strings.Contains(err.Error(), "first statement") {
		t.Fatalf("SET TRANSACTION after a statement: %v, want FailedPrecondition", err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if n := len(s.RequestsFor("Commit")); n != 1 {
		t.Fatalf("%d Commit requests, want 1", n)
	}

	// Outside a transaction.
	_, err = c.ExecContext(ctx, "SET TRANSACTION READ ONLY")
	if status.Code(err) != codes.FailedPrecondition || !strings.Contains(err.Error(), "SET TRANSACTION") {
		t.Fatalf("SET TRANSACTION outside a transaction: %v, want FailedPrecondition", err)
	}
}

func showString(t *testing.T, ctx context.Context, c *sql.Conn, name string) string {
	t.Helper()
	var v any
	if err := c.QueryRowContext(ctx, "SHOW VARIABLE "+name).Scan(&v); err != nil {
		t.Fatalf("SHOW VARIABLE %s: %v", name, err)
	}
	if b, ok := v.([]byte); ok {
		return string(b)
	}
	return fmt.Sprint(v)
}

// TestFakeSetLocal: SET LOCAL lasts until the transaction ends, by SQL or
// through database/sql, commit or rollback; a plain SET in the transaction
// is what comes back then; extension variables too.
func TestFakeSetLocal(t *testing.T) {
	ctx := context.Background()
	_, db := startTxnFake(t)
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()

	for _, end := range []string{"COMMIT", "ROLLBACK"} {
		sqlStatement(t, ctx, c, false, "BEGIN")
		sqlStatement(t, ctx, c, false, "SET LOCAL retry_aborts_internally = false")
		sqlStatement(t, ctx, c, false, "SET LOCAL my_ext.x = 'local'")
		if v := showString(t, ctx, c, "retry_aborts_internally"); v != "false" {
			t.Fatalf("in the transaction retry_aborts_internally = %s, want false", v)
		}
		if v := showString(t, ctx, c, "my_ext.x"); v != "local" {
			t.Fatalf("in the transaction my_ext.x = %s, want local", v)
		}
		sqlStatement(t, ctx, c, false, end)
		if v := showString(t, ctx, c, "retry_aborts_internally"); v != "true" {
			t.Fatalf("after %s retry_aborts_internally = %s, want true again", end, v)
		}
		if _, err := c.QueryContext(ctx, "SHOW VARIABLE my_ext.x"); status.Code(err) != codes.InvalidArgument {
			t.Fatalf("after %s my_ext.x: %v, want InvalidArgument (unset again)", end, err)
		}
	}

	// Through database/sql's Tx, with a plain SET after the SET LOCAL.
	tx, err := c.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, stmt := range []string{"SET LOCAL statement_tag = 'local'", "SET LOCAL read_only_staleness = 'EXACT_STALENESS 10s'", "SET read_only_staleness = 'MAX_STALENESS 5s'"} {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	var st string
	if err := tx.QueryRowContext(ctx, "SHOW VARIABLE read_only_staleness").Scan(&st); err != nil || !strings.Contains(st, "10s") {
		t.Fatalf("read_only_staleness in the transaction = %q, %v; want the local 10s", st, err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := c.QueryRowContext(ctx, "SHOW VARIABLE read_only_staleness").Scan(&st); err != nil || !strings.Contains(st, "5s") {
		t.Fatalf("read_only_staleness after the transaction = %q, %v; want the plain SET's 5s", st, err)
	}

	// Outside a transaction SET LOCAL has nothing to last for.
	_, err = c.ExecContext(ctx, "SET LOCAL retry_aborts_internally = false")
	if status.Code(err) != codes.FailedPrecondition || !strings.Contains(err.Error(), "SET LOCAL") {
		t.Fatalf("SET LOCAL outside a transaction: %v, want FailedPrecondition", err)
	}
}

// TestFakeStatementErrors: malformed statements fail with the code and
// the name of what was wrong, and send nothing.
func TestFakeStatementErrors(t *testing.T) {
	ctx := context.Background()
	s, db := startTxnFake(t)
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, e := range []struct {
		stmt string
		code codes.Code
		want string
	}{
		{"BEGIN READ SOMETIMES", codes.InvalidArgument, "READ SOMETIMES"},
		{"BEGIN ISOLATION LEVEL READ COMMITTED", codes.InvalidArgument, "ISOLATION LEVEL READ COMMITTED"},
		{"COMMIT NOW", codes.InvalidArgument, "NOW"},
		{"COMMIT", codes.FailedPrecondition, "no transaction to commit"},
		{"ROLLBACK", codes.FailedPrecondition, "no transaction to roll back"},
		{"SELECT 'unclosed", codes.InvalidArgument, "unclosed literal (string literal at offset 7)"},
		{"SELECT 1 /* unclosed", codes.InvalidArgument, "unclosed comment"},
		{"UPDATE t SET s = b'''x'' WHERE true", codes.InvalidArgument, "triple-quoted bytes literal"},
		{"SELECT `unclosed", codes.InvalidArgument, "quoted identifier"},
		{"SELECT @a, ?", codes.InvalidArgument, "must only use one parameter style (named or positional): SELECT @a, ?"},
	} {
		for _, query := range []bool{false, true} {
			if query {
				_, err = c.QueryContext(ctx, e.stmt)
			} else {
				_, err = c.ExecContext(ctx, e.stmt)
			}
			if status.Code(err) != e.code || !strings.Contains(err.Error(), e.want) {
				t.Errorf("%s (query %v): %v; want %v naming %q", e.stmt, query, err, e.code, e.want)
			}
		}
	}
	// BEGIN twice.
	sqlStatement(t, ctx, c, false, "BEGIN")
	if _, err := c.ExecContext(ctx, "BEGIN"); status.Code(err) != codes.FailedPrecondition || !strings.Contains(err.Error(), "already has a transaction") {
		t.Errorf("BEGIN in a transaction: %v, want FailedPrecondition", err)
	}
	sqlStatement(t, ctx, c, false, "ROLLBACK")
	if got := txnRequests(s); len(got) != 0 {
		t.Fatalf("failed statements sent %d requests, first %s", len(got), got[0].Method)
	}
}
