package e2e

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/spannerfast/spannerfast/conn"
	sfdriver "github.com/spannerfast/spannerfast/driver"
)

// Errors of a PostgreSQL-dialect database on the emulator, through
// database/sql (docs/postgresql.md, "Errors and SQLSTATE" and "Transaction
// state"): the SQLSTATE go-sql-spanner gives each (errors.As to
// *driver.PGError) and the gRPC code the emulator sent.

var emuPGErrDDL = []string{
	"CREATE TABLE parent (id bigint primary key, name varchar)",
	"CREATE UNIQUE INDEX parent_name ON parent (name)",
	"CREATE TABLE child (id bigint primary key, pid bigint, CONSTRAINT fk_parent FOREIGN KEY (pid) REFERENCES parent (id))",
}

// emuPGErr runs query (through QueryContext and reading the rows when
// query is a SELECT, else ExecContext) and returns its error.
func emuPGErr(ctx context.Context, q interface {
	ExecContext(context.Context, string, ...any) (sql.Result, error)
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}, query string) error {
	if !strings.HasPrefix(query, "SELECT") {
		_, err := q.ExecContext(ctx, query)
		return err
	}
	rows, err := q.QueryContext(ctx, query)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
	}
	return rows.Err()
}

// TestEmulatorPGErrorsSQLState provokes each failure on a
// PostgreSQL-dialect database and checks its SQLSTATE, its gRPC code and
// that the emulator's message is still in the text.
func TestEmulatorPGErrorsSQLState(t *testing.T) {
	t.Parallel()
	ctx := emuCtx(t)
	db, _ := emuPGDB(t, emuPGErrDDL)
	emuExec(t, ctx, db, "INSERT INTO parent (id, name) VALUES (1, 'a')")
	for _, tc := range []struct {
		name, query string
		sqlstate    string
		code        codes.Code
		text        string
	}{
		{"primary key violation", "INSERT INTO parent (id, name) VALUES (1, 'b')", "23505", codes.AlreadyExists, "previously existing row"},
		{"unique index violation", "INSERT INTO parent (id, name) VALUES (2, 'a')", "23505", codes.AlreadyExists, "UNIQUE violation on index parent_name"},
		{"foreign key violation", "INSERT INTO child (id, pid) VALUES (1, 99)", "23503", codes.FailedPrecondition, "Foreign key `fk_parent` constraint violation"},
		{"relation not found", "SELECT * FROM nosuch", "42P01", codes.NotFound, `relation "nosuch" does not exist`},
		{"column not found (INSERT)", "INSERT INTO parent (id, nosuchcol) VALUES (5, 1)", "42703", codes.InvalidArgument, `column "nosuchcol" of relation "parent" does not exist`},
		{"column not found (UPDATE)", "UPDATE parent SET nosuchcol = 1 WHERE id = 1", "42703", codes.InvalidArgument, `column "nosuchcol" of relation "parent" does not exist`},
		// go-sql-spanner's mapping knows no rule for these two texts of the
		// emulator: XX000, as there.
		{"column not found (SELECT)", "SELECT nosuchcol FROM parent", "XX000", codes.InvalidArgument, `column "nosuchcol" does not exist`},
		{"syntax error", "SELECT * FROM WHERE", "XX000", codes.InvalidArgument, "syntax error"},
		{"drop a table with indexes", "DROP TABLE parent", "0A000", codes.FailedPrecondition, "Cannot drop table parent with indices"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := emuPGErr(ctx, db, tc.query)
			var pgErr *sfdriver.PGError
			switch {
			case err == nil:
				t.Fatal("no error")
			case !errors.As(err, &pgErr):
				t.Fatalf("%v: no *driver.PGError (%T)", err, err)
			case pgErr.SQLState() != tc.sqlstate || sfdriver.ToPGSQLState(err) != tc.sqlstate:
				t.Errorf("%v: SQLSTATE %q, want %q", err, pgErr.SQLState(), tc.sqlstate)
			case status.Code(err) != tc.code:
				t.Errorf("%v: code %v, want %v", err, status.Code(err), tc.code)
			case !strings.HasPrefix(err.Error(), "[SQLSTATE "+tc.sqlstate+"] ") || !strings.Contains(err.Error(), tc.text):
				t.Errorf("text %q, want [SQLSTATE %s] and %q", err, tc.sqlstate, tc.text)
			}
		})
	}
}

