package e2e

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
	"testing"
	"time"

	"cloud.google.com/go/spanner"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	spannerdriver "github.com/spannerfast/spannerfast/driver"
)

// Concurrency on the emulator, which runs one read-write transaction per
// database at a time and lets a new transaction on a session end the one
// before it. With auto_config_emulator (or SPANNER_EMULATOR_HOST) the
// driver gives each connection a session of its own and lets one read-write
// transaction of the process proceed at a time (internal/transport/emulator.go).

const (
	emuWorkers = 6
	emuTxns    = 5
)

// openEmulatorDB opens a database/sql handle on a fresh emulator database
// with a Counters table holding rows 0..rows-1 at 0. autoConfigEmulator
// tells the driver it is on the emulator (the DSN names the endpoint).
func openEmulatorDB(t *testing.T, rows int) *sql.DB {
	t.Helper()
	db, _ := emuDB(t, []string{"CREATE TABLE Counters (Id INT64 NOT NULL, Value INT64 NOT NULL) PRIMARY KEY (Id)"},
		"autoConfigEmulator=true")
	for id := range rows {
		if _, err := db.Exec("INSERT INTO Counters (Id, Value) VALUES (@id, 0)", sql.Named("id", id)); err != nil {
			t.Fatal(err)
		}
	}
	return db
}

