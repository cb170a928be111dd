package e2e

import (
	"context"
	"database/sql"
	"reflect"
	"testing"
	"time"

	"cloud.google.com/go/spanner"
	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	sfdriver "github.com/spannerfast/spannerfast/driver"
)

var emuAccountsDDL = []string{
	"CREATE TABLE Accounts (Id INT64 NOT NULL, Balance INT64, Updated TIMESTAMP OPTIONS (allow_commit_timestamp = true)) PRIMARY KEY (Id)",
}

// TestEmulatorReadWriteTransaction: a transaction reads its own writes,
// others do not see them before commit, a rollback undoes them and a
// commit makes them visible.
func TestEmulatorReadWriteTransaction(t *testing.T) {
	t.Parallel()
	ctx := emuCtx(t)
	db, _ := emuDB(t, emuAccountsDDL)
	emuExec(t, ctx, db, "INSERT INTO Accounts (Id, Balance) VALUES (1, 100), (2, 50)")

	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	emuExec(t, ctx, tx, "UPDATE Accounts SET Balance = Balance - 30 WHERE Id = 1")
	emuExec(t, ctx, tx, "INSERT INTO Accounts (Id, Balance) VALUES (3, 30)")
	if got := emuInt64s(t, ctx, tx, "SELECT Balance FROM Accounts ORDER BY Id"); !reflect.DeepEqual(got, []int64{70, 50, 30}) {
		t.Fatalf("in the transaction %v, want [70 50 30]", got)
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	if got := emuInt64s(t, ctx, db, "SELECT Balance FROM Accounts ORDER BY Id"); !reflect.DeepEqual(got, []int64{100, 50}) {
		t.Fatalf("after rollback %v, want [100 50]", got)
	}

	tx, err = db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	emuExec(t, ctx, tx, "UPDATE Accounts SET Balance = Balance - 30 WHERE Id = 1")
	emuExec(t, ctx, tx, "UPDATE Accounts SET Balance = Balance + 30 WHERE Id = 2")
	// Another reader (a single-use read-only query) sees the old state.
	if got := emuInt64s(t, ctx, db, "SELECT Balance FROM Accounts ORDER BY Id"); !reflect.DeepEqual(got, []int64{100, 50}) {
		t.Fatalf("outside the open transaction %v, want [100 50]", got)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := emuInt64s(t, ctx, db, "SELECT Balance FROM Accounts ORDER BY Id"); !reflect.DeepEqual(got, []int64{70, 80}) {
		t.Fatalf("after commit %v, want [70 80]", got)
	}
}

// provokeAbort starts a read-write transaction on db2 that reads row 2,
// then commits a write of row 1 from db (another session): the emulator
// runs one read-write transaction at a time and aborts the older one, so
// the next statement of tx gets ABORTED, every time.
func provokeAbort(t *testing.T, ctx context.Context, db *sql.DB) {
	t.Helper()
	// The emulator may abort the newcomer instead (now and then): it runs
	// again until it commits, which aborts the older transaction.
	for attempt := 1; ; attempt++ {
		other, err := db.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		_, err = other.ExecContext(ctx, "UPDATE Accounts SET Balance = Balance + 1 WHERE Id = 1")
		if err == nil {
			err = other.Commit()
		} else {
			other.Rollback()
		}
		if err == nil {
			return
		}
		if status.Code(err) != codes.Aborted || attempt == 50 {
			t.Fatalf("the concurrent transaction, attempt %d: %v", attempt, err)
		}
	}
}

// TestEmulatorAbortReplay: a real abort from the emulator. The replay
// succeeds when the transaction's reads are unchanged, fails with
// ErrAbortedDueToConcurrentModification when they changed, and with
// retry_aborts_internally=false the ABORTED error reaches the application.
func TestEmulatorAbortReplay(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name     string
		props    []string
		readID   int64
		wantCode codes.Code // OK: committed
		wantErr  error
	}{
		{name: "replayed", readID: 2},
		{name: "changed", readID: 1, wantCode: codes.Aborted, wantErr: sfdriver.ErrAbortedDueToConcurrentModification},
		{name: "retry off", props: []string{"retryAbortsInternally=false"}, readID: 2, wantCode: codes.Aborted},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx := emuCtx(t)
			db, edb := emuDB(t, emuAccountsDDL)
			emuExec(t, ctx, db, "INSERT INTO Accounts (Id, Balance) VALUES (1, 10), (2, 20)")
			// Separate *sql.DBs have separate sessions: the emulator tells
			// their transactions apart.
			app := emuOpen(t, edb.DSN(c.props...))
			emuCheckAbortReplay(t, ctx, db, app, emuGSQLTx, func(tx *sql.Tx) int64 {
				return emuInt64s(t, ctx, tx, "SELECT Balance FROM Accounts WHERE Id = @id", sql.Named("id", c.readID))[0]
			}, c.wantCode, c.wantErr)
		})
	}
}

