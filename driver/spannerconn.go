package driver

import (
	"context"
	"time"

	"cloud.google.com/go/spanner"

	"github.com/spannerfast/spannerfast/conn"
)

// SpannerConn is what a spannerfast connection offers beyond database/sql,
// reached through sql.Conn.Raw. The methods have go-sql-spanner's
// signatures, so code written for it changes only the interface it
// asserts:
//
//	err := c.Raw(func(dc any) error {
//		_, err := dc.(spannerdriver.SpannerConn).Apply(ctx, ms)
//		return err
//	})
//
// The value Raw passes is only valid inside the callback.
type SpannerConn interface {
	// Mutations.

	// Apply writes ms atomically in a read-write transaction of its own and
	// returns the commit timestamp. It may only be called outside a
	// transaction (FailedPrecondition otherwise; use BufferWrite there). It
	// honours the ApplyOptions the official client does: ApplyAtLeastOnce
	// (one single-use Commit, no replay protection), Priority,
	// TransactionTag, ApplyCommitOptions (ReturnCommitStats,
	// MaxCommitDelay), ExcludeTxnFromChangeStreams and IsolationLevel.
	// The connection's own transaction settings do not apply to it.
	Apply(ctx context.Context, ms []*spanner.Mutation, opts ...spanner.ApplyOption) (commitTimestamp time.Time, err error)

	// BufferWrite adds ms to the connection's read-write transaction; they
	// are written when it commits. It fails with FailedPrecondition outside
	// a transaction or in a read-only one, and with InvalidArgument naming
	// the table and column when a value cannot be sent (nothing is
	// buffered then).
	BufferWrite(ms []*spanner.Mutation) error

	// CommitTimestamp returns the commit timestamp of the last read-write
	// transaction (explicit, autocommit DML or Apply) committed on the
	// connection, or FailedPrecondition if there is none.
	CommitTimestamp() (commitTimestamp time.Time, err error)

	// CommitResponse returns the commit timestamp and, when requested, the
	// commit statistics of that transaction, or FailedPrecondition if
	// there is none.
	CommitResponse() (commitResponse *spanner.CommitResponse, err error)

	// Batches.
	// (DML/DDL batch methods - StartBatchDML, StartBatchDDL, RunBatch,
	// RunDmlBatch, AbortBatch, InDDLBatch, InDMLBatch - go here, in this
	// one interface.)
}

// *conn.Conn is the driver.Conn that Raw hands to its callback.
var _ SpannerConn = (*conn.Conn)(nil)
