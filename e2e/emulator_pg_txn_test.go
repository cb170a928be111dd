package e2e

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"cloud.google.com/go/spanner"
	"google.golang.org/grpc/codes"

	sfdriver "github.com/spannerfast/spannerfast/driver"
)

// The PostgreSQL tier of the transaction tests (emulator_txn_test.go is the
// GoogleSQL one). PostgreSQL folds unquoted names to lower case, so the
// statements provokeAbort runs (Accounts, Balance, Id) find this table too.
var emuPGAccountsDDL = []string{
	"CREATE TABLE accounts (id bigint primary key, balance bigint, amount numeric, doc jsonb, updated spanner.commit_timestamp)",
}

// TestEmulatorPGTransactions: on a PostgreSQL database, BeginTx with each
// isolation level database/sql offers that Spanner has, read-only, plain
// BEGIN/COMMIT/ROLLBACK on a connection, and SHOW VARIABLE commit_timestamp
// after a commit.
func TestEmulatorPGTransactions(t *testing.T) {
	t.Parallel()
	ctx := emuCtx(t)
	db, _ := emuPGDB(t, emuPGAccountsDDL)
	emuExec(t, ctx, db, "INSERT INTO accounts (id, balance) VALUES (1, 100), (2, 50)")

	for i, iso := range []sql.IsolationLevel{sql.LevelDefault, sql.LevelSerializable, sql.LevelRepeatableRead} {
		tx, err := db.BeginTx(ctx, &sql.TxOptions{Isolation: iso})
		if err != nil {
			t.Fatalf("%v: %v", iso, err)
		}
		emuExec(t, ctx, tx, "UPDATE accounts SET balance = balance - $1 WHERE id = 1", 10)
		if got := emuInt64s(t, ctx, tx, "SELECT balance FROM accounts WHERE id = $1", 1); !reflect.DeepEqual(got, []int64{90 - 10*int64(i)}) {
			t.Fatalf("%v: in the transaction %v", iso, got)
		}
		if got := emuInt64s(t, ctx, db, "SELECT balance FROM accounts WHERE id = 1"); !reflect.DeepEqual(got, []int64{100 - 10*int64(i)}) {
			t.Fatalf("%v: outside the open transaction %v", iso, got)
		}
		if err := tx.Commit(); err != nil {
			t.Fatalf("%v: commit: %v", iso, err)
		}
	}
	if got := emuInt64s(t, ctx, db, "SELECT balance FROM accounts ORDER BY id"); !reflect.DeepEqual(got, []int64{70, 50}) {
		t.Fatalf("after three commits %v, want [70 50]", got)
	}
	if _, err := db.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelLinearizable}); err == nil {
		t.Fatal("BeginTx with LevelLinearizable: no error")
	}

	ro, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := emuInt64s(t, ctx, ro, "SELECT balance FROM accounts WHERE id = 1"); !reflect.DeepEqual(got, []int64{70}) {
		t.Fatalf("read-only: %v", got)
	}
	_, err = ro.ExecContext(ctx, "UPDATE accounts SET balance = 0")
	emuWantCode(t, err, codes.FailedPrecondition)
	if err := ro.Commit(); err != nil {
		t.Fatal(err)
	}

	c := dbConn(t, db)
	emuExec(t, ctx, c, "BEGIN")
	emuExec(t, ctx, c, "UPDATE accounts SET balance = 0 WHERE id = 2")
	emuExec(t, ctx, c, "ROLLBACK")
	emuExec(t, ctx, c, "BEGIN")
	emuExec(t, ctx, c, "UPDATE accounts SET balance = balance + 1 WHERE id = 2")
	emuExec(t, ctx, c, "COMMIT")
	var committed time.Time
	if err := c.QueryRowContext(ctx, "SHOW VARIABLE commit_timestamp").Scan(&committed); err != nil {
		t.Fatal(err)
	}
	if committed.IsZero() || time.Since(committed) > time.Minute {
		t.Fatalf("commit_timestamp %v", committed)
	}
	if got := emuInt64s(t, ctx, db, "SELECT balance FROM accounts ORDER BY id"); !reflect.DeepEqual(got, []int64{70, 51}) {
		t.Fatalf("after BEGIN/ROLLBACK and BEGIN/COMMIT %v, want [70 51]", got)
	}
}