// TestEmulatorRunTransaction: RunTransaction runs the function again after
// a real abort, and commits once.
func TestEmulatorRunTransaction(t *testing.T) {
	t.Parallel()
	ctx := emuCtx(t)
	db, edb := emuDB(t, emuAccountsDDL)
	emuExec(t, ctx, db, "INSERT INTO Accounts (Id, Balance) VALUES (1, 10), (2, 20)")
	app := emuOpen(t, edb.DSN())
	// The second attempt read 11: its write is the one committed.
	emuCheckRunTxReplays(t, ctx, db, emuGSQLTx, "RunTransaction", func(f func(ctx context.Context, tx *sql.Tx) error) error {
		return sfdriver.RunTransaction(ctx, app, nil, f)
	}, []int64{11, 110})
}

// TestEmulatorReadOnlyAndStale: a read-only transaction is one snapshot;
// exact-staleness and read-timestamp reads see the past; DML in a
// read-only transaction is refused.
//
// autoConfigEmulator=true tells the driver it is on the emulator, whose
// quirk would otherwise end the read-only transaction when the same
// multiplexed session runs the write (see internal/transport/emulator.go).
func TestEmulatorReadOnlyAndStale(t *testing.T) {
	t.Parallel()
	ctx := emuCtx(t)
	db, _ := emuDB(t, emuAccountsDDL, "autoConfigEmulator=true")
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	emuCheckSnapshotReads(t, ctx, db, c, "SET READ_ONLY_STALENESS = '%s'", func() *sql.Tx {
		ro, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		return ro
	}, func(ro *sql.Tx) {
		_, err := ro.ExecContext(ctx, "UPDATE Accounts SET Balance = 3 WHERE Id = 1")
		emuWantCode(t, err, codes.FailedPrecondition)
	})
	// Exact staleness far enough back sees no table rows at all... but the
	// table did not exist then either, so only ask for a bound that is
	// accepted and reads: 0s is as strong.
	emuExec(t, ctx, c, "SET READ_ONLY_STALENESS = 'EXACT_STALENESS 0s'")
	if got := emuInt64s(t, ctx, c, "SELECT Balance FROM Accounts"); !reflect.DeepEqual(got, []int64{2}) {
		t.Fatalf("exact staleness 0s: %v, want [2]", got)
	}
}

