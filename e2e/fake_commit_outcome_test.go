package e2e

import (
	"context"
	"database/sql"
	sqldriver "database/sql/driver"
	"errors"
	"testing"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/structpb"

	sfdriver "github.com/spannerfast/spannerfast/driver"
	"github.com/spannerfast/spannerfast/internal/fakespanner"
)

// Commits whose outcome the driver cannot know, and replays that must see
// everything the application saw, against the scripted fake server.

const thenReturn = "INSERT INTO t (s) VALUES ('z') THEN RETURN id"

// addThenReturn answers thenReturn with the id a sequence gave.
func addThenReturn(s *fakespanner.Server, id string) {
	rs := &spannerpb.ResultSet{
		Metadata: &spannerpb.ResultSetMetadata{RowType: &spannerpb.StructType{Fields: []*spannerpb.StructType_Field{
			{Name: "id", Type: typ(spannerpb.TypeCode_INT64)},
		}}},
		Rows:  []*structpb.ListValue{{Values: []*structpb.Value{str(id)}}},
		Stats: &spannerpb.ResultSetStats{RowCount: &spannerpb.ResultSetStats_RowCountExact{RowCountExact: 1}},
	}
	s.AddResult(thenReturn, &fakespanner.Result{ResultSet: rs})
}

// TestFakeReplayComparesThenReturn: an INSERT ... THEN RETURN run through
// ExecContext gave the application an id (LastInsertId). When Spanner
// aborts the transaction and the replay's INSERT returns another id (a
// sequence moved on), the transaction fails with
// ErrAbortedDueToConcurrentModification instead of committing rows whose
// id the application never saw; with the same id it commits.
func TestFakeReplayComparesThenReturn(t *testing.T) {
	ctx := context.Background()
	for _, changed := range []bool{false, true} {
		s, db := startTxnFake(t)
		addThenReturn(s, "41")
		s.AddMethodFault("Commit", fakespanner.Fault{Err: fakespanner.WithRetryDelay(codes.Aborted, "aborted", 0)})
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		res, err := tx.ExecContext(ctx, thenReturn)
		if err != nil {
			t.Fatal(err)
		}
		if id, err := res.LastInsertId(); id != 41 || err != nil {
			t.Fatalf("LastInsertId = %d, %v; want 41", id, err)
		}
		if changed {
			addThenReturn(s, "42")
		}
		err = tx.Commit()
		commits := len(s.RequestsFor("Commit"))
		if changed {
			if !errors.Is(err, sfdriver.ErrAbortedDueToConcurrentModification) || status.Code(err) != codes.Aborted {
				t.Fatalf("replay returned another id: Commit = %v, want ErrAbortedDueToConcurrentModification", err)
			}
			if commits != 1 {
				t.Fatalf("%d Commit requests, want 1 (the aborted one; the replay must not commit)", commits)
			}
			continue
		}
		if err != nil || commits != 2 {
			t.Fatalf("same id: Commit = %v after %d Commit requests, want nil after 2", err, commits)
		}
	}
}

// commitLostFaults makes the first Commit commit and then lose its answer
// with first (the connection broke after the server applied it); a retry,
// if the driver sends one, is answered ABORTED, as Spanner may answer for
// a transaction that is no longer active. A driver that believed that
// ABORTED would replay the transaction's DML and apply it twice.
func commitLostFaults(s *fakespanner.Server, first error) {
	s.AddMethodFault("Commit", fakespanner.Fault{Err: first, AfterRun: true})
	s.AddMethodFault("Commit", fakespanner.Fault{Skip: 1, Err: fakespanner.WithRetryDelay(codes.Aborted, "aborted", 0)})
}

// checkOutcomeUnknown checks the error of work whose Commit was applied but
// whose answer was lost: "outcome unknown" with the failure's code, and the
// DML sent once, committed once.
func checkOutcomeUnknown(t *testing.T, s *fakespanner.Server, err error, code codes.Code, wantDML, wantCommits int) {
	t.Helper()
	var typed *sfdriver.CommitOutcomeUnknownError
	if !errors.Is(err, sfdriver.ErrCommitOutcomeUnknown) || !errors.As(err, &typed) || status.Code(err) != code {
		t.Fatalf("error %v (code %v), want ErrCommitOutcomeUnknown with code %v", err, status.Code(err), code)
	}
	if errors.Is(err, sfdriver.ErrAbortedDueToConcurrentModification) {
		t.Fatalf("error %v must not say aborted", err)
	}
	if n := len(s.RequestsFor("ExecuteSql")); n != wantDML {
		t.Fatalf("%d ExecuteSql requests, want %d: the DML must not run again", n, wantDML)
	}
	if n := len(s.RequestsFor("Commit")); n != wantCommits {
		t.Fatalf("%d Commit requests, want %d", n, wantCommits)
	}
}

