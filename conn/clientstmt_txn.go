package conn

import (
	"context"
	"database/sql/driver"
	"strconv"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/spannerfast/spannerfast/dsn"
	"github.com/spannerfast/spannerfast/internal/sqlparse"
	"github.com/spannerfast/spannerfast/internal/stmtopts"
	txnengine "github.com/spannerfast/spannerfast/internal/txn"
)

// Transaction statements (BEGIN, COMMIT, ROLLBACK, SET TRANSACTION) and the
// SET LOCAL values that last until the open transaction ends; the property
// statements (SET, SHOW, RESET) are in clientstmt.go.

// BEGIN, COMMIT and ROLLBACK are BeginTx, Tx.Commit and Tx.Rollback: the
// same code, so they send the same requests. database/sql does not know
// about a transaction begun with BEGIN, so it must be used on one *sql.Conn;
// the connection cannot go back to the pool until COMMIT or ROLLBACK.

// beginStatement runs BEGIN: BeginTx with the statement's options.
func (c *Conn) beginStatement(ctx context.Context, st statement) error {
	if st.invalid != nil {
		return st.invalid
	}
	o := st.client.Txn
	txo := driver.TxOptions{Isolation: driver.IsolationLevel(stmtopts.IsolationLevelOf(o.Isolation))}
	if o.ReadOnly != nil {
		txo.ReadOnly = *o.ReadOnly
	}
	if _, err := c.BeginTx(ctx, txo); err != nil {
		return err
	}
	// The transaction outlives this statement: the context of COMMIT or
	// ROLLBACK governs its end, not BEGIN's.
	c.tx.ctx = nil
	return c.setTxnLocals(o)
}

// setTxnLocals gives the options BEGIN or SET TRANSACTION said to their
// properties (transaction_read_only, isolation_level,
// transaction_deferrable) until the transaction ends, as go-sql-spanner
// does, so that SHOW (and SHOW TRANSACTION ...) reports the transaction's
// own. The transaction has them already: the local values change nothing
// in it.
func (c *Conn) setTxnLocals(o sqlparse.TxnOptions) error {
	if o.ReadOnly != nil {
		if err := c.setLocalValue("transaction_read_only", strconv.FormatBool(*o.ReadOnly)); err != nil {
			return err
		}
	}
	if o.Isolation != sqlparse.IsolationDefault && !c.tx.ReadOnly() {
		if err := c.setLocalValue("isolation_level", dsn.IsolationLevelName(stmtopts.IsolationLevelOf(o.Isolation))); err != nil {
			return err
		}
	}
	if o.Deferrable != nil {
		return c.setLocalValue("transaction_deferrable", strconv.FormatBool(*o.Deferrable))
	}
	return nil
}

// endStatement runs COMMIT or ROLLBACK.
func (c *Conn) endStatement(ctx context.Context, st statement) error {
	if st.invalid != nil {
		return st.invalid
	}
	var err error
	if st.kind == kindClientCommit {
		err = c.commit(ctx)
	} else {
		err = c.rollback(ctx)
	}
	return err
}

// savepointStatement runs SAVEPOINT, ROLLBACK TO, RELEASE as the Go API does.
func (c *Conn) savepointStatement(ctx context.Context, st statement) error {
	if st.invalid != nil {
		return st.invalid
	}
	return c.savepoint(ctx, txnengine.SavepointCreate+txnengine.SavepointOp(st.client.Command-sqlparse.CmdSavepoint), st.client.Savepoint)
}

// savepoint runs a savepoint command (internal/txn's rules) after sending
// the automatic DML batch, whose statements come before it.
func (c *Conn) savepoint(ctx context.Context, op txnengine.SavepointOp, name string) error {
	err := txnengine.ErrSavepointNeedsTransaction
	if b := c.activeBatch(); b != nil && !b.auto {
		err = txnengine.ErrSavepointInBatch
	} else if c.tx != nil {
		err = c.tx.RunSavepoint(ctx, op, name, txnengine.SavepointRules{Support: txnengine.SavepointSupport(c.props().SavepointSupport),
			IgnoreCase: c.props().DatabaseDialect != dsn.DialectPostgreSQL, Before: c.flushAutoBatch, RolledBack: c.state.RolledBackToSavepoint})
	}
	return c.pgError(err)
}