// TestEmulatorPGCommitTimestamps: a spanner.commit_timestamp column set to
// spanner.pending_commit_timestamp() holds the timestamp the driver reports
// for the commit (SHOW VARIABLE commit_timestamp and commit_response,
// CommitTimestamp, and the commit response of
// RunTransactionWithCommitResponse); SHOW VARIABLE read_timestamp reports
// a later read's timestamp.
func TestEmulatorPGCommitTimestamps(t *testing.T) {
	t.Parallel()
	ctx := emuCtx(t)
	db, _ := emuPGDB(t, emuPGAccountsDDL)
	c, tx := connTx(t, ctx, db)
	emuExec(t, ctx, tx, "INSERT INTO accounts (id, balance, updated) VALUES (1, 1, spanner.pending_commit_timestamp())")
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	var shown, committed time.Time
	if err := c.QueryRowContext(ctx, "SHOW VARIABLE commit_timestamp").Scan(&shown); err != nil {
		t.Fatal(err)
	}
	err := c.Raw(func(dc any) error {
		var err error
		committed, err = dc.(sfdriver.SpannerConn).CommitTimestamp()
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	var stored time.Time
	if err := db.QueryRowContext(ctx, "SELECT updated FROM accounts WHERE id = 1").Scan(&stored); err != nil {
		t.Fatal(err)
	}
	if stored.IsZero() || !stored.Equal(shown) || !stored.Equal(committed) {
		t.Fatalf("row holds %v, SHOW VARIABLE commit_timestamp %v, CommitTimestamp %v", stored, shown, committed)
	}
	var respJSON string
	if err := c.QueryRowContext(ctx, "SHOW VARIABLE commit_response").Scan(&respJSON); err != nil {
		t.Fatal(err)
	}
	var shownResp struct{ CommitTs time.Time }
	if err := json.Unmarshal([]byte(respJSON), &shownResp); err != nil || !shownResp.CommitTs.Equal(stored) {
		t.Fatalf("SHOW VARIABLE commit_response %s (%v), the row holds %v", respJSON, err, stored)
	}
	// A read reports its read timestamp, at or after the commit.
	emuInt64s(t, ctx, c, "SELECT balance FROM accounts")
	var readTS time.Time
	if err := c.QueryRowContext(ctx, "SHOW VARIABLE read_timestamp").Scan(&readTS); err != nil {
		t.Fatal(err)
	}
	if readTS.Before(stored) {
		t.Fatalf("read_timestamp %v before the commit %v", readTS, stored)
	}

	resp, err := sfdriver.RunTransactionWithCommitResponse(ctx, db, nil, func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, "UPDATE accounts SET updated = spanner.pending_commit_timestamp() WHERE id = $1", 1)
		return err
	}, spanner.TransactionOptions{CommitOptions: spanner.CommitOptions{ReturnCommitStats: true}})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRowContext(ctx, "SELECT updated FROM accounts WHERE id = 1").Scan(&stored); err != nil {
		t.Fatal(err)
	}
	if resp == nil || !resp.CommitTs.Equal(stored) || !stored.After(committed) {
		t.Fatalf("commit response %+v, the row holds %v (first commit %v)", resp, stored, committed)
	}
}

// TestEmulatorPGAbortReplay: a real abort on a PostgreSQL database. The
// transaction read numeric and jsonb values; the replay compares what it
// reads again with them, so it succeeds when they are unchanged and fails
// with ErrAbortedDueToConcurrentModification when the other transaction
// changed them (only the numeric, or only the jsonb); with
// retryAbortsInternally=false the ABORTED error reaches the application.
func TestEmulatorPGAbortReplay(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name     string
		props    []string
		change   string // the other transaction's change of the row read, if any
		wantCode codes.Code
		wantErr  error
	}{
		{name: "replayed"},
		{name: "numeric changed", change: "UPDATE accounts SET amount = 1.50 WHERE id = 2", wantCode: codes.Aborted, wantErr: sfdriver.ErrAbortedDueToConcurrentModification},
		{name: "jsonb changed", change: `UPDATE accounts SET doc = '{"a": [1, 2, 4]}' WHERE id = 2`, wantCode: codes.Aborted, wantErr: sfdriver.ErrAbortedDueToConcurrentModification},
		{name: "retry off", props: []string{"retryAbortsInternally=false"}, wantCode: codes.Aborted},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			ctx := emuCtx(t)
			db, edb := emuPGDB(t, emuPGAccountsDDL)
			emuExec(t, ctx, db, `INSERT INTO accounts (id, balance, amount, doc) VALUES (1, 10, 0, '{}'), (2, 20, 1.5, '{"a": [1, 2, 3]}')`)
			app := emuOpen(t, edb.DSN(c.props...))
			emuCheckAbortReplay(t, ctx, db, app, emuPGTx, func(tx *sql.Tx) int64 {
				var amount spanner.PGNumeric
				var doc spanner.PGJsonB
				var balance int64
				if err := tx.QueryRowContext(ctx, "SELECT balance, amount, doc FROM accounts WHERE id = $1", 2).Scan(&balance, &amount, &doc); err != nil {
					t.Fatal(err)
				}
				if c.change != "" {
					emuExec(t, ctx, db, c.change)
				}
				return balance
			}, c.wantCode, c.wantErr)
		})
	}
}