// TestEmulatorGoogleSQLErrorsWithoutSQLState: the same violation on a
// GoogleSQL database is the emulator's error as it was.
func TestEmulatorGoogleSQLErrorsWithoutSQLState(t *testing.T) {
	t.Parallel()
	ctx := emuCtx(t)
	db, _ := emuDB(t, []string{"CREATE TABLE parent (id INT64, name STRING(MAX)) PRIMARY KEY (id)"})
	emuExec(t, ctx, db, "INSERT INTO parent (id, name) VALUES (1, 'a')")
	_, err := db.ExecContext(ctx, "INSERT INTO parent (id, name) VALUES (1, 'b')")
	var pgErr *sfdriver.PGError
	if err == nil || errors.As(err, &pgErr) || strings.Contains(err.Error(), "SQLSTATE") || status.Code(err) != codes.AlreadyExists {
		t.Fatalf("GoogleSQL primary key violation: %v (%T)", err, err)
	}
}

// TestEmulatorPGInFailedTransaction: under EnforceInErrorState a statement
// that fails in a transaction fails the transaction: what follows fails
// with 25P02 and COMMIT rolls back (the row written before the failure is
// not there, and the database takes a new transaction). Under
// AllowCommands (the initial rule) the transaction goes on and commits.
func TestEmulatorPGInFailedTransaction(t *testing.T) {
	t.Parallel()
	ctx := emuCtx(t)
	db, _ := emuPGDB(t, emuPGErrDDL)
	emuExec(t, ctx, db, "INSERT INTO parent (id, name) VALUES (1, 'a')")
	c := dbConn(t, db)
	state := func() sfdriver.TransactionState {
		var ts sfdriver.TransactionState
		if err := c.Raw(func(dc any) error { ts = dc.(*conn.Conn).TransactionState(); return nil }); err != nil {
			t.Fatal(err)
		}
		return ts
	}
	setRule := func(b sfdriver.InErrorTxBehavior) {
		if err := c.Raw(func(dc any) error { return dc.(*conn.Conn).SetInErrorTxBehavior(b) }); err != nil {
			t.Fatal(err)
		}
	}

	setRule(sfdriver.InErrorTxBehaviorEnforceInErrorState)
	emuExec(t, ctx, c, "BEGIN")
	emuExec(t, ctx, c, "INSERT INTO parent (id, name) VALUES (2, 'b')")
	if _, err := c.ExecContext(ctx, "INSERT INTO parent (id, name) VALUES (1, 'dup')"); sfdriver.ToPGSQLState(err) != "23505" {
		t.Fatalf("duplicate key: %v", err)
	}
	if got := state(); got != sfdriver.TransactionStateFailed {
		t.Fatalf("state after the failure %q, want 'E'", got)
	}
	err := emuPGErr(ctx, c, "SELECT id FROM parent")
	var pgErr *sfdriver.PGError
	if !errors.As(err, &pgErr) || pgErr.SQLState() != "25P02" || status.Code(err) != codes.FailedPrecondition ||
		!strings.Contains(err.Error(), "current transaction is failed, commands ignored until end of transaction block") {
		t.Fatalf("query in the failed transaction: %v", err)
	}
	if _, err := c.ExecContext(ctx, "COMMIT"); err != nil {
		t.Fatalf("COMMIT of the failed transaction: %v", err)
	}
	if got := state(); got != sfdriver.TransactionStateIdle {
		t.Fatalf("state after COMMIT %q, want 'I'", got)
	}
	if got := emuInt64s(t, ctx, db, "SELECT id FROM parent ORDER BY id"); len(got) != 1 || got[0] != 1 {
		t.Fatalf("rows after COMMIT of the failed transaction: %v, want [1] (rolled back)", got)
	}

	setRule(sfdriver.InErrorTxBehaviorAllowCommands)
	tx, err := c.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback() // after a failure below; a no-op after the commit
	emuExec(t, ctx, tx, "INSERT INTO parent (id, name) VALUES (4, 'd')")
	if _, err := tx.ExecContext(ctx, "INSERT INTO parent (id, name) VALUES (1, 'dup')"); sfdriver.ToPGSQLState(err) != "23505" {
		t.Fatalf("duplicate key: %v", err)
	}
	if got := state(); got != sfdriver.TransactionStateFailed {
		t.Fatalf("state after the failure %q, want 'E'", got)
	}
	// The driver sends what follows (whatever the emulator makes of it: it
	// answers a statement after a failed one with that failure).
	err = emuPGErr(ctx, tx, "SELECT id FROM parent WHERE id = 4")
	t.Logf("after the failure: %v", err)
	if sfdriver.ToPGSQLState(err) == "25P02" {
		t.Fatalf("query after the failure under AllowCommands refused by the driver: %v", err)
	}
}
