package driver

import (
	"context"
	"database/sql"
	"fmt"
	"runtime/debug"

	"cloud.google.com/go/spanner"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/spannerfast/spannerfast/conn"
	"github.com/spannerfast/spannerfast/dsn"
	"github.com/spannerfast/spannerfast/internal/stmtopts"
	"github.com/spannerfast/spannerfast/internal/telemetry"
	"github.com/spannerfast/spannerfast/internal/transport"
	"github.com/spannerfast/spannerfast/internal/txn"
)

// ErrAbortedDueToConcurrentModification is the error of a read-write
// transaction that Spanner aborted and whose replay saw different data
// (gRPC code ABORTED). The application must run the transaction again;
// RunTransaction does that.
var ErrAbortedDueToConcurrentModification = txn.ErrAbortedDueToConcurrentModification

// ErrCommitOutcomeUnknown is matched (errors.Is) by the error of Commit, an
// autocommit DML statement or Apply when the commit broke off after it was
// sent and may or may not have been applied. Nothing is replayed or retried
// then; check the data before running the work again. The error's gRPC code
// is that of the failure (e.g. INTERNAL), and the connection is discarded.
var ErrCommitOutcomeUnknown = txn.ErrCommitOutcomeUnknown

// CommitOutcomeUnknownError is the type of those errors: Cause is the
// failure after which the commit may have been applied.
type CommitOutcomeUnknownError = txn.CommitOutcomeUnknownError

// StatementError is the error of a string of several statements: which
// statement failed (Index, SQL) and why (Unwrap, its gRPC code).
type StatementError = conn.StatementError

// BatchError is the error of a DML batch in which a statement failed; its
// BatchUpdateCounts hold the update counts of the statements that ran before it.
type BatchError = txn.BatchError

// RetryStoppedError is the error when a context (the caller's, or the one
// statement_timeout or connect_timeout made) ends while a transient failure
// is being retried. Its gRPC code is the context's (DEADLINE_EXCEEDED or
// CANCELED), and errors.Is matches both the context's error and the last
// transient failure.
type RetryStoppedError = transport.RetryStoppedError

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

// PanicError is what RunTransaction and its variants return when the
// function they run panics: the transaction is rolled back and its
// connection goes back to the pool, and the panic becomes this error
// (gRPC code UNKNOWN), as go-sql-spanner turns it into an error too. The
// transaction is not run again.
type PanicError struct {
	// Value is what the function panicked with (a *runtime.PanicNilError
	// for panic(nil)).
	Value any
	// Stack is the panicking goroutine's stack at the recovery.
	Stack []byte
}

func (e *PanicError) Error() string {
	return fmt.Sprintf("spannerfast: the transaction function panicked: %v", e.Value)
}

// GRPCStatus makes status.Code(err) UNKNOWN.
func (e *PanicError) GRPCStatus() *status.Status { return status.New(codes.Unknown, e.Error()) }

// Unwrap returns the panic value when it is an error.
func (e *PanicError) Unwrap() error {
	err, _ := e.Value.(error)
	return err
}

// RunTransaction runs f in a read-write transaction (or read-only, as opts
// says) and commits it. When Spanner aborts the transaction, in f or at
// the commit, the whole function runs again in a new transaction after the
// delay Spanner asked for, until it commits, fails otherwise, or ctx ends.
// The driver's own replay of aborted transactions is off for these
// transactions (f runs again instead), as with go-sql-spanner's
// RunTransaction. f must not commit or roll back tx itself, and must be
// safe to run more than once. When f returns an error or panics the
// transaction is rolled back; a panic comes back as a *PanicError. Each
// abort it retries is reported as an "abort" event (action "retry", with
// the attempt's number) on the span of ctx and a record of the
// connector's logger (docs/observability.md).
func RunTransaction(ctx context.Context, db *sql.DB, opts *sql.TxOptions, f func(ctx context.Context, tx *sql.Tx) error) error {
	_, err := runTransaction(ctx, db, opts, f, conn.TxnOptions{})
	return err
}

// RunTransactionWithOptions is RunTransaction with spannerOptions for every
// attempt (tag, commit options, isolation, ...).
func RunTransactionWithOptions(ctx context.Context, db *sql.DB, opts *sql.TxOptions, f func(ctx context.Context, tx *sql.Tx) error, spannerOptions spanner.TransactionOptions) error {
	_, err := RunTransactionWithCommitResponse(ctx, db, opts, f, spannerOptions)
	return err
}

