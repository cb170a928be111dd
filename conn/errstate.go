package conn

import (
	"context"
	"database/sql/driver"
	"io"
	"time"

	"cloud.google.com/go/spanner"

	"github.com/spannerfast/spannerfast/dsn"
	"github.com/spannerfast/spannerfast/internal/connstate"
	"github.com/spannerfast/spannerfast/internal/pgerror"
)

// Errors on their way out: a statement's error (its rows' too) marks the
// open transaction failed (TransactionState 'E'), which under
// InErrorTxBehaviorEnforceInErrorState refuses all but COMMIT and ROLLBACK
// (readyToRun) and makes COMMIT roll back; on a PostgreSQL-dialect database
// every error returned carries its SQLSTATE (internal/pgerror). Only error
// paths come here.

// TransactionState reports whether the connection has a transaction open
// and whether a statement in it failed.
func (c *Conn) TransactionState() connstate.TransactionState { return c.state.TransactionState() }

// InErrorTxBehavior returns the connection's rule for statements in a
// failed transaction (initially InErrorTxBehaviorAllowCommands).
func (c *Conn) InErrorTxBehavior() connstate.InErrorTxBehavior { return c.state.InErrorTxBehavior() }

// SetInErrorTxBehavior sets the connection's rule for statements in a
// failed transaction; the connection keeps it when it goes back to the
// pool, as go-sql-spanner's does.
func (c *Conn) SetInErrorTxBehavior(b connstate.InErrorTxBehavior) error {
	return c.state.SetInErrorTxBehavior(b)
}

// statementFailed is the error of a statement on its way to the
// application (inlined: nil costs a comparison).
func (c *Conn) statementFailed(err error) error {
	if err == nil {
		return nil
	}
	return c.noteFailed(err)
}

func (c *Conn) noteFailed(err error) error {
	switch err {
	case io.EOF, driver.ErrBadConn, driver.ErrSkip:
		return err
	}
	c.state.NoteStatementFailed()
	return c.pgError(err)
}

// pgError gives err its SQLSTATE on a PostgreSQL-dialect database (the
// dialect the connection learnt when it opened: SetDatabase).
func (c *Conn) pgError(err error) error {
	if err == nil {
		return nil
	}
	return c.withSQLState(err)
}

func (c *Conn) withSQLState(err error) error {
	if c.props().DatabaseDialect != dsn.DialectPostgreSQL {
		return err
	}
	return pgerror.Enrich(err)
}

// runnable refuses a statement of a failed transaction under
// InErrorTxBehaviorEnforceInErrorState, unless it ends the transaction.
func (c *Conn) runnable(st statement) error {
	return c.state.CheckRunnable(st.kind == kindClientCommit || st.kind == kindClientRollback)
}

// endFailed ends a failed transaction under
// InErrorTxBehaviorEnforceInErrorState, for COMMIT and ROLLBACK alike: it
// is rolled back and the end succeeds, as in PostgreSQL.
func (c *Conn) endFailed(ctx context.Context) error {
	_ = c.rollback(ctx) // what failed was reported already
	return nil
}

// rowsErrors is the connection as the rows.ErrorHook of its statements'
// rows (rowsOptions): the error that ends them is a statement's error.
type rowsErrors Conn

func (h *rowsErrors) RowsError(err error) error { return (*Conn)(h).statementFailed(err) }

// BeginTx starts a transaction (beginTx) with the connection's error
// rules.
func (c *Conn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	tx, err := c.beginTx(ctx, opts)
	return tx, c.pgError(err)
}

// Apply writes ms outside a transaction (apply).
func (c *Conn) Apply(ctx context.Context, ms []*spanner.Mutation, opts ...spanner.ApplyOption) (commitTimestamp time.Time, err error) {
	ts, err := c.apply(ctx, ms, opts...)
	return ts, c.pgError(err)
}

// BufferWrite adds ms to the open read-write transaction (bufferWrite); it
// is one of the transaction's statements.
func (c *Conn) BufferWrite(ms []*spanner.Mutation) error {
	if err := c.state.CheckRunnable(false); err != nil {
		return c.pgError(err)
	}
	return c.statementFailed(c.bufferWrite(ms))
}
