package conn

import (
	"context"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/spannerfast/spannerfast/dsn"
	"github.com/spannerfast/spannerfast/internal/stmtopts"
)

// What a connection's properties do to its open transaction, as
// go-sql-spanner's connection state does it:
//
//   - A transaction takes its options from the connection's properties when
//     its first statement runs, not when it is begun: SET and SET LOCAL of
//     the properties declared as transaction options in package dsn
//     (isolation_level, transaction_tag, read_only_staleness, ...) between
//     BEGIN (or BeginTx) and the first statement shape that transaction
//     (applyToOpenTxn).
//   - After the first statement these options are fixed. A plain SET still
//     changes them for the next transactions; SET LOCAL, which would change
//     nothing, is refused with FailedPrecondition (go-sql-spanner accepts it
//     and ignores it).
//   - transaction_timeout bounds a read-write transaction from its first
//     statement: every later statement and the commit end by then
//     (DeadlineExceeded), as go-sql-spanner bounds them.
//   - connection_state_type=TRANSACTIONAL makes every SET, SET LOCAL and
//     RESET inside a transaction part of it: a commit keeps the changes
//     (SET LOCAL's end with the transaction as always), a rollback (or a
//     failed commit) undoes them all. DEFAULT and NON_TRANSACTIONAL keep
//     them whatever the outcome (GoogleSQL's default in go-sql-spanner).
//     The connection's state (internal/connstate) keeps these rules; the
//     connection tells it when a transaction begins and ends.

// txnDeadline returns the transaction_timeout deadline of the open
// read-write transaction, fixing it when its first statement asks.
func (c *Conn) txnDeadline() (time.Time, bool) {
	t := c.tx
	if t == nil || t.ReadOnly() {
		return time.Time{}, false
	}
	if !t.deadlineFixed {
		t.deadlineFixed = true
		if d := c.props().TransactionTimeout; d > 0 {
			t.deadline = time.Now().Add(d)
		}
	}
	return t.deadline, !t.deadline.IsZero()
}

// withTxnDeadline bounds ctx by t's transaction_timeout deadline, if its
// first statement fixed one (a commit runs after t left c.tx).
func (c *Conn) withTxnDeadline(ctx context.Context, t *txn) (context.Context, context.CancelFunc) {
	if t.deadlineFixed && !t.deadline.IsZero() {
		return context.WithDeadline(ctx, t.deadline)
	}
	return ctx, func() {}
}

// statementDeadline is the earliest of statement_timeout from now and the
// open transaction's deadline.
func (c *Conn) statementDeadline() (time.Time, bool) {
	d, ok := c.txnDeadline()
	if st := c.props().StatementTimeout; st > 0 {
		if s := time.Now().Add(st); !ok || s.Before(d) {
			d, ok = s, true
		}
	}
	return d, ok
}

// shapesOpenTxn reports whether name is an option of the open transaction
// (the property declarations in package dsn say which properties are
// options of which kind of transaction).
func (c *Conn) shapesOpenTxn(name string) bool {
	if c.tx == nil {
		return false
	}
	d, ok := dsn.Declaration(name)
	return ok && ((c.tx.ReadOnly() && d.ReadOnlyTxnOption) || (!c.tx.ReadOnly() && d.ReadWriteTxnOption))
}

// refuseLateLocal refuses SET LOCAL of an option of a transaction that has
// run its first statement: the transaction's options are fixed then, and
// a local value would change nothing.
func (c *Conn) refuseLateLocal(name string) error {
	if c.shapesOpenTxn(name) && (c.tx.Started() || c.tx.deadlineFixed) {
		return status.Errorf(codes.FailedPrecondition,
			"spannerfast: SET LOCAL %s must come before the transaction's first statement: the transaction's options are fixed by then (SET changes it for the next transactions)",
			name)
	}
	return nil
}

// applyToOpenTxn makes a changed property reach the open transaction when
// it has not run its first statement yet.
func (c *Conn) applyToOpenTxn(name string) error {
	t := c.tx
	if t == nil || !c.shapesOpenTxn(name) || t.Started() || t.deadlineFixed || t == c.batchRO {
		return nil
	}
	canonical, _ := dsn.CanonicalName(name)
	switch canonical {
	case "transaction_read_only":
		if c.props().TransactionReadOnly != t.ReadOnly() {
			_, err := c.replaceTxn(t, c.props().TransactionReadOnly)
			return err
		}
	case "read_only_staleness":
		_, err := c.replaceTxn(t, true)
		return err
	case "begin_transaction_option":
		t.Options.Explicit = c.props().BeginTransactionOption == dsn.BeginTransactionExplicit
	case "isolation_level", "default_transaction_isolation":
		iso, err := stmtopts.IsolationOf(c.props().TxnIsolation())
		if err != nil {
			return err
		}
		t.Options.Begin.IsolationLevel = iso
	case "read_lock_mode":
		if rw := t.Options.Begin.GetReadWrite(); rw != nil {
			rw.ReadLockMode = c.props().ReadLockMode.Proto()
		}
	case "retry_aborts_internally":
		t.Options.RetryAborts = c.props().RetryAbortsInternally
	case "exclude_txn_from_change_streams":
		t.Options.Begin.ExcludeTxnFromChangeStreams = c.props().ExcludeTxnFromChangeStreams
	case "transaction_tag":
		// It tags the next read-write transaction: this one.
		t.Options.Tag = c.state.TakeTransactionTag()
	case "commit_priority":
		t.Options.CommitPriority = c.props().CommitPriority.Proto()
	case "max_commit_delay":
		t.Options.CommitDelay = c.props().MaxCommitDelay
	case "return_commit_stats":
		t.Options.CommitStats = c.props().ReturnCommitStats
	}
	return nil
}