// TestEmulatorPGRunTransaction: RunTransaction and RunTransactionWithOptions
// run the function again after a real abort on a PostgreSQL database and
// commit once; BeginReadWriteTransaction with a tag commits.
func TestEmulatorPGRunTransaction(t *testing.T) {
	t.Parallel()
	ctx := emuCtx(t)
	db, edb := emuPGDB(t, emuPGAccountsDDL)
	emuExec(t, ctx, db, "INSERT INTO accounts (id, balance) VALUES (1, 10), (2, 20)")
	app := emuOpen(t, edb.DSN())
	run := func(label string, runTx func(f func(ctx context.Context, tx *sql.Tx) error) error, want []int64) {
		emuCheckRunTxReplays(t, ctx, db, emuPGTx, label, runTx, want)
	}
	run("RunTransaction", func(f func(ctx context.Context, tx *sql.Tx) error) error {
		return sfdriver.RunTransaction(ctx, app, nil, f)
	}, []int64{11, 110})
	run("RunTransactionWithOptions", func(f func(ctx context.Context, tx *sql.Tx) error) error {
		return sfdriver.RunTransactionWithOptions(ctx, app, &sql.TxOptions{Isolation: sql.LevelRepeatableRead}, f,
			spanner.TransactionOptions{TransactionTag: "pg-run"})
	}, []int64{12, 120})

	tx, err := sfdriver.BeginReadWriteTransaction(ctx, app, sfdriver.ReadWriteTransactionOptions{
		TransactionOptions: spanner.TransactionOptions{TransactionTag: "pg-rw"},
	})
	if err != nil {
		t.Fatal(err)
	}
	emuExec(t, ctx, tx, "UPDATE accounts SET balance = 0 WHERE id = $1", 2)
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := emuInt64s(t, ctx, db, "SELECT balance FROM accounts ORDER BY id"); !reflect.DeepEqual(got, []int64{12, 0}) {
		t.Fatalf("after BeginReadWriteTransaction %v, want [12 0]", got)
	}
}

// TestEmulatorPGReadOnlyStaleness: on a PostgreSQL database a read-only
// transaction is one snapshot, BeginReadOnlyTransaction reads at a given
// timestamp, and read_only_staleness (SET spanner.read_only_staleness, the
// DSN) makes autocommit queries read at it.
func TestEmulatorPGReadOnlyStaleness(t *testing.T) {
	t.Parallel()
	ctx := emuCtx(t)
	db, edb := emuPGDB(t, emuPGAccountsDDL, "autoConfigEmulator=true")
	c := dbConn(t, db)
	first := emuCheckSnapshotReads(t, ctx, db, c, "SET spanner.read_only_staleness = '%s'", func() *sql.Tx {
		ro, err := sfdriver.BeginReadOnlyTransaction(ctx, db, sfdriver.ReadOnlyTransactionOptions{TimestampBound: spanner.StrongRead()})
		if err != nil {
			t.Fatal(err)
		}
		return ro
	}, nil)
	// The GoogleSQL form of the statement reaches the same property.
	emuExec(t, ctx, c, "SET READ_ONLY_STALENESS = 'MIN_READ_TIMESTAMP "+first.Format(time.RFC3339Nano)+"'")
	if got := emuInt64s(t, ctx, c, "SELECT count(*) FROM accounts"); !reflect.DeepEqual(got, []int64{1}) {
		t.Fatalf("min read timestamp: %v, want [1]", got)
	}
	stale := emuOpen(t, edb.DSN("read_only_staleness=READ_TIMESTAMP "+first.Format(time.RFC3339Nano)))
	if got := emuInt64s(t, ctx, stale, "SELECT balance FROM accounts"); !reflect.DeepEqual(got, []int64{1}) {
		t.Fatalf("read_only_staleness in the DSN: %v, want [1]", got)
	}
}