// setTransaction runs SET TRANSACTION: it changes the open transaction,
// which must not have run a statement yet.
func (c *Conn) setTransaction(st statement) error {
	t := c.tx
	if t == nil {
		return status.Error(codes.FailedPrecondition, "spannerfast: SET TRANSACTION needs an open transaction (BEGIN or BeginTx first)")
	}
	if t.Started() {
		return status.Error(codes.FailedPrecondition, "spannerfast: SET TRANSACTION must come before the transaction's first statement")
	}
	if st.invalid != nil {
		return st.invalid
	}
	o := st.client.Txn
	if o.ReadOnly != nil && *o.ReadOnly != t.ReadOnly() {
		var err error
		if t, err = c.replaceTxn(t, *o.ReadOnly); err != nil {
			return err
		}
	}
	if o.Isolation != sqlparse.IsolationDefault && !t.ReadOnly() {
		iso, err := stmtopts.IsolationOf(stmtopts.IsolationLevelOf(o.Isolation))
		if err != nil {
			return err
		}
		t.Options.Begin.IsolationLevel = iso
	}
	return c.setTxnLocals(o)
}

// replaceTxn swaps a transaction that has not begun for one of the other
// mode, as BeginTx would have made it.
func (c *Conn) replaceTxn(old *txn, readOnly bool) (*txn, error) {
	var t *txn
	if readOnly {
		var err error
		if t, err = c.newReadOnly(old.Session()); err != nil {
			return nil, err
		}
		if !old.ReadOnly() {
			c.leaveReadWrite()
		}
	} else {
		if old.ReadOnly() {
			c.deferReadWrite() // as BeginTx does for a read-write transaction (emulator)
		}
		t = c.newReadWrite(old.Session(), spannerpb.TransactionOptions_ISOLATION_LEVEL_UNSPECIFIED, c.props().RetryAbortsInternally)
	}
	t.ctx = t.Continue(&old.Txn, old.ctx)
	c.tx = t // the same transaction for the connection's state: its SET LOCAL values stay
	return t, nil
}

// setLocal runs SET LOCAL name = value.
func (c *Conn) setLocal(st statement) error {
	cs := st.client
	if c.tx == nil {
		return status.Errorf(codes.FailedPrecondition,
			"spannerfast: SET LOCAL needs an open transaction: %q", cs.Text)
	}
	if st.invalid != nil {
		return st.invalid
	}
	name, value := cs.Name, cs.Value
	if cs.Default {
		// The DSN's value, for this transaction (an extension variable
		// did not exist when the connection was made: it is gone for
		// this transaction).
		return c.resetLocal(name)
	}
	return c.setLocalValue(name, value)
}

// setLocalValue sets name to value until the open transaction ends.
func (c *Conn) setLocalValue(name, value string) error {
	if err := c.refuseLateLocal(name); err != nil {
		return err
	}
	if err := c.state.SetLocal(name, value); err != nil {
		return err
	}
	return c.applyToOpenTxn(name)
}

// resetLocal sets name to the DSN's value until the open transaction ends.
func (c *Conn) resetLocal(name string) error {
	if err := c.refuseLateLocal(name); err != nil {
		return err
	}
	if err := c.state.ResetLocal(name); err != nil {
		return err
	}
	return c.applyToOpenTxn(name)
}

// settleLocals ends the connection state's transaction when the
// connection's transaction is gone without commit or rollback saying so,
// so that SET LOCAL values never outlive it.
func (c *Conn) settleLocals() {
	if c.tx == nil && c.state.InTransaction() {
		c.state.EndTransaction(true)
	}
}