// connValid reports the driver connection's IsValid.
func connValid(t *testing.T, c *sql.Conn) bool {
	t.Helper()
	var valid bool
	if err := c.Raw(func(dc any) error { valid = dc.(sqldriver.Validator).IsValid(); return nil }); err != nil {
		t.Fatal(err)
	}
	return valid
}

// TestFakeCommitOutcomeUnknown: a Commit that was applied and then broke off
// is not replayed. INTERNAL (RST_STREAM) is not retried at all (the official
// client retries Commit on UNAVAILABLE and RESOURCE_EXHAUSTED only);
// UNAVAILABLE is retried once, and the retry's ABORTED is not believed.
// Either way the application gets ErrCommitOutcomeUnknown with the
// failure's code, the DML ran once, and the connection is discarded.
// Transactions, autocommit DML and Apply alike.
func TestFakeCommitOutcomeUnknown(t *testing.T) {
	ctx := context.Background()
	for _, fc := range []struct {
		name    string
		err     error
		code    codes.Code
		commits int
	}{
		{"RST_STREAM", fakespanner.ErrRSTStream, codes.Internal, 1},
		{"UNAVAILABLE", fakespanner.ErrUnavailable, codes.Unavailable, 2},
	} {
		t.Run(fc.name+"/transaction", func(t *testing.T) {
			s, db := startTxnFake(t)
			commitLostFaults(s, fc.err)
			c := dbConn(t, db)
			tx, err := c.BeginTx(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := tx.ExecContext(ctx, txnInsert); err != nil {
				t.Fatal(err)
			}
			checkOutcomeUnknown(t, s, tx.Commit(), fc.code, 1, fc.commits)
			if connValid(t, c) {
				t.Fatal("IsValid true after a commit whose outcome is unknown")
			}
		})
		t.Run(fc.name+"/autocommit DML", func(t *testing.T) {
			s, db := startTxnFake(t)
			commitLostFaults(s, fc.err)
			c := dbConn(t, db)
			_, err := c.ExecContext(ctx, txnInsert)
			checkOutcomeUnknown(t, s, err, fc.code, 1, fc.commits)
			if connValid(t, c) {
				t.Fatal("IsValid true after a commit whose outcome is unknown")
			}
		})
		t.Run(fc.name+"/Apply", func(t *testing.T) {
			s, db := startTxnFake(t)
			commitLostFaults(s, fc.err)
			c := dbConn(t, db)
			err := spannerConn(t, c, func(sc sfdriver.SpannerConn) error { _, err := sc.Apply(ctx, testMutations()); return err })
			checkOutcomeUnknown(t, s, err, fc.code, 0, fc.commits)
			if n := len(s.RequestsFor("BeginTransaction")); n != 1 {
				t.Fatalf("%d BeginTransaction, want 1: Apply must not run again", n)
			}
			if connValid(t, c) {
				t.Fatal("IsValid true after an Apply whose outcome is unknown")
			}
		})
	}
}

// TestFakeCommitRefusedIsRetried: UNAVAILABLE and RESOURCE_EXHAUSTED
// answered before the Commit ran are retried, and a commit that then
// succeeds is a success (the outcome is known), once.
func TestFakeCommitRefusedIsRetried(t *testing.T) {
	ctx := context.Background()
	for _, e := range []error{fakespanner.ErrUnavailable, status.Error(codes.ResourceExhausted, "fakespanner: too many requests")} {
		s, db := startTxnFake(t)
		s.AddMethodFault("Commit", fakespanner.Fault{Err: e})
		c := dbConn(t, db)
		if _, err := c.ExecContext(ctx, txnInsert); err != nil {
			t.Fatalf("%v then success: %v", e, err)
		}
		if n := len(s.RequestsFor("Commit")); n != 2 {
			t.Fatalf("%d Commit requests, want 2", n)
		}
		if !connValid(t, c) {
			t.Fatal("IsValid false after a commit that succeeded")
		}
	}
}
