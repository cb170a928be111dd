package e2e

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"reflect"
	"testing"

	"cloud.google.com/go/spanner"
	"google.golang.org/grpc/codes"

	sfdriver "github.com/spannerfast/spannerfast/driver"
)

// Savepoints on the emulator, in both dialects (docs/transactions.md#savepoints):
// the same scenarios, with each dialect's DDL and name rules. The table t
// has one INT64 key column id; unquoted names reach it in both dialects.

var (
	spGSQLDDL = []string{"CREATE TABLE t (id INT64 NOT NULL) PRIMARY KEY (id)"}
	spPGDDL   = []string{"CREATE TABLE t (id bigint PRIMARY KEY)"}
)

func TestEmulatorSavepoints(t *testing.T) {
	t.Parallel()
	db, _ := emuDB(t, spGSQLDDL)
	spScenarios(t, db, false)
}

func TestEmulatorPGSavepoints(t *testing.T) {
	t.Parallel()
	db, _ := emuPGDB(t, spPGDDL)
	spScenarios(t, db, true)
}

// spIDs reads t's ids through q.
func spIDs(t *testing.T, ctx context.Context, q emuQuerier) []int64 {
	t.Helper()
	return emuInt64s(t, ctx, q, "SELECT id FROM t ORDER BY id")
}

func spInsert(t *testing.T, ctx context.Context, tx *sql.Tx, ids ...int64) {
	t.Helper()
	for _, id := range ids {
		emuExec(t, ctx, tx, fmt.Sprintf("INSERT INTO t (id) VALUES (%d)", id))
	}
}

func spWant(t *testing.T, what string, got []int64, want ...int64) {
	t.Helper()
	if want == nil {
		want = []int64{}
	}
	if got == nil {
		got = []int64{}
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s: ids %v, want %v", what, got, want)
	}
}