// TestEmulatorPGAbortReplayAtCommit: Spanner aborts a PostgreSQL
// transaction at its commit, after DML with RETURNING (of a numeric) and a
// DML batch with numeric parameters; the replay runs them again and commits
// when the returned rows and the update counts are those seen before, and
// fails with ErrAbortedDueToConcurrentModification when another
// transaction changed the returned value.
func TestEmulatorPGAbortReplayAtCommit(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name    string
		change  string
		wantErr error
	}{
		{name: "replayed"},
		{name: "returned value changed", change: "UPDATE accounts SET amount = 7 WHERE id = 2", wantErr: sfdriver.ErrAbortedDueToConcurrentModification},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			ctx := emuCtx(t)
			db, edb := emuPGDB(t, emuPGAccountsDDL)
			emuExec(t, ctx, db, "INSERT INTO accounts (id, balance, amount) VALUES (1, 10, 0), (2, 20, 1.5)")
			app := emuOpen(t, edb.DSN())
			tx, err := app.BeginTx(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			var amount spanner.PGNumeric
			if err := tx.QueryRowContext(ctx, "UPDATE accounts SET balance = balance + 1 WHERE id = $1 RETURNING amount", 2).Scan(&amount); err != nil {
				t.Fatal(err)
			}
			emuExec(t, ctx, tx, "START BATCH DML")
			emuExec(t, ctx, tx, "UPDATE accounts SET balance = balance + 1 WHERE id = $1", 2)
			emuExec(t, ctx, tx, "UPDATE accounts SET amount = amount + $1 WHERE id = $2", spanner.PGNumeric{Numeric: "1.25", Valid: true}, 2)
			emuExec(t, ctx, tx, "RUN BATCH")
			if c.change != "" {
				emuExec(t, ctx, db, c.change)
			}
			provokeAbort(t, ctx, db)
			err = tx.Commit()
			if c.wantErr != nil {
				emuWantCode(t, err, codes.Aborted)
				if !errors.Is(err, c.wantErr) {
					t.Fatalf("error %v is not %v", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("replay at commit: %v", err)
			}
			if got := emuStrings(t, ctx, db, "SELECT balance::text || ' ' || amount::text FROM accounts ORDER BY id"); !reflect.DeepEqual(got, []string{"11 0", "22 2.75"}) {
				t.Fatalf("after the replayed commit %q, want [11 0, 22 2.75]", got)
			}
		})
	}
}

// TestEmulatorPGConcurrentReadModifyWrite: workers increment a numeric
// counter on a PostgreSQL database in read-modify-write transactions, by
// RunTransaction and by BeginTx (aborts replayed by the driver); no update
// is lost.
func TestEmulatorPGConcurrentReadModifyWrite(t *testing.T) {
	ctx := emuCtx(t)
	db, _ := emuPGDB(t, []string{"CREATE TABLE counters (id bigint primary key, value numeric NOT NULL)"}, "autoConfigEmulator=true")
	db.SetMaxOpenConns(emuWorkers + 2)
	emuExec(t, ctx, db, "INSERT INTO counters (id, value) VALUES (0, 0.5)")
	increment := func(ctx context.Context, tx *sql.Tx) error {
		var v spanner.PGNumeric
		if err := tx.QueryRowContext(ctx, "SELECT value FROM counters WHERE id = $1", 0).Scan(&v); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, "UPDATE counters SET value = $1::numeric + 1 WHERE id = $2", v.Numeric, 0)
		return err
	}
	errs := runWorkers(func(ctx context.Context) error {
		return sfdriver.RunTransaction(ctx, db, nil, increment)
	})
	errs = append(errs, runWorkers(func(ctx context.Context) error {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		if err := increment(ctx, tx); err != nil {
			_ = tx.Rollback()
			return err
		}
		return tx.Commit()
	})...)
	for _, err := range errs {
		t.Error(err)
	}
	want := fmt.Sprintf("%d.5", 2*emuWorkers*emuTxns)
	if got := emuStrings(t, ctx, db, "SELECT value::text FROM counters"); !reflect.DeepEqual(got, []string{want}) {
		t.Fatalf("counter %q, want [%s] (lost updates)", got, want)
	}
}
