package connstate_test

import (
	"errors"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/spannerfast/spannerfast/dsn"
	"github.com/spannerfast/spannerfast/internal/connstate"
)

func newStore(t *testing.T, dsnText string) connstate.Store {
	t.Helper()
	cfg, err := dsn.Parse("projects/p/instances/i/databases/d;" + dsnText)
	if err != nil {
		t.Fatal(err)
	}
	return connstate.New(cfg)
}

func show(t *testing.T, s *connstate.Store, name string) any {
	t.Helper()
	v, err := s.Show(name)
	if err != nil {
		t.Fatalf("Show(%s): %v", name, err)
	}
	return v
}

// TestSetResetShow: SET changes a value for the session, RESET goes back to
// the DSN's, NULL is the property's default; extension variables are text;
// the DSN's values are never touched.
func TestSetResetShow(t *testing.T) {
	s := newStore(t, "rpc_priority=HIGH")
	if err := s.Set("rpc_priority", "low"); err != nil {
		t.Fatal(err)
	}
	if v := show(t, &s, "rpcPriority"); v != "PRIORITY_LOW" {
		t.Errorf("after SET: %v", v)
	}
	if err := s.Set("rpc_priority", "NULL"); err != nil {
		t.Fatal(err)
	}
	if v := show(t, &s, "rpc_priority"); v != "PRIORITY_UNSPECIFIED" {
		t.Errorf("after SET NULL: %v, want the default", v)
	}
	if err := s.Reset("rpc_priority"); err != nil {
		t.Fatal(err)
	}
	if v := show(t, &s, "rpc_priority"); v != "PRIORITY_HIGH" {
		t.Errorf("after RESET: %v, want the DSN's value", v)
	}
	if s.DSN().RPCPriority != dsn.PriorityHigh {
		t.Errorf("the DSN's values changed: %v", s.DSN().RPCPriority)
	}

	if err := s.Set("My_Ext.X", "v1"); err != nil {
		t.Fatal(err)
	}
	if v := show(t, &s, "my_ext.x"); v != "v1" {
		t.Errorf("extension = %v", v)
	}
	if err := s.Reset("my_ext.x"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Show("my_ext.x"); status.Code(err) != codes.InvalidArgument {
		t.Errorf("reset extension: %v, want InvalidArgument", err)
	}

	for _, tc := range []struct {
		name, value string
		code        codes.Code
		kind        error
	}{
		{"num_channels", "2", codes.FailedPrecondition, dsn.ErrReadOnly},
		{"commit_timestamp", "x", codes.FailedPrecondition, dsn.ErrReadOnly},
		{"no_such_property", "1", codes.InvalidArgument, dsn.ErrUnknownProperty},
		{"retry_aborts_internally", "maybe", codes.InvalidArgument, dsn.ErrInvalidValue},
	} {
		err := s.Set(tc.name, tc.value)
		if status.Code(err) != tc.code || !errors.Is(err, tc.kind) {
			t.Errorf("Set(%s, %s) = %v (%v), want %v and %v", tc.name, tc.value, err, status.Code(err), tc.code, tc.kind)
		}
	}
}

// TestSetLocal: a local value lasts until the transaction ends, whatever
// its outcome; a SET under it is what comes back.
func TestSetLocal(t *testing.T) {
	s := newStore(t, "")
	if err := s.SetLocal("statement_timeout", "1s"); status.Code(err) != codes.FailedPrecondition {
		t.Fatalf("SetLocal outside a transaction = %v, want FailedPrecondition", err)
	}
	for _, committed := range []bool{true, false} {
		s.BeginTransaction()
		if err := s.SetLocal("statement_timeout", "1s"); err != nil {
			t.Fatal(err)
		}
		if err := s.SetLocal("my.x", "local"); err != nil {
			t.Fatal(err)
		}
		if err := s.Set("statement_timeout", "5s"); err != nil {
			t.Fatal(err)
		}
		if !s.IsLocal("statementTimeout") || s.IsLocal("rpc_priority") {
			t.Error("IsLocal")
		}
		if v := show(t, &s, "statement_timeout"); v != "1s" {
			t.Errorf("in the transaction: %v, want the local value", v)
		}
		s.EndTransaction(committed)
		if v := show(t, &s, "statement_timeout"); v != "5s" {
			t.Errorf("after the transaction (committed %v): %v, want the SET under the local value", committed, v)
		}
		if _, err := s.Show("my.x"); err == nil {
			t.Errorf("local extension variable outlived the transaction")
		}
		if err := s.Reset("statement_timeout"); err != nil {
			t.Fatal(err)
		}
	}
	// SET LOCAL name = DEFAULT: the DSN's value for the transaction.
	if err := s.Set("statement_timeout", "7s"); err != nil {
		t.Fatal(err)
	}
	s.BeginTransaction()
	if err := s.ResetLocal("statement_timeout"); err != nil {
		t.Fatal(err)
	}
	if v := show(t, &s, "statement_timeout"); v != "0s" {
		t.Errorf("SET LOCAL DEFAULT: %v, want the DSN's 0s", v)
	}
	s.EndTransaction(true)
	if v := show(t, &s, "statement_timeout"); v != "7s" {
		t.Errorf("after: %v, want 7s back", v)
	}
}

// TestTransactionalState: with connection_state_type=TRANSACTIONAL, a
// rollback undoes SET and RESET made in the transaction and a commit keeps
// them; otherwise they stay either way.
func TestTransactionalState(t *testing.T) {
	for _, tc := range []struct {
		stateType string
		committed bool
		want      any
	}{
		{"TRANSACTIONAL", false, "PRIORITY_UNSPECIFIED"},
		{"TRANSACTIONAL", true, "PRIORITY_LOW"},
		{"NON_TRANSACTIONAL", false, "PRIORITY_LOW"},
		{"DEFAULT", false, "PRIORITY_LOW"},
	} {
		s := newStore(t, "connection_state_type="+tc.stateType)
		s.BeginTransaction()
		if err := s.Set("rpc_priority", "LOW"); err != nil {
			t.Fatal(err)
		}
		if err := s.Set("my.x", "1"); err != nil {
			t.Fatal(err)
		}
		s.EndTransaction(tc.committed)
		if v := show(t, &s, "rpc_priority"); v != tc.want {
			t.Errorf("%s, committed %v: %v, want %v", tc.stateType, tc.committed, v, tc.want)
		}
		_, err := s.Show("my.x")
		if kept := err == nil; kept != (tc.want == "PRIORITY_LOW") {
			t.Errorf("%s, committed %v: extension variable kept %v", tc.stateType, tc.committed, kept)
		}
	}
}

// TestResetAll: what a user changed does not reach the next user.
func TestResetAll(t *testing.T) {
	s := newStore(t, "statement_tag=dsn")
	_ = s.Set("statement_tag", "mine")
	_ = s.Set("my.x", "1")
	s.SetNextTxn(connstate.TxnOptions{Tag: "t"})
	s.SetNextBatchBound(dsn.Staleness{Kind: dsn.StalenessStrong})
	s.NoteStart()
	s.ResetAll()
	if v := show(t, &s, "statement_tag"); v != "dsn" {
		t.Errorf("statement_tag = %v", v)
	}
	if _, err := s.Show("my.x"); err == nil {
		t.Error("extension variable kept")
	}
	if s.TakeNextTxn() != nil || s.TakeNextBatchBound() != nil {
		t.Error("next-transaction options kept")
	}
	if v := show(t, &s, "commit_response"); v != "" {
		t.Errorf("commit_response = %q, want \"\" (nothing ran)", v)
	}
}

// TestOneShots: tags are spent once; options for the next transaction are
// taken once.
func TestOneShots(t *testing.T) {
	s := newStore(t, "statement_tag=a;transaction_tag=b")
	if s.TakeStatementTag() != "a" || s.TakeStatementTag() != "" {
		t.Error("statement_tag not one-shot")
	}
	if s.TakeTransactionTag() != "b" || s.TakeTransactionTag() != "" {
		t.Error("transaction_tag not one-shot")
	}
	s.SetNextTxn(connstate.TxnOptions{Tag: "x"})
	if o := s.TakeNextTxn(); o == nil || o.Tag != "x" || s.TakeNextTxn() != nil {
		t.Error("next transaction options not one-shot")
	}
}