// TestEmulatorMutationsAndCommitTimestamps: Apply and BufferWrite, the
// commit timestamps they report, and PENDING_COMMIT_TIMESTAMP() in DML.
func TestEmulatorMutationsAndCommitTimestamps(t *testing.T) {
	t.Parallel()
	ctx := emuCtx(t)
	db, _ := emuDB(t, emuAccountsDDL)
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var applied time.Time
	err = c.Raw(func(dc any) error {
		var err error
		applied, err = dc.(sfdriver.SpannerConn).Apply(ctx, []*spanner.Mutation{
			spanner.Insert("Accounts", []string{"Id", "Balance", "Updated"}, []any{int64(1), int64(5), spanner.CommitTimestamp}),
			spanner.InsertOrUpdate("Accounts", []string{"Id", "Balance"}, []any{int64(2), int64(6)}),
		})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	var stored time.Time
	if err := db.QueryRowContext(ctx, "SELECT Updated FROM Accounts WHERE Id = 1").Scan(&stored); err != nil {
		t.Fatal(err)
	}
	if applied.IsZero() || !stored.Equal(applied) {
		t.Fatalf("Apply returned %v, the row holds %v", applied, stored)
	}

	tx, err := c.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	emuExec(t, ctx, tx, "UPDATE Accounts SET Balance = 50, Updated = PENDING_COMMIT_TIMESTAMP() WHERE Id = 2")
	err = c.Raw(func(dc any) error {
		return dc.(sfdriver.SpannerConn).BufferWrite([]*spanner.Mutation{
			spanner.Insert("Accounts", []string{"Id", "Balance", "Updated"}, []any{int64(3), int64(7), spanner.CommitTimestamp}),
			spanner.Delete("Accounts", spanner.Key{int64(1)}),
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	var committed, shown time.Time
	err = c.Raw(func(dc any) error {
		var err error
		committed, err = dc.(sfdriver.SpannerConn).CommitTimestamp()
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.QueryRowContext(ctx, "SHOW VARIABLE COMMIT_TIMESTAMP").Scan(&shown); err != nil {
		t.Fatal(err)
	}
	if !committed.After(applied) || !shown.Equal(committed) {
		t.Fatalf("commit timestamp %v (SHOW %v), Apply's %v", committed, shown, applied)
	}
	rows, err := db.QueryContext(ctx, "SELECT Id, Balance, Updated FROM Accounts ORDER BY Id")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id, b int64
		var u time.Time
		if err := rows.Scan(&id, &b, &u); err != nil {
			t.Fatal(err)
		}
		if !u.Equal(committed) {
			t.Fatalf("row %d: Updated %v, want the commit timestamp %v", id, u, committed)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(ids, []int64{2, 3}) {
		t.Fatalf("ids %v, want [2 3]", ids)
	}
	// Mutations are refused where they do not belong.
	err = c.Raw(func(dc any) error { return dc.(sfdriver.SpannerConn).BufferWrite(nil) })
	emuWantCode(t, err, codes.FailedPrecondition)
}

// TestEmulatorTagsAndPriorities: statement and transaction tags and
// request priorities, by SET and by the Go API, are accepted by the
// emulator on every kind of request.
func TestEmulatorTagsAndPriorities(t *testing.T) {
	t.Parallel()
	ctx := emuCtx(t)
	db, _ := emuDB(t, emuAccountsDDL, "rpc_priority=LOW", "commit_priority=HIGH", "max_commit_delay=10ms")
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	emuExec(t, ctx, c, "SET STATEMENT_TAG = 'insert-one'")
	emuExec(t, ctx, c, "INSERT INTO Accounts (Id, Balance) VALUES (1, 1)")
	emuExec(t, ctx, c, "SET STATEMENT_TAG = 'read-one'")
	if got := emuInt64s(t, ctx, c, "SELECT Balance FROM Accounts"); !reflect.DeepEqual(got, []int64{1}) {
		t.Fatalf("got %v", got)
	}
	emuExec(t, ctx, c, "SET TRANSACTION_TAG = 'txn-one'")
	tx, err := c.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	emuExec(t, ctx, tx, "SET STATEMENT_TAG = 'update-one'")
	emuExec(t, ctx, tx, "UPDATE Accounts SET Balance = 2 WHERE Id = 1")
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	tx2, err := sfdriver.BeginReadWriteTransaction(ctx, db, sfdriver.ReadWriteTransactionOptions{
		TransactionOptions: spanner.TransactionOptions{TransactionTag: "txn-two", CommitPriority: spannerpb.RequestOptions_PRIORITY_HIGH},
	})
	if err != nil {
		t.Fatal(err)
	}
	emuExec(t, ctx, tx2, "UPDATE Accounts SET Balance = 3 WHERE Id = 1")
	if err := tx2.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := emuInt64s(t, ctx, db, "SELECT Balance FROM Accounts"); !reflect.DeepEqual(got, []int64{3}) {
		t.Fatalf("got %v, want [3]", got)
	}
}
