// Package conn is the database/sql connection: Conn routes each parsed
// statement to the executor for its kind, over the connector's
// transport.Client (channels, sessions, retries: internal/transport).
//
// # Conn
//
// A Conn is one database/sql connection; database/sql uses it from one
// goroutine at a time. Every statement is parsed once per connector
// (internal/sqlparse, cached) and dispatched by kind: client-side
// statements (clientstmt.go), DDL (ddl.go), batches (batch.go), partitioned
// reads (partitions.go), and queries and DML, which run in the open
// transaction (txn*.go) or, outside one, as a single-use read-only query or
// autocommit DML in a read-write transaction of its own (dml.go). Mutations
// (mutations.go) go through the same transaction code. Queries stream
// through internal/stream (the engine: open, resume, drain, context reuse);
// conn chooses the request and the rows.Options and hands the engine the
// connection's ContextPool, the retry policy and, for a request that begins
// a transaction inline, its Reselector (stream.go). Arguments are encoded
// by internal/params.
//
// Per-connection state (the settings SET changes, the open transaction,
// an open batch, SET LOCAL values, what SHOW VARIABLE commit_timestamp /
// read_timestamp report) belongs to the user holding the connection:
// ResetSession puts it back to the DSN's values before database/sql hands
// the connection to anyone else, rolling back an open transaction, and
// IsValid keeps a connection with an open transaction, or one whose last
// commit or rollback broke off, out of the pool. Options passed among a
// statement's arguments (QueryOptions) belong to that statement only
// (their values: internal/stmtopts; their scope: stmtopts.go).
//
// Transactions begin inline with their first statement (explicit
// BeginTransaction after that fails, see txn.run, or with
// begin_transaction_option=EXPLICIT),
// number their requests, carry the latest precommit token to Commit, and,
// with retry_aborts_internally, are replayed after an abort against a log
// of what each statement returned (txn_replay.go). A stream re-sent after
// its transaction's id came back selects that id (inlineBegin). A
// Commit is retried only where it cannot have been applied; otherwise its
// error is a *CommitOutcomeUnknownError and nothing is replayed
// (commit_outcome.go). The rows of a query in
// a read-write transaction are a txnRows that can carry on from a new
// stream after a replay; their raw values obey the same rule as any raw
// value: valid until the next Next.
package conn
