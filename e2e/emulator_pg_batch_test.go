package e2e

import (
	"context"
	"database/sql"
	"errors"
	"reflect"
	"testing"

	"google.golang.org/grpc/codes"

	sfdriver "github.com/spannerfast/spannerfast/driver"
	"github.com/spannerfast/spannerfast/internal/emulatortest"
)

// The batch tests run on both dialects with the same statements: ? is a
// parameter in both (rewritten to $n on PostgreSQL) and the tables are
// emuSingersDDL and emuPGSingersDDL, so only the DDL differs.

var emuDialects = []emulatortest.Dialect{emulatortest.GoogleSQL, emulatortest.PostgreSQL}

// emuSingersDB opens a fresh database of dialect d with the Singers
// tables of that dialect.
func emuSingersDB(t *testing.T, d emulatortest.Dialect, props ...string) (*sql.DB, *emulatortest.Database) {
	t.Helper()
	if d == emulatortest.PostgreSQL {
		return emuPGDB(t, emuPGSingersDDL, props...)
	}
	return emuDB(t, emuSingersDDL, props...)
}

// emuEachDialect runs f as a parallel subtest per dialect.
func emuEachDialect(t *testing.T, f func(t *testing.T, ctx context.Context, d emulatortest.Dialect)) {
	for _, d := range emuDialects {
		t.Run(d.String(), func(t *testing.T) {
			t.Parallel()
			f(t, emuCtx(t), d)
		})
	}
}

// TestEmulatorPGDMLBatch: START BATCH DML / RUN BATCH / ABORT BATCH on
// both dialects, outside and in a read-write transaction, and a failing
// statement's BatchError with the counts of those before it.
func TestEmulatorPGDMLBatch(t *testing.T) {
	t.Parallel()
	emuEachDialect(t, func(t *testing.T, ctx context.Context, d emulatortest.Dialect) {
		db, _ := emuSingersDB(t, d)
		emuCheckDMLBatch(t, ctx, db, "UPDATE Singers SET Name = 'z' WHERE SingerId > ?", 0)
	})
}

// TestEmulatorPGExecuteBatchDml: the Go batch API (ExecuteBatchDml,
// ExecuteBatchDmlOnConn) on both dialects: the count of each statement,
// a function's error sends nothing, and a batch in a transaction commits
// with it.
func TestEmulatorPGExecuteBatchDml(t *testing.T) {
	t.Parallel()
	emuEachDialect(t, func(t *testing.T, ctx context.Context, d emulatortest.Dialect) {
		db, _ := emuSingersDB(t, d)
		res, err := sfdriver.ExecuteBatchDml(ctx, db, func(ctx context.Context, b sfdriver.DmlBatch) error {
			if err := b.ExecContext(ctx, "INSERT INTO Singers (SingerId, Name) VALUES (?, ?), (?, ?)", 1, "a", 2, "b"); err != nil {
				return err
			}
			return b.ExecContext(ctx, "UPDATE Singers SET Name = ? WHERE SingerId = ?", "one", 1)
		})
		if err != nil {
			t.Fatal(err)
		}
		if counts, err := res.BatchRowsAffected(); err != nil || !reflect.DeepEqual(counts, []int64{2, 1}) {
			t.Fatalf("BatchRowsAffected: %v, %v, want [2 1]", counts, err)
		}
		if n, _ := res.RowsAffected(); n != 3 {
			t.Fatalf("RowsAffected %d, want 3", n)
		}
		stop := errors.New("stop")
		_, err = sfdriver.ExecuteBatchDml(ctx, db, func(ctx context.Context, b sfdriver.DmlBatch) error {
			if err := b.ExecContext(ctx, "DELETE FROM Singers WHERE SingerId > ?", 0); err != nil {
				return err
			}
			return stop
		})
		if !errors.Is(err, stop) {
			t.Fatalf("the function's error: got %v", err)
		}
		c, tx := connTx(t, ctx, db)
		_, err = sfdriver.ExecuteBatchDmlOnConn(ctx, c, func(ctx context.Context, b sfdriver.DmlBatch) error {
			return b.ExecContext(ctx, "INSERT INTO Singers (SingerId, Name) VALUES (?, 'c')", 3)
		})
		if err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		if got := emuColumn[string](t, ctx, db, "SELECT Name FROM Singers ORDER BY SingerId"); !reflect.DeepEqual(got, []string{"one", "b", "c"}) {
			t.Fatalf("names %q, want [one b c]", got)
		}
	})
}

