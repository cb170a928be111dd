package connstate

import (
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/spannerfast/spannerfast/dsn"
)

// TestTransactionState walks a connection through go-sql-spanner's states:
// idle, in a transaction, failed, and idle again whichever way the
// transaction ends; a failure outside a transaction changes nothing.
func TestTransactionState(t *testing.T) {
	s := New(dsn.NewConfig())
	want := func(ts TransactionState) {
		t.Helper()
		if got := s.TransactionState(); got != ts {
			t.Fatalf("state %q, want %q", got, ts)
		}
	}
	if s.InErrorTxBehavior() != InErrorTxBehaviorAllowCommands {
		t.Fatalf("initial behaviour %d, want AllowCommands", s.InErrorTxBehavior())
	}
	want(TransactionStateIdle)
	s.NoteStatementFailed()
	want(TransactionStateIdle)
	for _, committed := range []bool{true, false} {
		s.BeginTransaction()
		want(TransactionStateTransaction)
		s.NoteStatementFailed()
		want(TransactionStateFailed)
		if s.EnforcingFailed() || s.CheckRunnable(false) != nil {
			t.Fatal("AllowCommands refuses statements")
		}
		s.EndTransaction(committed)
		want(TransactionStateIdle)
	}
	s.BeginTransaction()
	s.NoteStatementFailed()
	s.BeginTransaction() // a new transaction starts clean
	want(TransactionStateTransaction)
}

// TestInErrorTxBehaviorEnforce: under EnforceInErrorState a failed
// transaction refuses everything but its end, with PostgreSQL's error; the
// setting survives ResetAll, the failure does not.
func TestInErrorTxBehaviorEnforce(t *testing.T) {
	s := New(dsn.NewConfig())
	if err := s.SetInErrorTxBehavior(InErrorTxBehaviorEnforceInErrorState); err != nil {
		t.Fatal(err)
	}
	s.BeginTransaction()
	if err := s.CheckRunnable(false); err != nil {
		t.Fatalf("statement refused before any failure: %v", err)
	}
	s.NoteStatementFailed()
	err := s.CheckRunnable(false)
	if status.Code(err) != codes.FailedPrecondition || status.Convert(err).Message() != "current transaction is failed, commands ignored until end of transaction block" {
		t.Fatalf("in a failed transaction: %v", err)
	}
	if err := s.CheckRunnable(true); err != nil {
		t.Fatalf("COMMIT/ROLLBACK refused: %v", err)
	}
	if !s.EnforcingFailed() {
		t.Fatal("EnforcingFailed is false")
	}
	s.ResetAll()
	if s.TransactionState() != TransactionStateIdle || s.EnforcingFailed() {
		t.Fatal("ResetAll keeps the failed transaction")
	}
	if s.InErrorTxBehavior() != InErrorTxBehaviorEnforceInErrorState {
		t.Fatal("ResetAll dropped the InErrorTxBehavior")
	}
	for _, bad := range []InErrorTxBehavior{-1, 3} {
		if err := s.SetInErrorTxBehavior(bad); status.Code(err) != codes.InvalidArgument {
			t.Errorf("SetInErrorTxBehavior(%d): %v", bad, err)
		}
	}
}
