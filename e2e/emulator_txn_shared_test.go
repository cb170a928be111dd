package e2e

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"cloud.google.com/go/spanner"
	"google.golang.org/grpc/codes"

	sfdriver "github.com/spannerfast/spannerfast/driver"
)

// The transaction scenarios both dialects run: the GoogleSQL tier
// (emulator_txn_test.go) and the PostgreSQL one (emulator_pg_txn_test.go)
// pass in the statements that differ; the reads and the assertions live
// here once. Unquoted names match in both dialects (GoogleSQL names are
// case-insensitive, PostgreSQL folds them to lower case), so the shared
// statements reach Accounts and accounts alike.

// emuTxDialect is what differs between the dialects in these scenarios:
// the parameter syntax of the one write.
type emuTxDialect struct {
	// setBalance2 sets row 2's balance to its one parameter.
	setBalance2 string
	// param wraps the value of that parameter (named in GoogleSQL,
	// positional in PostgreSQL).
	param func(v int64) any
}

var (
	emuGSQLTx = emuTxDialect{"UPDATE Accounts SET Balance = @b WHERE Id = 2", func(v int64) any { return sql.Named("b", v) }}
	emuPGTx   = emuTxDialect{"UPDATE accounts SET balance = $1 WHERE id = 2", func(v int64) any { return v }}
)

// emuCheckAbortReplay runs one abort-replay case. db holds rows 1 (balance
// 10) and 2 (balance 20); app is another *sql.DB on the same database (its
// own sessions, so the emulator tells the transactions apart). In a
// transaction on app, read runs the transaction's reads (and whatever the
// case changes from outside) and returns a balance; provokeAbort then
// aborts the transaction, whose write of that balance + 100 into row 2
// must commit after a replay (wantCode OK) or fail with wantCode (and
// wantErr, if set), leaving row 2 as it was.
func emuCheckAbortReplay(t *testing.T, ctx context.Context, db, app *sql.DB, d emuTxDialect, read func(tx *sql.Tx) int64, wantCode codes.Code, wantErr error) {
	t.Helper()
	tx, err := app.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	seen := read(tx)
	provokeAbort(t, ctx, db)
	_, err = tx.ExecContext(ctx, d.setBalance2, d.param(seen+100))
	if err == nil {
		err = tx.Commit()
	} else {
		tx.Rollback()
	}
	if wantCode == codes.OK {
		if err != nil {
			t.Fatalf("replay: %v", err)
		}
		if got := emuInt64s(t, ctx, db, "SELECT balance FROM accounts ORDER BY id"); !reflect.DeepEqual(got, []int64{11, 120}) {
			t.Fatalf("after the replayed commit %v, want [11 120]", got)
		}
		return
	}
	emuWantCode(t, err, wantCode)
	if wantErr != nil && !errors.Is(err, wantErr) {
		t.Fatalf("error %v is not %v", err, wantErr)
	}
	if got := emuInt64s(t, ctx, db, "SELECT balance FROM accounts ORDER BY id"); !reflect.DeepEqual(got, []int64{11, 20}) {
		t.Fatalf("after the failed transaction %v, want [11 20]", got)
	}
}

// emuCheckRunTxReplays: runTx runs a function that reads row 1's balance
// and writes ten times it into row 2; its first attempt is aborted
// (provokeAbort adds one to row 1 from db), so the function must run
// exactly twice, and the second attempt's write is the one committed:
// the rows then hold want.
func emuCheckRunTxReplays(t *testing.T, ctx context.Context, db *sql.DB, d emuTxDialect, label string, runTx func(f func(ctx context.Context, tx *sql.Tx) error) error, want []int64) {
	t.Helper()
	attempts := 0
	err := runTx(func(ctx context.Context, tx *sql.Tx) error {
		attempts++
		var b int64
		if err := tx.QueryRowContext(ctx, "SELECT balance FROM accounts WHERE id = 1").Scan(&b); err != nil {
			return err
		}
		if attempts == 1 {
			provokeAbort(t, ctx, db) // row 1 goes up by one
		}
		_, err := tx.ExecContext(ctx, d.setBalance2, d.param(b*10))
		return err
	})
	if err != nil {
		t.Fatalf("%s: %v", label, err)
	}
	if attempts != 2 {
		t.Fatalf("%s: %d attempts, want 2", label, attempts)
	}
	if got := emuInt64s(t, ctx, db, "SELECT balance FROM accounts ORDER BY id"); !reflect.DeepEqual(got, want) {
		t.Fatalf("after %s %v, want %v", label, got, want)
	}
}

// emuCheckSnapshotReads: c is a connection of db (opened with
// autoConfigEmulator=true, so that the emulator's quirk does not end a
// read-only transaction when the same multiplexed session writes), with an
// empty accounts table. It commits row 1 (balance 1) on c and returns that
// commit's timestamp, reported by SHOW VARIABLE commit_timestamp, after
// checking that: a read-only transaction from beginRO is one snapshot (a
// later commit of balance 2 is not seen in it; inRO, if set, runs in it
// then); BeginReadOnlyTransaction at the first commit's timestamp reads
// balance 1; setStaleness (a SET with one %s for the staleness) at that
// timestamp makes c's autocommit reads see 1, and STRONG 2.
func emuCheckSnapshotReads(t *testing.T, ctx context.Context, db *sql.DB, c *sql.Conn, setStaleness string, beginRO func() *sql.Tx, inRO func(ro *sql.Tx)) time.Time {
	t.Helper()
	emuExec(t, ctx, c, "INSERT INTO accounts (id, balance) VALUES (1, 1)")
	var first time.Time
	if err := c.QueryRowContext(ctx, "SHOW VARIABLE commit_timestamp").Scan(&first); err != nil {
		t.Fatal(err)
	}

	ro := beginRO()
	if got := emuInt64s(t, ctx, ro, "SELECT balance FROM accounts"); !reflect.DeepEqual(got, []int64{1}) {
		t.Fatalf("read-only: %v", got)
	}
	emuExec(t, ctx, db, "UPDATE accounts SET balance = 2 WHERE id = 1")
	if got := emuInt64s(t, ctx, ro, "SELECT balance FROM accounts"); !reflect.DeepEqual(got, []int64{1}) {
		t.Fatalf("read-only after a later commit: %v, want its snapshot [1]", got)
	}
	if inRO != nil {
		inRO(ro)
	}
	if err := ro.Commit(); err != nil {
		t.Fatal(err)
	}

	at, err := sfdriver.BeginReadOnlyTransaction(ctx, db, sfdriver.ReadOnlyTransactionOptions{TimestampBound: spanner.ReadTimestamp(first)})
	if err != nil {
		t.Fatal(err)
	}
	if got := emuInt64s(t, ctx, at, "SELECT balance FROM accounts"); !reflect.DeepEqual(got, []int64{1}) {
		t.Fatalf("read-only at the first commit: %v, want [1]", got)
	}
	at.Commit()

	emuExec(t, ctx, c, fmt.Sprintf(setStaleness, "READ_TIMESTAMP "+first.Format(time.RFC3339Nano)))
	if got := emuInt64s(t, ctx, c, "SELECT balance FROM accounts"); !reflect.DeepEqual(got, []int64{1}) {
		t.Fatalf("%s at the first commit: %v, want [1]", setStaleness, got)
	}
	emuExec(t, ctx, c, fmt.Sprintf(setStaleness, "STRONG"))
	if got := emuInt64s(t, ctx, c, "SELECT balance FROM accounts"); !reflect.DeepEqual(got, []int64{2}) {
		t.Fatalf("strong: %v, want [2]", got)
	}
	return first
}
