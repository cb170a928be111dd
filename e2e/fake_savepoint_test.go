package e2e

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	sfdriver "github.com/spannerfast/spannerfast/driver"
	"github.com/spannerfast/spannerfast/internal/fakespanner"
)

// spTxnMethods are the transaction's RPCs, in the order they were made.
func spTxnMethods(s *fakespanner.Server) []fakespanner.Request {
	var out []fakespanner.Request
	for _, r := range s.Requests() {
		switch r.Method {
		case "BeginTransaction", "ExecuteSql", "ExecuteStreamingSql", "ExecuteBatchDml", "Commit", "Rollback":
			out = append(out, r)
		}
	}
	return out
}

func spMethodNames(rs []fakespanner.Request) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Method)
	}
	return out
}

// TestFakeRollbackToSavepoint: ROLLBACK TO sends Rollback of the
// transaction, then BeginTransaction and the statements made before the
// savepoint (not those after it) with the new id; the commit carries the
// new id and only the mutations buffered before the savepoint.
func TestFakeRollbackToSavepoint(t *testing.T) {
	ctx := context.Background()
	s, db := startTxnFake(t)
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	tx, err := c.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	readStrings(t, mustQuery(t, tx, txnQuery))
	if _, err := tx.ExecContext(ctx, txnUpdate); err != nil {
		t.Fatal(err)
	}
	emuExec(t, ctx, tx, "SAVEPOINT a")
	if _, err := tx.ExecContext(ctx, txnInsert); err != nil {
		t.Fatal(err)
	}
	before := spTxnMethods(s)
	oldID := before[len(before)-1].Message.(*spannerpb.ExecuteSqlRequest).GetTransaction().GetId()
	s.ResetRequests()
	emuExec(t, ctx, tx, "ROLLBACK TO a")
	got := spTxnMethods(s)
	if want := []string{"Rollback", "BeginTransaction", "ExecuteStreamingSql", "ExecuteSql"}; !slices.Equal(spMethodNames(got), want) {
		t.Fatalf("ROLLBACK TO sent %v, want %v", spMethodNames(got), want)
	}
	if id := got[0].Message.(*spannerpb.RollbackRequest).GetTransactionId(); string(id) != string(oldID) {
		t.Fatalf("Rollback of %q, want the transaction's %q", id, oldID)
	}
	q, dml := got[2].ExecuteSQL(), got[3].ExecuteSQL()
	newID := q.GetTransaction().GetId()
	if len(newID) == 0 || string(newID) == string(oldID) || string(dml.GetTransaction().GetId()) != string(newID) {
		t.Fatalf("replayed statements in transactions %q and %q; old %q", newID, dml.GetTransaction().GetId(), oldID)
	}
	if q.GetSql() != txnQuery || dml.GetSql() != txnUpdate {
		t.Fatalf("replayed %q and %q, want the statements before the savepoint", q.GetSql(), dml.GetSql())
	}
	s.ResetRequests()
	emuExec(t, ctx, tx, "ROLLBACK TO a") // nothing since the savepoint: nothing to undo
	if got := spTxnMethods(s); len(got) != 0 {
		t.Fatalf("a second ROLLBACK TO sent %v, want nothing", spMethodNames(got))
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	commits := s.RequestsFor("Commit")
	if len(commits) != 1 || string(commits[0].Message.(*spannerpb.CommitRequest).GetTransactionId()) != string(newID) {
		t.Fatalf("commit requests %v, want one of the new transaction", commits)
	}
}

// TestFakeRollbackToSavepointDataChanged: when a statement before the
// savepoint gives another result in the replay, ROLLBACK TO fails with
// ErrAbortedDueToConcurrentModification (code Aborted), and so do the
// statements and the commit that follow.
func TestFakeRollbackToSavepointDataChanged(t *testing.T) {
	ctx := context.Background()
	s, db := startTxnFake(t)
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	readStrings(t, mustQuery(t, tx, txnQuery))
	emuExec(t, ctx, tx, "SAVEPOINT a")
	if _, err := tx.ExecContext(ctx, txnInsert); err != nil {
		t.Fatal(err)
	}
	s.AddResult(txnQuery, &fakespanner.Result{ResultSet: stringRows("a", "c")})
	_, err = tx.ExecContext(ctx, "ROLLBACK TO a")
	if !errors.Is(err, sfdriver.ErrAbortedDueToConcurrentModification) || status.Code(err) != codes.Aborted {
		t.Fatalf("ROLLBACK TO with changed data: %v, want ErrAbortedDueToConcurrentModification", err)
	}
	if _, err := tx.ExecContext(ctx, txnUpdate); !errors.Is(err, sfdriver.ErrAbortedDueToConcurrentModification) {
		t.Fatalf("a statement after the failed replay: %v", err)
	}
	if err := tx.Commit(); !errors.Is(err, sfdriver.ErrAbortedDueToConcurrentModification) {
		t.Fatalf("Commit after the failed replay: %v", err)
	}
}

// TestFakeRollbackToSavepointReplayFails: a replay that cannot finish
// (BeginTransaction refused) fails ROLLBACK TO with that error, and the
// transaction with it: the new transaction would lack the statements
// before the savepoint, so it must not commit.
func TestFakeRollbackToSavepointReplayFails(t *testing.T) {
	ctx := context.Background()
	s, db := startTxnFake(t)
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.ExecContext(ctx, txnUpdate); err != nil {
		t.Fatal(err)
	}
	emuExec(t, ctx, tx, "SAVEPOINT a")
	if _, err := tx.ExecContext(ctx, txnInsert); err != nil {
		t.Fatal(err)
	}
	s.AddMethodFault("BeginTransaction", fakespanner.Fault{Err: status.Error(codes.PermissionDenied, "no")})
	_, err = tx.ExecContext(ctx, "ROLLBACK TO a")
	emuWantCode(t, err, codes.PermissionDenied)
	s.ResetRequests()
	err = tx.Commit()
	emuWantCode(t, err, codes.PermissionDenied)
	if n := len(s.RequestsFor("Commit")); n != 0 {
		t.Fatalf("%d Commit requests after the failed replay, want none", n)
	}
}

// BenchmarkRollbackToSavepoint measures ROLLBACK TO a savepoint set after
// n DML statements, on the fake server in the same process: a Rollback,
// a BeginTransaction and the n statements again. Each iteration runs one
// INSERT after the savepoint first (not timed), so that there is
// something to undo.
func BenchmarkRollbackToSavepoint(b *testing.B) {
	for _, n := range []int{0, 1, 10, 100} {
		b.Run(fmt.Sprintf("statements=%d", n), func(b *testing.B) {
			ctx := context.Background()
			s := fakespanner.Start(b)
			s.SetRecording(false)
			s.AddResult(txnUpdate, fakespanner.DML(3))
			s.AddResult(txnInsert, fakespanner.DML(1))
			c, err := openFake(b, s).Conn(ctx)
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			tx, err := c.BeginTx(ctx, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer tx.Rollback()
			exec := func(q string) {
				if _, err := tx.ExecContext(ctx, q); err != nil {
					b.Fatal(err)
				}
			}
			for range n {
				exec(txnUpdate)
			}
			exec("SAVEPOINT a")
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				b.StopTimer()
				exec(txnInsert)
				b.StartTimer()
				exec("ROLLBACK TO a")
			}
		})
	}
}
