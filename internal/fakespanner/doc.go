// Package fakespanner is a scripted fake Cloud Spanner server: a real gRPC
// server on loopback implementing google.spanner.v1.Spanner, for end-to-end
// tests, property tests, fault-matrix tests and the benchmark tool.
//
// Start(t) runs a server for one test (closed by t.Cleanup); New, Serve,
// Addr and Close run one elsewhere, e.g. in the benchmark tool's separate
// process. Dial returns a plaintext client connection.
//
// # What it implements
//
//   - Sessions: CreateSession (multiplexed when asked), BatchCreateSessions,
//     GetSession, DeleteSession. Requests naming an unknown session fail with
//     NOT_FOUND "Session not found: ..." and a ResourceInfo detail, as
//     Spanner's do; DropSession simulates a session Spanner dropped.
//   - Transactions: BeginTransaction, inline begin (the new id comes back in
//     the first message's metadata), Commit (single-use or by id; NOT_FOUND
//     for an unknown id, FAILED_PRECONDITION for a finished one), Rollback
//     (always OK, like Spanner). Read-write transactions on multiplexed
//     sessions get precommit tokens with increasing seq_num on each query
//     result (on the final message of a stream).
//   - Queries: ExecuteStreamingSql, ExecuteSql and ExecuteBatchDml answer from
//     the Result registered for the exact SQL text with AddResult (or from a
//     SetFallback function). Unknown SQL fails with INVALID_ARGUMENT naming
//     the SQL. "SELECT 1" is pre-registered (Select1); DML gives a DML
//     result with row_count_exact. DialectQuery, which a connector sends
//     on its first connection, is answered GOOGLE_STANDARD_SQL unless a
//     test registers another answer, and kept out of the recording
//     (dialect.go).
//   - Database admin (admin.go): UpdateDatabaseDdl, CreateDatabase and
//     DropDatabase, answered with long-running operations that
//     GetOperation completes (SetOperationPolls); AddDDLError scripts a
//     failing DDL operation. Nothing is applied.
//   - PartitionQuery and partition tokens: see partitions.go.
//   - BatchWrite (batchwrite.go): one response per mutation group, in
//     order, OK unless SetBatchWriteScript says otherwise. Nothing is
//     applied.
//   - Everything else is UNIMPLEMENTED.
//
// # Streams
//
// A Result holds explicit Messages, sent as they are; or Wire, encoded
// messages sent byte for byte (unknown fields, invalid UTF-8 and other shapes
// the proto encoder cannot make); or a whole
// ResultSet that Split cuts into messages: at most MaxValues values or
// about MaxBytes bytes per message, explicit Chunk points inside strings
// and (nested) lists, resume tokens on every message, every Nth or none,
// last on the final message, separate metadata/stats messages, or a random
// mode seeded by an int64. Split is exported and pure; Merge reassembles a
// ResultSet from messages.
//
// Each message's resume token (ResumeToken(i) for Split) identifies its
// position: a request carrying it continues right after that message; an
// unknown token fails with INVALID_ARGUMENT. A resumed stream carries no
// metadata unless Result.ResendMetadata is set.
//
// # Faults
//
// Result.Faults fire at stream positions (before message N, or after the
// last one): a Delay, a Hang until the client cancels (for cancellation
// tests; combined with a position after the last message it tests that a
// client stops at last without waiting for the end of the stream), and an
// Err such as ErrUnavailable, ErrRSTStream (INTERNAL "stream terminated by
// RST_STREAM", which clients retry), ErrAborted or ErrDeadlineExceeded;
// Times limits how often. AddMethodFault does the same for any method at
// its start (e.g. ABORTED from Commit, a slow CreateSession) or, with
// AfterRun, after a unary method ran (a Commit applied whose answer is lost).
//
// # Recording
//
// Every request is recorded with its incoming metadata headers (Requests,
// RequestsFor), including ExecuteSqlRequest params, param_types,
// transaction selector and resume_token. SetRecording(false) stops that for
// long benchmark runs.
//
// SetResponseHeader adds response headers to every answer (Spanner's
// server-timing, for the GFE latency metric).
//
// # Ownership
//
// AddResult copies the Result. Served messages and recorded requests are
// shared, read-only data: callers must not modify what Requests returns.
// Split's output shares unsplit values, metadata and stats with its input.
//
// # Codec
//
// The server decodes requests with gRPC's proto codec. Script messages are
// encoded once, when AddResult compiles them, and sent as those bytes, so
// serving a stream costs no marshalling (the benchmark tool measures clients
// against this server on the same machine). Messages that need a per-call
// change (inline-begin transaction, precommit token, resent metadata) are
// marshalled normally.
package fakespanner