// TestEmulatorPGAutoBatchDML: auto_batch_dml on both dialects: DML in a
// read-write transaction is held and sent as one batch before a query,
// before DML with THEN RETURN / RETURNING through ExecContext (whose
// LastInsertId is real) and before the commit; a count other than the
// one reported fails the commit, which then writes nothing, and so does a
// held statement that fails (auto_batch_dml turned on by SET in the
// dialect's form).
func TestEmulatorPGAutoBatchDML(t *testing.T) {
	t.Parallel()
	emuEachDialect(t, func(t *testing.T, ctx context.Context, d emulatortest.Dialect) {
		db, edb := emuSingersDB(t, d, "auto_batch_dml=true")
		returning := " RETURNING SingerId"
		if d == emulatortest.GoogleSQL {
			returning = " THEN RETURN SingerId"
		}
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		emuExec(t, ctx, tx, "INSERT INTO Singers (SingerId, Name) VALUES (?, 'a')", 1)
		emuExec(t, ctx, tx, "INSERT INTO Singers (SingerId, Name) VALUES (?, 'b')", 2)
		if got := emuInt64s(t, ctx, tx, "SELECT COUNT(*) FROM Singers"); got[0] != 2 {
			t.Fatalf("the query saw %d rows, want the 2 batched before it", got[0])
		}
		emuExec(t, ctx, tx, "INSERT INTO Singers (SingerId, Name) VALUES (?, 'c')", 3)
		res, err := tx.ExecContext(ctx, "INSERT INTO Singers (SingerId, Name) VALUES (4, 'd')"+returning)
		if err != nil {
			t.Fatal(err)
		}
		if id, err := res.LastInsertId(); id != 4 || err != nil {
			t.Fatalf("LastInsertId %d, %v, want 4", id, err)
		}
		emuExec(t, ctx, tx, "UPDATE Singers SET Name = 'e' WHERE SingerId = ?", 4)
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		if got := emuColumn[string](t, ctx, db, "SELECT Name FROM Singers ORDER BY SingerId"); !reflect.DeepEqual(got, []string{"a", "b", "c", "e"}) {
			t.Fatalf("names %q, want [a b c e]", got)
		}
		// An UPDATE of 4 rows reported as 1: the commit fails and writes
		// nothing.
		tx, err = db.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		emuExec(t, ctx, tx, "INSERT INTO Singers (SingerId, Name) VALUES (?, 'f')", 5)
		emuExec(t, ctx, tx, "UPDATE Singers SET Name = 'all' WHERE SingerId < ?", 5)
		emuWantCode(t, tx.Commit(), codes.FailedPrecondition)
		if got := emuInt64s(t, ctx, db, "SELECT COUNT(*) FROM Singers WHERE Name = 'all' OR SingerId = 5"); got[0] != 0 {
			t.Fatalf("%d rows of the failed commit written", got[0])
		}
		// Turned on by SET in the dialect's form: a held statement that
		// fails fails the commit with its code, and nothing is written.
		c, err := emuOpen(t, edb.DSN()).Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		set := "SET AUTO_BATCH_DML = true"
		if d == emulatortest.PostgreSQL {
			set = "SET spanner.auto_batch_dml = true"
		}
		for _, q := range []string{set, "BEGIN", "INSERT INTO Singers (SingerId, Name) VALUES (6, 'g')", "INSERT INTO Singers (SingerId, Name) VALUES (1, 'dup')"} {
			emuExec(t, ctx, c, q)
		}
		_, err = c.ExecContext(ctx, "COMMIT")
		emuWantCode(t, err, codes.AlreadyExists)
		if got := emuInt64s(t, ctx, db, "SELECT COUNT(*) FROM Singers WHERE SingerId = 6"); got[0] != 0 {
			t.Fatalf("row 6 of the failed commit written")
		}
	})
}
