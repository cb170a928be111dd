package driver

import (
	"context"
	"database/sql"
	"time"

	"cloud.google.com/go/spanner"
	"cloud.google.com/go/spanner/apiv1/spannerpb"

	"github.com/spannerfast/spannerfast/conn"
	"github.com/spannerfast/spannerfast/internal/txn"
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

	// Batches: the same as the statements START BATCH DDL, START BATCH
	// DML, RUN BATCH and ABORT BATCH, which share their code.

	// StartBatchDDL buffers the DDL that follows until RunBatch sends it
	// in one UpdateDatabaseDdl request.
	StartBatchDDL() error
	// StartBatchDML buffers the DML that follows until RunBatch sends it
	// in one ExecuteBatchDml request.
	StartBatchDML() error
	// RunBatch sends the buffered statements.
	RunBatch(ctx context.Context) error
	// RunDmlBatch sends the buffered DML and returns its counts.
	RunDmlBatch(ctx context.Context) (SpannerResult, error)
	// AbortBatch drops the buffered statements.
	AbortBatch() error
	// InDDLBatch reports whether a DDL batch is active.
	InDDLBatch() bool
	// InDMLBatch reports whether a DML batch is active.
	InDMLBatch() bool
	// GetBatchedStatements returns a copy of the buffered statements.
	GetBatchedStatements() []spanner.Statement

	// Connection properties. Each setter is the statement SET <property>
	// (same validation, same effect inside a transaction, same undo by
	// RESET or when the connection goes back to the pool); each getter
	// reads what SHOW VARIABLE reads.

	AutoBatchDml() bool
	SetAutoBatchDml(autoBatch bool) error
	AutoBatchDmlUpdateCount() int64
	SetAutoBatchDmlUpdateCount(updateCount int64) error
	AutoBatchDmlUpdateCountVerification() bool
	SetAutoBatchDmlUpdateCountVerification(verify bool) error
	RetryAbortsInternally() bool
	SetRetryAbortsInternally(retry bool) error
	AutocommitDMLMode() AutocommitDMLMode
	SetAutocommitDMLMode(mode AutocommitDMLMode) error
	ReadOnlyStaleness() spanner.TimestampBound
	SetReadOnlyStaleness(staleness spanner.TimestampBound) error
	DirectedReadOptions() *spannerpb.DirectedReadOptions
	SetDirectedReadOptions(options *spannerpb.DirectedReadOptions) error
	IsolationLevel() sql.IsolationLevel
	SetIsolationLevel(level sql.IsolationLevel) error
	ReadLockMode() spannerpb.TransactionOptions_ReadWrite_ReadLockMode
	SetReadLockMode(mode spannerpb.TransactionOptions_ReadWrite_ReadLockMode) error
	TransactionTag() string
	SetTransactionTag(transactionTag string) error
	MaxCommitDelay() time.Duration
	SetMaxCommitDelay(delay time.Duration) error
	ExcludeTxnFromChangeStreams() bool
	SetExcludeTxnFromChangeStreams(excludeTxnFromChangeStreams bool) error
	DecodeToNativeArrays() bool
	SetDecodeToNativeArrays(decodeToNativeArrays bool) error

	// ReadOnlyTransactionTimestamp is SHOW VARIABLE read_timestamp: the
	// read timestamp of the last read-only transaction or query.
	ReadOnlyTransactionTimestamp() (readTimestamp time.Time, err error)

	// PostgreSQL's transaction state (docs/postgresql.md#transaction-state).

	// TransactionState is 'I' outside a transaction, 'T' in one and 'E'
	// once a statement in it failed.
	TransactionState() TransactionState
	// InErrorTxBehavior is the rule for statements in a failed
	// transaction (initially InErrorTxBehaviorAllowCommands).
	InErrorTxBehavior() InErrorTxBehavior
	// SetInErrorTxBehavior sets that rule; it outlives the connection's
	// return to the pool.
	SetInErrorTxBehavior(behavior InErrorTxBehavior) error

	// UnderlyingClient returns an official *spanner.Client for the same
	// database on the connector's channel and credentials, made on the
	// first call and closed with the connector (sql.DB.Close). It has
	// sessions of its own: its transactions are not the connection's.
	UnderlyingClient() (client *spanner.Client, err error)
}

// SavepointConn is the Go API of savepoints, reached through sql.Conn.Raw
// as SpannerConn is (*conn.Conn has both). Each method is the statement
// of the same name and runs its code (docs/transactions.md#savepoints):
//
//	err := c.Raw(func(dc any) error {
//		return dc.(spannerdriver.SavepointConn).Savepoint(ctx, "before_items")
//	})
//
// A name here is the savepoint's name itself: it is not unquoted, and in
// PostgreSQL not folded to lower case as a plain identifier in SAVEPOINT is.
type SavepointConn interface {
	// Savepoint sets a savepoint in the connection's transaction
	// (SAVEPOINT name). A newer savepoint of the same name hides the
	// older one until it is released.
	Savepoint(ctx context.Context, name string) error
	// RollbackToSavepoint undoes what the transaction did after the
	// savepoint and keeps it (ROLLBACK TO SAVEPOINT name): the Spanner
	// transaction is rolled back and the statements before the savepoint
	// are replayed in a new one, which fails with
	// ErrAbortedDueToConcurrentModification if they see different data.
	RollbackToSavepoint(ctx context.Context, name string) error
	// ReleaseSavepoint removes the savepoint and the later ones, keeping
	// what the transaction did (RELEASE SAVEPOINT name).
	ReleaseSavepoint(ctx context.Context, name string) error
}

// ErrUnknownSavepoint is matched (errors.Is) by the error of ROLLBACK TO or
// RELEASE of a savepoint the transaction does not have.
var ErrUnknownSavepoint = txn.ErrUnknownSavepoint

// SpannerResult is the result of a DML batch: the total rows affected and
// each statement's count (BatchRowsAffected).
type SpannerResult = conn.SpannerResult

// *conn.Conn is the driver.Conn that Raw hands to its callback.
var (
	_ SpannerConn   = (*conn.Conn)(nil)
	_ SavepointConn = (*conn.Conn)(nil)
)
