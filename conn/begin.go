package conn

import (
	"context"
	"database/sql"
	"database/sql/driver"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/spannerfast/spannerfast/internal/stmtopts"
	txnengine "github.com/spannerfast/spannerfast/internal/txn"
)

// Isolation-level flag bits, go-sql-spanner's: database/sql passes
// TxOptions.Isolation through unchanged, so the bits above the low byte
// carry Spanner-specific transaction options.
const (
	// IsolationDisableRetryAborts turns off the replay of aborted
	// transactions for one transaction (RunTransaction uses it).
	IsolationDisableRetryAborts = 1 << 8
	// IsolationBatchReadOnly asks for a batch read-only transaction
	// (partitioned queries).
	IsolationBatchReadOnly = 2 << 8
)

// beginTx starts a transaction: read-only (multi-use, at
// read_only_staleness) or read-write (at the requested or the connection's
// isolation level). Nothing is sent yet: the first statement begins it.
func (c *Conn) beginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	if next := c.state.TakeNextTxn(); next != nil {
		// Options set for this transaction stand in for the connection's
		// settings while it is set up.
		defer c.state.Overlay(next.Apply)()
	}
	if c.closed {
		return nil, driver.ErrBadConn
	}
	if c.tx != nil {
		return nil, status.Error(codes.FailedPrecondition, "spannerfast: the connection already has a transaction")
	}
	if c.inBatch() {
		return nil, errBatchActive
	}
	flags := opts.Isolation &^ 0xff
	iso, err := stmtopts.IsolationOf(sql.IsolationLevel(opts.Isolation & 0xff))
	if err != nil {
		return nil, err
	}
	// transaction_read_only and transaction_batch_read_only make the
	// connection's transactions read-only (batch read-only) by default, as
	// in go-sql-spanner, which cannot tell TxOptions{} from READ WRITE.
	opts.ReadOnly = opts.ReadOnly || c.props().TransactionReadOnly
	if flags&IsolationBatchReadOnly != 0 || (opts.ReadOnly && c.props().TransactionBatchReadOnly) {
		if !opts.ReadOnly {
			return nil, status.Error(codes.InvalidArgument, "spannerfast: a batch read-only transaction must be read-only")
		}
		return c.beginBatchReadOnly(ctx)
	}
	session, err := c.session(ctx)
	if err != nil {
		return nil, err
	}
	var t *txn
	if opts.ReadOnly {
		if t, err = c.newReadOnly(session); err != nil {
			return nil, err
		}
	} else {
		c.deferReadWrite()
		retry := c.props().RetryAbortsInternally && flags&IsolationDisableRetryAborts == 0
		t = c.newReadWrite(session, iso, retry)
	}
	t.ctx = t.Trace(ctx) // the transaction's span on it: its commit and rollback are children
	c.tx = t
	c.state.BeginTransaction()
	c.state.NoteStart()
	return Tx{c}, nil
}

// Begin starts a read-write transaction.
func (c *Conn) Begin() (driver.Tx, error) {
	return c.BeginTx(context.Background(), driver.TxOptions{})
}

// commit ends the connection's transaction: a read-write one commits
// (replaying first if Spanner aborted it), a read-only one just ends. The
// connection is out of the transaction afterwards, whatever happened.
func (c *Conn) commit(ctx context.Context) (err error) {
	t := c.tx
	if t == nil {
		return status.Error(codes.FailedPrecondition, "spannerfast: the connection has no transaction to commit")
	}
	if c.state.EnforcingFailed() {
		return c.endFailed(ctx)
	}
	if err := c.flushAutoBatchToCommit(ctx, t); err != nil {
		return err
	}
	c.tx = nil
	defer t.EndTrace("commit", &err)
	committed := false
	// SET LOCAL's values come back; a transaction that did not commit
	// takes its property changes with it (connection_state_type).
	defer func() { c.state.EndTransaction(committed) }()
	defer c.leaveReadWrite()
	if t.ctx != nil {
		ctx = t.ctx
	}
	if t.ReadOnly() {
		c.state.NoteRead(t.ReadTimestamp())
		committed = true
		return nil
	}
	cctx, cancel := c.withTxnDeadline(ctx, t) // transaction_timeout bounds the commit
	defer cancel()
	// On the emulator a transaction that only buffered mutations enters
	// the gate here (a statement would have); one that did nothing sends
	// nothing and waits for nothing.
	if t.Started() {
		err = c.sessions.EnterPendingReadWrite(cctx)
	}
	if err == nil {
		var resp *spannerpb.CommitResponse // replayed first if aborted; kept for SHOW VARIABLE
		if resp, err = t.Commit(cctx); err == nil {
			c.noteCommit(resp)
		}
	}
	committed = err == nil
	if err != nil {
		t.RollbackAfterFailure(ctx)
		c.noteUnknownOutcome(err)
	}
	return err
}

// noteUnknownOutcome marks the connection for discarding when a commit or
// rollback left open what the server did (txn.OutcomeUnknown): database/sql
// then drops the connection instead of handing it to the next user.
func (c *Conn) noteUnknownOutcome(err error) {
	c.stateUnknown = c.stateUnknown || txnengine.OutcomeUnknown(err)
}

// rollback ends the connection's transaction without committing.
func (c *Conn) rollback(ctx context.Context) (err error) {
	t := c.tx
	if t == nil {
		return status.Error(codes.FailedPrecondition, "spannerfast: the connection has no transaction to roll back")
	}
	failed := c.state.EnforcingFailed()
	c.tx = nil
	defer t.EndTrace("rollback", &err)
	defer c.state.EndTransaction(false)
	defer c.leaveReadWrite()
	if t.ctx != nil {
		ctx = t.ctx
	}
	// Tx.Rollback has no context, and database/sql calls it when BeginTx's
	// context has ended: the rollback has a bound of its own instead.
	if err = t.RollbackDetached(ctx); err != nil {
		c.noteUnknownOutcome(err)
	}
	if failed {
		return nil // endFailed
	}
	return err
}