// RunTransactionWithCommitResponse is RunTransactionWithOptions that also
// returns the commit response (timestamp, and the commit statistics when
// asked for with spannerOptions.CommitOptions.ReturnCommitStats) of the
// attempt that committed. It is nil for a read-only transaction.
func RunTransactionWithCommitResponse(ctx context.Context, db *sql.DB, opts *sql.TxOptions, f func(ctx context.Context, tx *sql.Tx) error, spannerOptions spanner.TransactionOptions) (*spanner.CommitResponse, error) {
	to, err := stmtopts.TxnOptionsOf(spannerOptions)
	if err != nil {
		return nil, err
	}
	return runTransaction(ctx, db, opts, f, to)
}

// runTransaction runs the attempts, each in a transaction with the options
// to. An attempt after an abort begins with BeginTransaction (unless to
// says otherwise), as the official client's retries do, so that its first
// statement runs in a transaction already begun.
func runTransaction(ctx context.Context, db *sql.DB, opts *sql.TxOptions, f func(ctx context.Context, tx *sql.Tx) error, to conn.TxnOptions) (*spanner.CommitResponse, error) {
	var o sql.TxOptions
	if opts != nil {
		o = *opts
	}
	o.Isolation = WithDisableRetryAborts(o.Isolation)
	var resp *spanner.CommitResponse
	var tel *telemetry.Telemetry // the connector's, learnt from an aborted attempt's connection
	attempt := 0
	err := txn.RetryTransaction(ctx, func() *telemetry.Telemetry { return tel }, func() error {
		attempt++
		ao := to
		if attempt > 1 && !o.ReadOnly && ao.BeginOption == "" {
			ao.BeginOption = dsn.BeginTransactionExplicit
		}
		var set func(*conn.Conn) error
		if ao != (conn.TxnOptions{}) {
			set = func(c *conn.Conn) error { return c.SetNextTxnOptions(ao) }
		}
		var err error
		resp, err = runOnce(ctx, db, &o, f, set, &tel)
		return err
	})
	if err != nil {
		return nil, err
	}
	return resp, nil
}

// runOnce is one attempt, on a connection of its own that goes back to db
// whatever f does. When the attempt is aborted and *tel is nil, *tel
// becomes the connection's telemetry, to which the retry is reported.
func runOnce(ctx context.Context, db *sql.DB, opts *sql.TxOptions, f func(ctx context.Context, tx *sql.Tx) error, set func(*conn.Conn) error, tel **telemetry.Telemetry) (resp *spanner.CommitResponse, err error) {
	c, err := db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	defer func() {
		if *tel == nil && txn.IsAborted(err) {
			_ = withConn(c, func(sc *conn.Conn) error { *tel = sc.Telemetry(); return nil })
		}
	}()
	if set != nil {
		if err := withConn(c, func(sc *conn.Conn) error { return set(sc) }); err != nil {
			return nil, err
		}
	}
	tx, err := c.BeginTx(ctx, opts)
	if err != nil {
		return nil, err
	}
	if err := protected(ctx, tx, f); err != nil {
		_ = tx.Rollback()
		return nil, err
	}
	if err := tx.Commit(); err != nil {
		return nil, err
	}
	if opts.ReadOnly {
		return nil, nil
	}
	err = withConn(c, func(sc *conn.Conn) error {
		var err error
		resp, err = sc.CommitResponse()
		return err
	})
	return resp, err
}

// protected runs f and turns a panic in it into a *PanicError, so that the
// caller can roll back and release the connection.
func protected(ctx context.Context, tx *sql.Tx, f func(ctx context.Context, tx *sql.Tx) error) (err error) {
	defer func() {
		if x := recover(); x != nil {
			err = &PanicError{Value: x, Stack: debug.Stack()}
		}
	}()
	return f(ctx, tx)
}

// withConn runs f on the spannerfast connection under c.
func withConn(c *sql.Conn, f func(*conn.Conn) error) error {
	return c.Raw(func(dc any) error {
		sc, ok := dc.(*conn.Conn)
		if !ok {
			return status.Errorf(codes.FailedPrecondition, "spannerfast: this function needs a spannerfast database, got a %T connection", dc)
		}
		return f(sc)
	})
}
