package driver

import (
	"context"
	"database/sql"

	"github.com/spannerfast/spannerfast/conn"
)

// ErrAbortedDueToConcurrentModification is the error of a read-write
// transaction that Spanner aborted and whose replay saw different data
// (gRPC code ABORTED). The application must run the transaction again;
// RunTransaction does that.
var ErrAbortedDueToConcurrentModification = conn.ErrAbortedDueToConcurrentModification

// StatementError is the error of a string of several statements: which
// statement failed (Index, SQL) and why (Unwrap, its gRPC code).
type StatementError = conn.StatementError

// BatchError is the error of a DML batch in which a statement failed; its
// Counts hold the update counts of the statements that ran before it.
type BatchError = conn.BatchError

// WithDisableRetryAborts returns an isolation level for sql.TxOptions that
// keeps level and turns off the internal replay of aborted transactions
// for that one transaction (go-sql-spanner's flag bits, so code written for
// it works unchanged).
func WithDisableRetryAborts(level sql.IsolationLevel) sql.IsolationLevel {
	return sql.IsolationLevel(conn.IsolationDisableRetryAborts) + level
}

// WithBatchReadOnly returns an isolation level for a read-only
// sql.TxOptions that asks for a batch read-only transaction.
func WithBatchReadOnly(level sql.IsolationLevel) sql.IsolationLevel {
	return sql.IsolationLevel(conn.IsolationBatchReadOnly) + level
}

// RunTransaction runs f in a read-write transaction (or read-only, as opts
// says) and commits it. When Spanner aborts the transaction, in f or at
// the commit, the whole function runs again in a new transaction after the
// delay Spanner asked for, until it commits, fails otherwise, or ctx ends.
// The driver's own replay of aborted transactions is off for these
// transactions (f runs again instead), as with go-sql-spanner's
// RunTransaction. f must not commit or roll back tx itself, and must be
// safe to run more than once.
func RunTransaction(ctx context.Context, db *sql.DB, opts *sql.TxOptions, f func(ctx context.Context, tx *sql.Tx) error) error {
	return runTransaction(ctx, db, opts, f, func(o *sql.TxOptions) (*sql.Tx, error) { return db.BeginTx(ctx, o) })
}

// runTransaction is RunTransaction with begin starting each attempt's
// transaction (RunTransactionWithOptions sets options there).
func runTransaction(ctx context.Context, db *sql.DB, opts *sql.TxOptions, f func(ctx context.Context, tx *sql.Tx) error, begin func(*sql.TxOptions) (*sql.Tx, error)) error {
	var o sql.TxOptions
	if opts != nil {
		o = *opts
	}
	o.Isolation = WithDisableRetryAborts(o.Isolation)
	return conn.RetryOnAbort(ctx, func() error { return runOnce(ctx, &o, f, begin) })
}

func runOnce(ctx context.Context, opts *sql.TxOptions, f func(ctx context.Context, tx *sql.Tx) error, begin func(*sql.TxOptions) (*sql.Tx, error)) error {
	tx, err := begin(opts)
	if err != nil {
		return err
	}
	if err := f(ctx, tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	return tx.Commit()
}
