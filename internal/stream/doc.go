// Package stream is the streaming query engine: it runs one
// ExecuteStreamingSql query as a stream of wire.Frames that rows.Rows
// reads.
//
// It owns:
//
//   - opening the call (stream.go): each attempt on the next channel the
//     caller's Channels hands out, with a raw-frame codec, and the first
//     frames in the query's own allocation (frameSlab);
//   - resumption (resume.go): a frame is handed out only once a resume
//     token covers it or the stream ended; on a transient failure the
//     uncovered frames are dropped and the query restarts from the last
//     token, so no row is lost or repeated. Past maxBuffered bytes without a
//     token the stream gives resumability up until the next token. Opening,
//     a failure before the first response and one midway are retried alike;
//     the wait grows until an attempt makes progress;
//   - the end after a message marked last: the rows are complete at once
//     and the connection's drainer goroutine reads the call's status
//     (drainAfterLast, drain.go), so the call ends normally on the server
//     instead of cancelled;
//   - the call's cancellable context and its reuse by the connection's next
//     query with the same caller context (streamctx.go, ContextPool), which
//     saves about five allocations per query.
//
// What it must not know, and takes from its caller instead:
//
//   - transactions: a request that begins one inline is followed by the
//     caller's Reselector, which is told the new transaction's id and
//     chooses the selector of a request sent again (conn's inlineBegin);
//   - the retry policy: which failures are transient, how long to wait, the
//     error when the context ends first, and reporting a resumption (with
//     the resume token it continues after) (Backoff; conn hands it
//     internal/transport's);
//   - the transport, sessions and metadata: the caller gives the channels
//     and puts the session's metadata on the context Query.Prepare returns;
//   - database/sql and connections: a connection holds a ContextPool and
//     decides which request to send with which rows.Options.
//
// It imports decode, rows and internal/wire of this module, and no package
// above them (not internal/transport, not conn).
//
// A Query is used by one goroutine (the consumer, or rows' read-ahead
// goroutine) except for Cancel, which any goroutine may call; the context
// hand-over between a query that ends, one that is cancelled and the next
// query of the connection is decided by one atomic state per query.
package stream
