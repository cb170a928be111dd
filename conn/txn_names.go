package conn

import (
	txnengine "github.com/spannerfast/spannerfast/internal/txn"
)

// The transaction engine's errors and retry helper under the names conn
// has always exported (driver re-exports them from internal/txn directly).

// ErrAbortedDueToConcurrentModification is txn.ErrAbortedDueToConcurrentModification:
// the error of a transaction whose replay after an abort saw different data.
var ErrAbortedDueToConcurrentModification = txnengine.ErrAbortedDueToConcurrentModification

// ErrCommitOutcomeUnknown is txn.ErrCommitOutcomeUnknown: matched by the
// error of a commit that may or may not have been applied.
var ErrCommitOutcomeUnknown = txnengine.ErrCommitOutcomeUnknown

// CommitOutcomeUnknownError is the error of a Commit whose outcome is
// unknown (txn.CommitOutcomeUnknownError).
type CommitOutcomeUnknownError = txnengine.CommitOutcomeUnknownError

// BatchError is the error of a batch in which a statement failed
// (txn.BatchError): BatchUpdateCounts has the update counts of the
// statements before it.
type BatchError = txnengine.BatchError