// spScenarios: savepoint, work, rollback to, more work, commit leaves only
// the right rows; release; nested savepoints; a newer savepoint hiding an
// older one of the same name; the dialect's name rules; the Go API; the
// errors.
func spScenarios(t *testing.T, db *sql.DB, pg bool) {
	ctx := emuCtx(t)
	reset := func() { emuExec(t, ctx, db, "DELETE FROM t WHERE true") }

	t.Run("rollback to, then more work", func(t *testing.T) {
		reset()
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		spInsert(t, ctx, tx, 1)
		emuExec(t, ctx, tx, "SAVEPOINT a")
		spInsert(t, ctx, tx, 2)
		spWant(t, "before ROLLBACK TO", spIDs(t, ctx, tx), 1, 2)
		emuExec(t, ctx, tx, "ROLLBACK TO SAVEPOINT a")
		spWant(t, "after ROLLBACK TO", spIDs(t, ctx, tx), 1)
		spInsert(t, ctx, tx, 3)
		emuExec(t, ctx, tx, "ROLLBACK TO a") // the savepoint stays after a ROLLBACK TO
		spInsert(t, ctx, tx, 4)
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		spWant(t, "committed", spIDs(t, ctx, db), 1, 4)
	})

	t.Run("release keeps the work", func(t *testing.T) {
		reset()
		tx, _ := db.BeginTx(ctx, nil)
		emuExec(t, ctx, tx, "SAVEPOINT a")
		spInsert(t, ctx, tx, 1)
		emuExec(t, ctx, tx, "SAVEPOINT b")
		spInsert(t, ctx, tx, 2)
		emuExec(t, ctx, tx, "RELEASE SAVEPOINT a") // and b with it
		_, err := tx.ExecContext(ctx, "ROLLBACK TO b")
		emuWantCode(t, err, codes.InvalidArgument)
		if !errors.Is(err, sfdriver.ErrUnknownSavepoint) {
			t.Fatalf("ROLLBACK TO a released savepoint: %v, want ErrUnknownSavepoint", err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		spWant(t, "committed", spIDs(t, ctx, db), 1, 2)
	})

	t.Run("nested", func(t *testing.T) {
		reset()
		tx, _ := db.BeginTx(ctx, nil)
		spInsert(t, ctx, tx, 1)
		emuExec(t, ctx, tx, "SAVEPOINT outer_sp")
		spInsert(t, ctx, tx, 2)
		emuExec(t, ctx, tx, "SAVEPOINT inner_sp")
		spInsert(t, ctx, tx, 3)
		emuExec(t, ctx, tx, "ROLLBACK TO inner_sp")
		spWant(t, "inner rolled back", spIDs(t, ctx, tx), 1, 2)
		emuExec(t, ctx, tx, "SAVEPOINT inner_sp")
		spInsert(t, ctx, tx, 4)
		emuExec(t, ctx, tx, "RELEASE inner_sp")
		emuExec(t, ctx, tx, "ROLLBACK TO outer_sp") // undoes 2 and the released inner work
		spWant(t, "outer rolled back", spIDs(t, ctx, tx), 1)
		if _, err := tx.ExecContext(ctx, "RELEASE inner_sp"); !errors.Is(err, sfdriver.ErrUnknownSavepoint) {
			t.Fatalf("RELEASE of a savepoint rolled back over: %v", err)
		}
		spInsert(t, ctx, tx, 5)
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		spWant(t, "committed", spIDs(t, ctx, db), 1, 5)
	})

	t.Run("a newer savepoint of the same name hides the older", func(t *testing.T) {
		reset()
		tx, _ := db.BeginTx(ctx, nil)
		emuExec(t, ctx, tx, "SAVEPOINT s")
		spInsert(t, ctx, tx, 1)
		emuExec(t, ctx, tx, "SAVEPOINT s")
		spInsert(t, ctx, tx, 2)
		emuExec(t, ctx, tx, "ROLLBACK TO s")
		spWant(t, "the newer s", spIDs(t, ctx, tx), 1)
		emuExec(t, ctx, tx, "RELEASE s")
		emuExec(t, ctx, tx, "ROLLBACK TO s")
		spWant(t, "the older s", spIDs(t, ctx, tx))
		spInsert(t, ctx, tx, 3)
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		spWant(t, "committed", spIDs(t, ctx, db), 3)
	})

	t.Run("names", func(t *testing.T) {
		reset()
		tx, _ := db.BeginTx(ctx, nil)
		defer tx.Rollback()
		emuExec(t, ctx, tx, "SAVEPOINT MixedCase")
		emuExec(t, ctx, tx, "ROLLBACK TO MIXEDCASE") // plain names: case-insensitive in both dialects
		quoted := "SAVEPOINT `Quoted`"
		if pg {
			quoted = `SAVEPOINT "Quoted"`
		}
		emuExec(t, ctx, tx, quoted)
		_, err := tx.ExecContext(ctx, "ROLLBACK TO quoted")
		if pg {
			// PostgreSQL folds the plain name to quoted, which is not "Quoted".
			if !errors.Is(err, sfdriver.ErrUnknownSavepoint) {
				t.Fatalf("PostgreSQL: ROLLBACK TO quoted after SAVEPOINT \"Quoted\": %v", err)
			}
		} else if err != nil {
			t.Fatalf("GoogleSQL: names ignore case, quoted or not: %v", err)
		}
	})

	t.Run("Go API", func(t *testing.T) {
		reset()
		c, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		sp := func(f func(sfdriver.SavepointConn) error) error {
			return c.Raw(func(dc any) error { return f(dc.(sfdriver.SavepointConn)) })
		}
		err = sp(func(s sfdriver.SavepointConn) error { return s.Savepoint(ctx, "a") })
		emuWantCode(t, err, codes.FailedPrecondition) // no transaction
		tx, err := c.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		spInsert(t, ctx, tx, 1)
		if err := sp(func(s sfdriver.SavepointConn) error { return s.Savepoint(ctx, "Go Name") }); err != nil {
			t.Fatal(err)
		}
		spInsert(t, ctx, tx, 2)
		if err := c.Raw(func(dc any) error {
			return dc.(sfdriver.SpannerConn).BufferWrite([]*spanner.Mutation{spanner.Insert("t", []string{"id"}, []any{int64(3)})})
		}); err != nil {
			t.Fatal(err)
		}
		if err := sp(func(s sfdriver.SavepointConn) error { return s.RollbackToSavepoint(ctx, "Go Name") }); err != nil {
			t.Fatal(err)
		}
		if err := sp(func(s sfdriver.SavepointConn) error { return s.ReleaseSavepoint(ctx, "Go Name") }); err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		spWant(t, "committed (the mutation after the savepoint dropped)", spIDs(t, ctx, db), 1)
	})

	t.Run("errors", func(t *testing.T) {
		reset()
		for _, s := range []string{"SAVEPOINT a", "ROLLBACK TO a", "RELEASE a"} {
			_, err := db.ExecContext(ctx, s)
			emuWantCode(t, err, codes.FailedPrecondition) // outside a transaction
		}
		tx, _ := db.BeginTx(ctx, nil)
		defer tx.Rollback()
		_, err := tx.ExecContext(ctx, "ROLLBACK TO nowhere")
		emuWantCode(t, err, codes.InvalidArgument)
		_, err = tx.ExecContext(ctx, "SAVEPOINT a b")
		emuWantCode(t, err, codes.InvalidArgument)
	})

	t.Run("in a string of several statements", func(t *testing.T) {
		reset()
		emuExec(t, ctx, db, "BEGIN; INSERT INTO t (id) VALUES (1); SAVEPOINT a; INSERT INTO t (id) VALUES (2); ROLLBACK TO a; INSERT INTO t (id) VALUES (3); COMMIT")
		spWant(t, "committed", spIDs(t, ctx, db), 1, 3)
	})

	t.Run("property changes are not undone", func(t *testing.T) {
		reset()
		c, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		emuExec(t, ctx, c, "BEGIN")
		emuExec(t, ctx, c, "SAVEPOINT a")
		emuExec(t, ctx, c, "SET LOCAL spanner.rpc_priority = 'LOW'")
		emuExec(t, ctx, c, "ROLLBACK TO a")
		if got := emuColumn[string](t, ctx, c, "SHOW VARIABLE spanner.rpc_priority"); len(got) != 1 || got[0] != "PRIORITY_LOW" {
			t.Fatalf("rpc_priority after ROLLBACK TO: %q, want PRIORITY_LOW (kept)", got)
		}
		emuExec(t, ctx, c, "COMMIT")
	})

	t.Run("read-only", func(t *testing.T) {
		reset()
		emuExec(t, ctx, db, "INSERT INTO t (id) VALUES (1)")
		tx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		emuExec(t, ctx, tx, "SAVEPOINT r")
		spWant(t, "read", spIDs(t, ctx, tx), 1)
		emuExec(t, ctx, tx, "ROLLBACK TO r")
		spWant(t, "read after ROLLBACK TO", spIDs(t, ctx, tx), 1)
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
	})
}

// TestEmulatorSavepointSupport: savepoint_support's three values and
// ROLLBACK TO without the replay log (retry_aborts_internally=false).
func TestEmulatorSavepointSupport(t *testing.T) {
	t.Parallel()
	db, _ := emuDB(t, spGSQLDDL)
	ctx := emuCtx(t)
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()

	emuExec(t, ctx, c, "SET savepoint_support = 'DISABLED'")
	emuExec(t, ctx, c, "BEGIN")
	_, err = c.ExecContext(ctx, "SAVEPOINT a")
	emuWantCode(t, err, codes.FailedPrecondition)
	emuExec(t, ctx, c, "ROLLBACK")

	// FAIL_AFTER_ROLLBACK: set and release work; ROLLBACK TO rolls back and
	// the transaction only ends.
	emuExec(t, ctx, c, "SET savepoint_support = 'FAIL_AFTER_ROLLBACK'")
	emuExec(t, ctx, c, "BEGIN")
	emuExec(t, ctx, c, "INSERT INTO t (id) VALUES (1)")
	emuExec(t, ctx, c, "SAVEPOINT a")
	emuExec(t, ctx, c, "RELEASE a")
	emuExec(t, ctx, c, "SAVEPOINT a")
	emuExec(t, ctx, c, "INSERT INTO t (id) VALUES (2)")
	emuExec(t, ctx, c, "ROLLBACK TO a")
	_, err = c.ExecContext(ctx, "INSERT INTO t (id) VALUES (3)")
	emuWantCode(t, err, codes.FailedPrecondition)
	_, err = c.ExecContext(ctx, "COMMIT")
	emuWantCode(t, err, codes.FailedPrecondition)
	spWant(t, "nothing committed", spIDs(t, ctx, db))

	// retry_aborts_internally=false: no log to replay, ROLLBACK TO refuses
	// and the transaction goes on unchanged.
	emuExec(t, ctx, c, "SET savepoint_support = 'ENABLED'")
	emuExec(t, ctx, c, "SET retry_aborts_internally = false")
	emuExec(t, ctx, c, "BEGIN")
	emuExec(t, ctx, c, "INSERT INTO t (id) VALUES (1)")
	emuExec(t, ctx, c, "SAVEPOINT a")
	emuExec(t, ctx, c, "INSERT INTO t (id) VALUES (2)")
	_, err = c.ExecContext(ctx, "ROLLBACK TO a")
	emuWantCode(t, err, codes.FailedPrecondition)
	emuExec(t, ctx, c, "COMMIT")
	spWant(t, "committed whole", spIDs(t, ctx, db), 1, 2)
}

// TestEmulatorPGSavepointInFailedTransaction: under EnforceInErrorState
// (PostgreSQL's rule) ROLLBACK TO a savepoint set before the failed
// statement is accepted and ends the failed state, as in PostgreSQL, while
// SAVEPOINT and RELEASE are refused with 25P02 like any other statement;
// the transaction then goes on and commits the work before the savepoint.
func TestEmulatorPGSavepointInFailedTransaction(t *testing.T) {
	t.Parallel()
	ctx := emuCtx(t)
	db, _ := emuPGDB(t, spPGDDL)
	c := dbConn(t, db)
	if err := c.Raw(func(dc any) error {
		return dc.(sfdriver.SpannerConn).SetInErrorTxBehavior(sfdriver.InErrorTxBehaviorEnforceInErrorState)
	}); err != nil {
		t.Fatal(err)
	}
	emuExec(t, ctx, c, "BEGIN")
	emuExec(t, ctx, c, "INSERT INTO t (id) VALUES (1)")
	emuExec(t, ctx, c, "SAVEPOINT a")
	if _, err := c.ExecContext(ctx, "INSERT INTO t (id) VALUES (1)"); sfdriver.ToPGSQLState(err) != "23505" {
		t.Fatalf("duplicate key: %v", err)
	}
	for _, s := range []string{"SAVEPOINT b", "RELEASE a"} {
		if _, err := c.ExecContext(ctx, s); sfdriver.ToPGSQLState(err) != "25P02" {
			t.Fatalf("%s in the failed transaction: %v, want 25P02", s, err)
		}
	}
	emuExec(t, ctx, c, "ROLLBACK TO a")
	var state sfdriver.TransactionState
	if err := c.Raw(func(dc any) error { state = dc.(sfdriver.SpannerConn).TransactionState(); return nil }); err != nil {
		t.Fatal(err)
	}
	if state != sfdriver.TransactionStateTransaction {
		t.Fatalf("state after ROLLBACK TO %q, want 'T'", state)
	}
	emuExec(t, ctx, c, "INSERT INTO t (id) VALUES (2)")
	emuExec(t, ctx, c, "COMMIT")
	spWant(t, "committed", spIDs(t, ctx, db), 1, 2)
}