func counterValue(ctx context.Context, t *testing.T, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}, id int) int64 {
	t.Helper()
	var v int64
	if err := q.QueryRowContext(ctx, "SELECT Value FROM Counters WHERE Id = @id", sql.Named("id", id)).Scan(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

// wantCounters reports an error unless counters 0 and 1 hold want0 and
// want1.
func wantCounters(ctx context.Context, t *testing.T, db *sql.DB, want0, want1 int64) {
	t.Helper()
	if got := counterValue(ctx, t, db, 0); got != want0 {
		t.Errorf("row 0: %d, want %d", got, want0)
	}
	if got := counterValue(ctx, t, db, 1); got != want1 {
		t.Errorf("row 1: %d, want %d", got, want1)
	}
}

// increment reads a counter and writes it back plus one: a lost update
// shows as a final count below the number of increments.
func increment(ctx context.Context, tx *sql.Tx, id int) error {
	var v int64
	if err := tx.QueryRowContext(ctx, "SELECT Value FROM Counters WHERE Id = @id", sql.Named("id", id)).Scan(&v); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, "UPDATE Counters SET Value = @v WHERE Id = @id", sql.Named("v", v+1), sql.Named("id", id))
	return err
}

// runWorkers runs emuWorkers goroutines doing emuTxns increments of
// counter 0 each and returns every error.
func runWorkers(work func(ctx context.Context) error) []error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
	)
	for w := range emuWorkers {
		wg.Go(func() {
			for i := range emuTxns {
				if err := work(ctx); err != nil {
					mu.Lock()
					errs = append(errs, fmt.Errorf("worker %d, transaction %d: %w", w, i, err))
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	return errs
}

func TestEmulatorConcurrentReadModifyWrite(t *testing.T) {
	ctx := context.Background()
	db := openEmulatorDB(t, 1)
	db.SetMaxOpenConns(emuWorkers + 2)

	t.Run("RunTransaction", func(t *testing.T) {
		before := counterValue(ctx, t, db, 0)
		errs := runWorkers(func(ctx context.Context) error {
			return spannerdriver.RunTransaction(ctx, db, nil, func(ctx context.Context, tx *sql.Tx) error {
				return increment(ctx, tx, 0)
			})
		})
		for _, err := range errs {
			t.Error(err)
		}
		if got, want := counterValue(ctx, t, db, 0)-before, int64(emuWorkers*emuTxns); got != want {
			t.Errorf("counter went up by %d, want %d (lost updates)", got, want)
		}
	})

	t.Run("BeginTx", func(t *testing.T) {
		before := counterValue(ctx, t, db, 0)
		errs := runWorkers(func(ctx context.Context) error {
			tx, err := db.BeginTx(ctx, nil)
			if err != nil {
				return err
			}
			if err := increment(ctx, tx, 0); err != nil {
				_ = tx.Rollback()
				return err
			}
			return tx.Commit()
		})
		for _, err := range errs {
			t.Error(err)
		}
		if got, want := counterValue(ctx, t, db, 0)-before, int64(emuWorkers*emuTxns); got != want {
			t.Errorf("counter went up by %d, want %d (lost updates)", got, want)
		}
	})

	t.Run("AutocommitDML", func(t *testing.T) {
		before := counterValue(ctx, t, db, 0)
		errs := runWorkers(func(ctx context.Context) error {
			_, err := db.ExecContext(ctx, "UPDATE Counters SET Value = Value + 1 WHERE Id = 0")
			return err
		})
		for _, err := range errs {
			t.Error(err)
		}
		if got, want := counterValue(ctx, t, db, 0)-before, int64(emuWorkers*emuTxns); got != want {
			t.Errorf("counter went up by %d, want %d", got, want)
		}
	})
}

// A read-only transaction keeps its snapshot while other connections
// write: autocommit DML and read-write transactions commit between its
// reads, and it still reads what it read first.
func TestEmulatorReadOnlySnapshotWhileOthersWrite(t *testing.T) {
	ctx := context.Background()
	db := openEmulatorDB(t, 2)

	ro, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Rollback()
	first := counterValue(ctx, t, ro, 0)

	if _, err := db.ExecContext(ctx, "UPDATE Counters SET Value = Value + 100 WHERE Id = 0"); err != nil {
		t.Fatal(err)
	}
	if got := counterValue(ctx, t, ro, 0); got != first {
		t.Fatalf("read-only transaction read %d after an autocommit write, first %d", got, first)
	}
	errs := runWorkers(func(ctx context.Context) error {
		return spannerdriver.RunTransaction(ctx, db, nil, func(ctx context.Context, tx *sql.Tx) error {
			return increment(ctx, tx, 0)
		})
	})
	for _, err := range errs {
		t.Error(err)
	}
	if got := counterValue(ctx, t, ro, 0); got != first {
		t.Errorf("read-only transaction read %d after other transactions committed, first %d", got, first)
	}
	// The other row, read for the first time now, is read at the same
	// snapshot too (the writes went to row 0 only, so its value is known).
	if got := counterValue(ctx, t, ro, 1); got != 0 {
		t.Errorf("row 1 in the read-only transaction: %d, want 0", got)
	}
	if err := ro.Commit(); err != nil {
		t.Fatal(err)
	}
	if got, want := counterValue(ctx, t, db, 0), first+100+emuWorkers*emuTxns; got != want {
		t.Errorf("after the writes: %d, want %d", got, want)
	}
}

// Read-only transactions run while read-write ones do, each staying one
// snapshot: two reads of the counter in one read-only transaction always
// agree while workers increment it.
func TestEmulatorReadOnlyDuringConcurrentWrites(t *testing.T) {
	ctx := context.Background()
	db := openEmulatorDB(t, 1)

	done := make(chan struct{})
	var readers sync.WaitGroup
	readErrs := make(chan error, 16)
	for range 2 {
		readers.Go(func() {
			for {
				select {
				case <-done:
					return
				default:
				}
				err := func() error {
					ro, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
					if err != nil {
						return err
					}
					defer ro.Rollback()
					var a, b int64
					if err := ro.QueryRowContext(ctx, "SELECT Value FROM Counters WHERE Id = 0").Scan(&a); err != nil {
						return err
					}
					if err := ro.QueryRowContext(ctx, "SELECT Value FROM Counters WHERE Id = 0").Scan(&b); err != nil {
						return err
					}
					if a != b {
						return fmt.Errorf("one read-only transaction read %d, then %d", a, b)
					}
					return ro.Commit()
				}()
				if err != nil {
					readErrs <- err
					return
				}
			}
		})
	}
	errs := runWorkers(func(ctx context.Context) error {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		if err := increment(ctx, tx, 0); err != nil {
			_ = tx.Rollback()
			return err
		}
		return tx.Commit()
	})
	close(done)
	readers.Wait()
	close(readErrs)
	for err := range readErrs {
		t.Error(err)
	}
	for _, err := range errs {
		t.Error(err)
	}
	if got, want := counterValue(ctx, t, db, 0), int64(emuWorkers*emuTxns); got != want {
		t.Errorf("counter %d, want %d", got, want)
	}
}

// One goroutine holds a read-write transaction that wrote, and runs
// autocommit DML on another connection before committing it. The emulator
// cannot run both at once; the autocommit DML goes ahead once the open
// transaction has stalled, the emulator makes room for it by aborting the
// open transaction, and that transaction's replay then commits it.
func TestEmulatorNestedTransactionsInOneGoroutine(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	db := openEmulatorDB(t, 2)

	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.ExecContext(ctx, "UPDATE Counters SET Value = Value + 1 WHERE Id = 0"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, "UPDATE Counters SET Value = Value + 10 WHERE Id = 1"); err != nil {
		t.Fatalf("autocommit DML while this goroutine holds a transaction: %v", err)
	}
	if _, err := tx.ExecContext(ctx, "UPDATE Counters SET Value = Value + 1 WHERE Id = 0"); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	wantCounters(ctx, t, db, 2, 10)
}

// A read-write transaction that is open but has started nothing holds
// nothing, as on the emulator itself (it takes its lock at a transaction's
// first read or write): writes on other connections do not wait for it.
// GORM's db.Transaction around writes done on db instead of tx (as
// go-gorm-spanner's sample application does) made each of those writes wait
// the gate's stall (500ms) when BeginTx entered the gate. Each write here
// has less than the stall: one that waited for the idle transaction fails.
func TestEmulatorIdleTransactionHoldsNothing(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	db := openEmulatorDB(t, 2)

	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	for i := range 3 {
		wctx, wcancel := context.WithTimeout(ctx, 450*time.Millisecond)
		_, err := db.ExecContext(wctx, "UPDATE Counters SET Value = Value + 1 WHERE Id = 1")
		wcancel()
		if err != nil {
			t.Fatalf("write %d beside an idle transaction: %v", i, err)
		}
	}
	// The transaction that waited still works: it enters at its first
	// statement and commits.
	if _, err := tx.ExecContext(ctx, "UPDATE Counters SET Value = Value + 10 WHERE Id = 0"); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	wantCounters(ctx, t, db, 10, 3)

	// A transaction that only buffers mutations enters at its commit, and
	// the commit waits for a transaction that holds the gate instead of
	// being aborted by the emulator.
	holder, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := holder.ExecContext(ctx, "UPDATE Counters SET Value = Value + 1 WHERE Id = 0"); err != nil {
		t.Fatal(err)
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	mtx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := conn.Raw(func(dc any) error {
		return dc.(spannerdriver.SpannerConn).BufferWrite([]*spanner.Mutation{
			spanner.Update("Counters", []string{"Id", "Value"}, []any{int64(1), int64(100)}),
		})
	}); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- mtx.Commit() }()
	time.Sleep(50 * time.Millisecond)
	if err := holder.Commit(); err != nil {
		t.Fatalf("the holder's commit: %v", err)
	}
	if err := <-done; err != nil {
		t.Fatalf("commit of buffered mutations: %v", err)
	}
	wantCounters(ctx, t, db, 11, 100)
}

// DDL from one goroutine while others run read-write transactions: the
// emulator refuses a schema change while a transaction holds its lock (or
// aborts the transaction), so the driver lets the DDL take its turn.
func TestEmulatorDDLWhileOthersWrite(t *testing.T) {
	ctx := context.Background()
	db := openEmulatorDB(t, 1)
	db.SetMaxOpenConns(emuWorkers + 2)
	ddlErr := make(chan error, 1)
	go func() {
		for i := range 3 {
			if _, err := db.ExecContext(ctx, fmt.Sprintf("CREATE TABLE Other%d (Id INT64 NOT NULL) PRIMARY KEY (Id)", i)); err != nil {
				ddlErr <- fmt.Errorf("DDL %d: %w", i, err)
				return
			}
		}
		ddlErr <- nil
	}()
	errs := runWorkers(func(ctx context.Context) error {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		if err := increment(ctx, tx, 0); err != nil {
			_ = tx.Rollback()
			return err
		}
		return tx.Commit()
	})
	if err := <-ddlErr; err != nil {
		t.Error(err)
	}
	for _, err := range errs {
		t.Error(err)
	}
	if got, want := counterValue(ctx, t, db, 0), int64(emuWorkers*emuTxns); got != want {
		t.Errorf("counter %d, want %d", got, want)
	}
	for i := range 3 {
		var n int64
		if err := db.QueryRowContext(ctx, fmt.Sprintf("SELECT COUNT(*) FROM Other%d", i)).Scan(&n); err != nil {
			t.Errorf("table Other%d: %v", i, err)
		}
	}
}

// Partitions that PARTITION returns run on any connection, and stop
// working once the connection that made them runs another transaction
// (its session's next transaction ends the batch read-only one): the
// README's limit.
func TestEmulatorPartitionsLiveWithTheirConnection(t *testing.T) {
	ctx := context.Background()
	db := openEmulatorDB(t, 20)
	c1, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c1.Close()
	rows, err := c1.QueryContext(ctx, "PARTITION SELECT Id FROM Counters")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	readAll := func() (int, error) {
		n := 0
		for _, id := range ids {
			r, err := db.QueryContext(ctx, "RUN PARTITION '"+id+"'")
			if err != nil {
				return n, err
			}
			for r.Next() {
				n++
			}
			err = r.Err()
			r.Close()
			if err != nil {
				return n, err
			}
		}
		return n, nil
	}
	if n, err := readAll(); err != nil || n != 20 {
		t.Fatalf("partitions read %d rows (%v), want 20", n, err)
	}
	if _, err := c1.ExecContext(ctx, "UPDATE Counters SET Value = 1 WHERE Id = 0"); err != nil {
		t.Fatal(err)
	}
	// The emulator says NotFound "Transaction not found" or, once it
	// moved past it, FailedPrecondition "Invalid transaction ID".
	if _, err := readAll(); status.Code(err) != codes.NotFound && status.Code(err) != codes.FailedPrecondition {
		t.Errorf("partitions after their connection ran another transaction: %v, want NotFound or FailedPrecondition", err)
	}
}
