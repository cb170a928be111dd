package spannergorm_test

import (
	"context"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"

	"github.com/spannerfast/spannerfast/internal/fakespanner"
	"github.com/spannerfast/spannerfast/spannergorm"
)

// TestFakeRunTransactionUnderAbort: Spanner aborts the Commit of a
// RunTransaction, asking for a 30 ms delay. The function runs again, after
// the delay, in a new transaction, and the driver does not also replay the
// aborted one: the UPDATE is sent once per run, and committed by the second
// of two Commits. db.Transaction under the same abort is replayed by the
// driver instead: its function runs once. (On the emulator,
// TestEmulatorGORMSuite/RunTransactionAborts provokes a real abort.)
func TestFakeRunTransactionUnderAbort(t *testing.T) {
	const update = "UPDATE items SET n = 1 WHERE id = 1"
	for _, viaRunTransaction := range []bool{true, false} {
		s := fakespanner.Start(t)
		s.AddResult(fakespanner.DialectQuery, fakespanner.DialectResult("GOOGLE_STANDARD_SQL"))
		s.AddResult(update, fakespanner.DML(1))
		s.AddMethodFault("Commit", fakespanner.Fault{Err: fakespanner.WithRetryDelay(codes.Aborted, "aborted", 30*time.Millisecond)})
		db, err := gorm.Open(spannergorm.New(spannergorm.Config{DSN: s.Addr() + "/projects/p/instances/i/databases/d;usePlainText=true"}),
			&gorm.Config{Logger: logger.Discard})
		if err != nil {
			t.Fatal(err)
		}
		sqlDB, _ := db.DB()
		t.Cleanup(func() { _ = sqlDB.Close() })
		runs := 0
		fn := func(tx *gorm.DB) error {
			runs++
			return tx.Exec(update).Error
		}
		start := time.Now()
		if viaRunTransaction {
			err = spannergorm.RunTransaction(context.Background(), db, fn)
		} else {
			err = db.Transaction(fn)
		}
		if err != nil {
			t.Fatalf("RunTransaction=%v: %v", viaRunTransaction, err)
		}
		var sent int
		for _, r := range s.RequestsFor("ExecuteSql") {
			if r.ExecuteSQL().GetSql() == update {
				sent++
			}
		}
		commits := len(s.RequestsFor("Commit"))
		wantRuns := 1
		if viaRunTransaction {
			wantRuns = 2
		}
		if runs != wantRuns || sent != 2 || commits != 2 {
			t.Errorf("RunTransaction=%v: function ran %d times, UPDATE sent %d times, %d Commits; want %d, 2, 2",
				viaRunTransaction, runs, sent, commits, wantRuns)
		}
		if el := time.Since(start); el < 30*time.Millisecond {
			t.Errorf("RunTransaction=%v: retried after %v, before the server's delay", viaRunTransaction, el)
		}
	}
}
