package driver

import (
	"database/sql"

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
