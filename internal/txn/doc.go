// Package txn is spannerfast's transaction engine: what happens between
// the first statement of a Spanner transaction and its commit or rollback.
//
// It owns a transaction's state (Txn: id, read timestamp, sequence
// numbers, the latest precommit token, buffered mutations), how it begins,
// how its statements run (Query, Exec, RunDML), how it ends (Commit,
// CommitOnce, CommitWrites, Rollback), and the answers to an abort.
//
// Transactions begin inline with their first statement (an explicit
// BeginTransaction after that fails, see Txn.run, or with
// Options.Explicit), number their requests, carry the latest precommit
// token to Commit, and, with Options.RetryAborts, are replayed after an
// abort against a log of what each statement returned (replay.go); a replay
// that sees different data fails with ErrAbortedDueToConcurrentModification.
// The rows of a query in a read-write transaction are a *Rows that can
// carry on from a new stream after a replay; their raw values obey the same
// rule as any raw value: valid until the next Next. Work that returned
// nothing to its caller yet is run again whole (RetryAborted,
// RetryTransaction). A Commit is retried only where it cannot have been
// applied; otherwise its error is a *CommitOutcomeUnknownError
// (ErrCommitOutcomeUnknown) and nothing is replayed (commit_outcome.go).
// Savepoints are emulated on the replay log: rolling back to one rolls the
// transaction back and replays the statements before it (savepoint.go).
// Aborts (replayed, retried whole or returned), replays with their outcome
// and retried calls are reported to the host's telemetry
// (internal/telemetry's events, numbered).
//
// It must not know database/sql connections, connection properties or
// statement text beyond what a request carries: the connection (conn)
// decides which transaction to run and with which Options, and gives the
// engine what it needs of it through Host (the transport, statement
// timeouts, rpc_priority, opening a query stream). It imports no package of
// spannerfast above it (conn, driver, internal/connstate).
package txn
