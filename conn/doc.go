// Package conn is the database/sql connection: Conn routes each parsed
// statement to the executor for its kind, over the connector's
// transport.Client (channels, sessions, retries: internal/transport).
//
// # Conn
//
// A Conn is one database/sql connection; database/sql uses it from one
// goroutine at a time. Every statement is parsed once per connector
// (internal/sqlparse, cached) and dispatched by kind: client-side
// statements through one table of commands and their executors
// (router.go: SET and SHOW in clientstmt.go, BEGIN, COMMIT and ROLLBACK in
// clientstmt_txn.go), DDL (ddl.go), batches (batch.go), partitioned
// reads (partitions.go), and queries and DML, which run in the open
// transaction (txn.go, txn_exec.go) or, outside one, as a single-use
// read-only query or autocommit DML in a read-write transaction of its own
// (dml.go). Mutations (mutations.go) go through the same transaction
// engine. Queries stream
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
// Transactions run in the transaction engine (internal/txn: begin, commit,
// abort replay); conn/txn.go builds them from the connection's properties
// and gives the engine what it needs of the connection (txnHost). A stream
// re-sent after its transaction's id came back selects that id
// (inlineBegin).
package conn
