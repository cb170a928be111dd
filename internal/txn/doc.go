// Package txn is spannerfast's transaction engine: what happens between
// the first statement of a Spanner transaction and its commit or rollback.
//
// It owns the rules for ending a transaction safely: a Commit is retried
// only where it cannot have been applied, and any other failure after
// sending is a *CommitOutcomeUnknownError (ErrCommitOutcomeUnknown), which
// no replay or retry follows (commit_outcome.go); an abort is answered by
// running the work again (RetryAborted, RetryOnAbort, IsAborted, abort.go)
// or, for an open transaction, by a replay that fails with
// ErrAbortedDueToConcurrentModification when the data changed.
//
// It must not know database/sql connections, connection properties or
// statement text: the connection (conn) decides which transaction to run
// and with which options, and calls the engine. It imports no package of
// spannerfast above it (conn, driver, internal/connstate).
package txn
