// Package transport is spannerfast's link to Spanner below database/sql:
// how a request gets to the server and what it carries.
//
// It owns the retry rules for transient failures (RetryDelay, Backoff,
// RetryStoppedError), unary calls with those retries (CallUnary), and the
// client's identity on the wire (Version, the x-goog-api-client header).
//
// It must not know database/sql, statements, transactions, result rows or
// streams of query results: it imports no package of spannerfast above it
// (conn, rows, internal/stream, internal/txn, driver), and the layers above
// decide which failure to retry and when, with the tools found here.
package transport
