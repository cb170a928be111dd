package conn

import (
	"context"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/spannerfast/spannerfast/dsn"
)

// What a connection's properties do to its open transaction, as
// go-sql-spanner's connection state does it:
//
//   - A transaction takes its options from the connection's properties when
//     its first statement runs, not when it is begun: SET and SET LOCAL of
//     isolation_level, read_lock_mode, retry_aborts_internally,
//     exclude_txn_from_change_streams, transaction_tag, commit_priority,
//     max_commit_delay, return_commit_stats, begin_transaction_option,
//     read_only_staleness (read-only transactions), transaction_read_only
//     and transaction_timeout between BEGIN (or BeginTx) and the first
//     statement shape that transaction (applyToOpenTxn).
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

// connState is the per-connection bookkeeping of the rules above.
type connState struct {
	// deadlineOf is the transaction whose transaction_timeout deadline is
	// deadline (zero: none); set when its first statement runs.
	deadlineOf *txn
	deadline   time.Time

	// snapshotOf is the transaction whose rollback restores cfg and ext
	// (connection_state_type=TRANSACTIONAL); nil when nothing changed.
	snapshotOf *txn
	cfg        *dsn.Config
	ext        map[string]string
}

// transactionalState reports whether property changes in a transaction
// belong to it.
func (c *Conn) transactionalState() bool {
	return c.cfg.ConnectionStateType == dsn.ConnectionStateTransactional
}

// beforeStateChange runs before SET, SET LOCAL or RESET changes anything:
// with transactional connection state, the first change in a transaction
// remembers the properties as they were.
func (c *Conn) beforeStateChange() {
	t := c.tx
	if t == nil || !c.transactionalState() || c.state.snapshotOf == t {
		return
	}
	c.state.snapshotOf, c.state.cfg = t, c.cfg.Clone()
	c.state.ext = nil
	if c.ext != nil {
		c.state.ext = make(map[string]string, len(c.ext))
		for k, v := range c.ext {
			c.state.ext[k] = v
		}
	}
}

// endTransactionState runs when t has ended, after SET LOCAL's values were
// put back: a transaction that did not commit takes its property changes
// with it under transactional connection state.
func (c *Conn) endTransactionState(t *txn, committed bool) {
	if c.state.deadlineOf == t {
		c.state.deadlineOf, c.state.deadline = nil, time.Time{}
	}
	if c.state.snapshotOf != t {
		return
	}
	if !committed {
		c.cfg, c.ext = *c.state.cfg, c.state.ext
	}
	c.state.snapshotOf, c.state.cfg, c.state.ext = nil, nil, nil
}

// txnDeadline returns the transaction_timeout deadline of the open
// read-write transaction, fixing it when its first statement asks.
func (c *Conn) txnDeadline() (time.Time, bool) {
	t := c.tx
	if t == nil || t.readOnly {
		return time.Time{}, false
	}
	if c.state.deadlineOf != t {
		c.state.deadlineOf, c.state.deadline = t, time.Time{}
		if d := c.cfg.TransactionTimeout; d > 0 {
			c.state.deadline = time.Now().Add(d)
		}
	}
	return c.state.deadline, !c.state.deadline.IsZero()
}

// withTxnDeadline bounds ctx by t's transaction_timeout deadline, if its
// first statement fixed one (a commit runs after t left c.tx).
func (c *Conn) withTxnDeadline(ctx context.Context, t *txn) (context.Context, context.CancelFunc) {
	if c.state.deadlineOf == t && !c.state.deadline.IsZero() {
		return context.WithDeadline(ctx, c.state.deadline)
	}
	return ctx, func() {}
}

// statementDeadline is the earliest of statement_timeout from now and the
// open transaction's deadline.
func (c *Conn) statementDeadline() (time.Time, bool) {
	d, ok := c.txnDeadline()
	if st := c.cfg.StatementTimeout; st > 0 {
		if s := time.Now().Add(st); !ok || s.Before(d) {
			d, ok = s, true
		}
	}
	return d, ok
}

// txnOptionProperties are the properties an open transaction takes when its
// first statement runs, by the kind of transaction they shape.
var txnOptionProperties = map[string]struct{ readWrite, readOnly bool }{
	"isolation_level":                 {readWrite: true},
	"read_lock_mode":                  {readWrite: true},
	"retry_aborts_internally":         {readWrite: true},
	"exclude_txn_from_change_streams": {readWrite: true},
	"transaction_tag":                 {readWrite: true},
	"commit_priority":                 {readWrite: true},
	"max_commit_delay":                {readWrite: true},
	"return_commit_stats":             {readWrite: true},
	"transaction_timeout":             {readWrite: true},
	"begin_transaction_option":        {readWrite: true, readOnly: true},
	"transaction_read_only":           {readWrite: true, readOnly: true},
	"read_only_staleness":             {readOnly: true},
}

// shapesOpenTxn reports whether name is an option of the open transaction.
func (c *Conn) shapesOpenTxn(name string) bool {
	if c.tx == nil {
		return false
	}
	canonical, _ := dsn.CanonicalName(name)
	k, ok := txnOptionProperties[canonical]
	return ok && ((c.tx.readOnly && k.readOnly) || (!c.tx.readOnly && k.readWrite))
}

// refuseLateLocal refuses SET LOCAL of an option of a transaction that has
// run its first statement: the transaction's options are fixed then, and
// a local value would change nothing.
func (c *Conn) refuseLateLocal(name string) error {
	if c.shapesOpenTxn(name) && (c.tx.started() || c.state.deadlineOf == c.tx) {
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
	if t == nil || !c.shapesOpenTxn(name) || t.started() || c.state.deadlineOf == t || t == c.batchRO {
		return nil
	}
	canonical, _ := dsn.CanonicalName(name)
	switch canonical {
	case "transaction_read_only":
		if c.cfg.TransactionReadOnly != t.readOnly {
			_, err := c.replaceTxn(t, c.cfg.TransactionReadOnly)
			return err
		}
	case "read_only_staleness":
		_, err := c.replaceTxn(t, true)
		return err
	case "begin_transaction_option":
		t.explicit = c.cfg.BeginTransactionOption == dsn.BeginTransactionExplicit
	case "isolation_level":
		iso, err := isolationFor(c.cfg.IsolationLevel)
		if err != nil {
			return err
		}
		t.opts.IsolationLevel = iso
	case "read_lock_mode":
		if rw := t.opts.GetReadWrite(); rw != nil {
			rw.ReadLockMode = c.cfg.ReadLockMode.Proto()
		}
	case "retry_aborts_internally":
		t.retryAborts = c.cfg.RetryAbortsInternally
	case "exclude_txn_from_change_streams":
		t.opts.ExcludeTxnFromChangeStreams = c.cfg.ExcludeTxnFromChangeStreams
	case "transaction_tag":
		// It tags the next read-write transaction: this one.
		t.tag, c.cfg.TransactionTag = c.cfg.TransactionTag, ""
	case "commit_priority":
		t.priority = c.cfg.CommitPriority.Proto()
	case "max_commit_delay":
		t.commitDelay = c.cfg.MaxCommitDelay
	case "return_commit_stats":
		t.commitStats = c.cfg.ReturnCommitStats
	}
	return nil
}
