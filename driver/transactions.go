package driver

import (
	"context"
	"database/sql"
	"errors"
	"math/rand/v2"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/spannerfast/spannerfast/conn"
)

// ErrAbortedDueToConcurrentModification is the error of a read-write
// transaction that Spanner aborted and whose replay saw different data
// (gRPC code ABORTED). The application must run the transaction again;
// RunTransaction does that.
var ErrAbortedDueToConcurrentModification = conn.ErrAbortedDueToConcurrentModification

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
	var o sql.TxOptions
	if opts != nil {
		o = *opts
	}
	o.Isolation = WithDisableRetryAborts(o.Isolation)
	for attempt := 0; ; attempt++ {
		err := runOnce(ctx, db, &o, f)
		if status.Code(err) != codes.Aborted || errors.Is(err, context.Canceled) {
			return err
		}
		if err := sleep(ctx, retryAfter(err, attempt)); err != nil {
			return err
		}
	}
}

func runOnce(ctx context.Context, db *sql.DB, opts *sql.TxOptions, f func(ctx context.Context, tx *sql.Tx) error) error {
	tx, err := db.BeginTx(ctx, opts)
	if err != nil {
		return err
	}
	if err := f(ctx, tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	return tx.Commit()
}

// retryAfter is the delay Spanner asked for in an ABORTED error, or an
// exponential backoff with jitter (10 ms doubling, capped at 32 s).
func retryAfter(err error, attempt int) time.Duration {
	if st, ok := status.FromError(err); ok {
		for _, d := range st.Details() {
			if ri, ok := d.(*errdetails.RetryInfo); ok && ri.GetRetryDelay() != nil {
				return ri.GetRetryDelay().AsDuration()
			}
		}
	}
	ceiling := min(10*time.Millisecond<<min(attempt, 12), 32*time.Second)
	return time.Duration(rand.Int64N(int64(ceiling))) + 1
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
