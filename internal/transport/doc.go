// Package transport is spannerfast's link to Spanner below database/sql:
// the per-connector Client (gRPC channels, credentials, the multiplexed
// session, request metadata, admin calls and long-running operations, the
// official client), each connection's SessionLease, and the retry rules
// for transient failures.
//
// It must not know database/sql, statements, transactions, result rows or
// the streams of query results. It imports no package of spannerfast above
// it (conn, rows, internal/stream, internal/txn, driver); those layers
// open their streams on Channel with SessionContext or StreamContext, make
// unary calls through CallUnary, and decide for themselves which failures
// to retry (with Backoff) and when.
//
// # Client
//
// One Client exists per connector (per DSN in database/sql). It owns:
//
//   - num_channels gRPC channels (default 4), each dialled by Google's
//     dialer (google.golang.org/api/transport/grpc) with the official
//     client's options (dial.go), handed out round-robin by Channel (for
//     streams, e.g. with a custom codec) and Spanner (unary stubs), a
//     channel in TRANSIENT_FAILURE passed over until it connects again
//     (health.go). NewClient makes no RPC.
//   - ONE multiplexed session (CreateSession with Session.Multiplexed), made
//     lazily by the first Session call and shared by every connection
//     (on the emulator each connection has its own: see below). If
//     creation fails, waiting callers get the error and the next caller
//     retries. database_role becomes Session.CreatorRole; connect_timeout
//     (default 10s) bounds the creation, and an endpoint not reached by
//     then is an *UnreachableError, UNAVAILABLE naming it (connect.go).
//     min_sessions / max_sessions have no effect.
//   - The shared start-up steps (shared_step.go: the session, the
//     dialect question, the emulator set-up), which run on a context of
//     their own so that no caller's deadline ends them for the others.
//
// Retries: transient failures (UNAVAILABLE, the INTERNAL transport errors
// listed in retry.go, RESOURCE_EXHAUSTED with a RetryInfo delay: see
// RetryDelay) are retried, whether CreateSession fails, a unary call fails
// (CallUnary, at most MaxUnaryAttempts times), a query stream fails to
// open or before its first response, or a stream breaks midway (it resumes
// from the last resume token). The wait (Backoff) is exponential from
// 20 ms (x1.3, at most 32 s) with full jitter, or the server's RetryInfo
// delay, and starts over after a response with a new resume token. Only
// the context bounds this: the caller's, statement_timeout for queries,
// DML and commits, connect_timeout for session creation. When it ends, the
// error is a *RetryStoppedError with the context's code (DEADLINE_EXCEEDED,
// as the official client reports, or CANCELED) that unwraps to the last
// transient failure. Each wait is reported before it starts (Backoff's
// Report: a "retry", "resume" or "abort" event and log record, numbered,
// see internal/telemetry); session creation is a CreateSession span and
// its session a log record (made, or made again after it expired or was
// lost). Other errors are returned at once with their gRPC
// code. A session creation in progress is shared with its waiters, retries
// included, so they never see a failure that is still being retried; a
// waiter whose own context ends gets a *RetryStoppedError naming the
// step and its latest transient failure.
//
// Every request must carry the metadata from Context (database routing),
// SessionContext or StreamContext (session routing), or AdminContext
// (admin calls): google-cloud-resource-prefix, x-goog-request-params,
// x-goog-api-client (gl-go/, gccl/ with spannerfast's version, grpc/; see
// APIClientHeader) and, for read-write work unless disable_route_to_leader
// is set, x-goog-spanner-route-to-leader: true. enable_end_to_end_tracing
// adds x-goog-spanner-end-to-end-tracing: true.
//
// Each channel's interceptors (requestid.go) add what differs per RPC:
// x-goog-spanner-request-id in the official client's format (a retry or
// resumption is the same request with the next attempt number: a
// streaming query's MDContext counts them, RetryContext continues a failed
// unary attempt's request), the id on a failure (*RequestIDError, also
// for a stream's final error through Backoff.Final and Backoff.Wait) and on
// the operation's span, and, through internal/telemetry (servertiming.go),
// the trace context of a recording span with enable_end_to_end_tracing and
// the GFE latency of the server-timing header when a meter listens.
//
// Endpoint and security: the DSN's HOST[:PORT] or endpoint=, else
// SPANNER_EMULATOR_HOST (plain text), else localhost:9010 with
// auto_config_emulator, else the dialer's default (spanner.googleapis.com,
// or the universe domain's or mTLS endpoint). use_plain_text,
// auto_config_emulator and SPANNER_EMULATOR_HOST give an insecure channel
// without credentials, as the official client dials the emulator;
// is_experimental_host with ca_cert_file gives TLS with that CA (and the
// client certificate of client_cert_file and client_cert_key) and no
// credentials; otherwise the dialer's TLS and credentials: credentials
// (file) or credentials_json parsed in NewClient, else Application Default
// Credentials (read by the dialer when in a file, else looked up on the
// first RPC: credentials.go). GOOGLE_SPANNER_ENABLE_DIRECT_ACCESS turns
// DirectPath on, compression=GZIP gzip. authority= sets the :authority and
// TLS server name. docs/transport.md has the whole story.
//
// auto_config_emulator=true also creates the instance (config
// emulator-config, 1 node) and the database before the first session if
// they do not exist (EnsureEmulator), using the client's own channel and
// polling the long-running operations (AwaitOperation). A server without
// the instance admin API answers Unimplemented and that step is skipped:
// this is the case for spannertest, which has no instance admin service
// (its GetDatabase reports every database as existing, so nothing is
// created there).
//
// The database's dialect: DialectConfig returns the configuration with
// database_dialect in effect, learned once per Client through a function
// the connection layer gives it (the query is theirs) unless the DSN gives
// it; concurrent first callers share one detection, and a failure is not
// kept.
//
// Official returns an official *spanner.Client on the connector's first
// channel, made on first use and closed with the Client.
//
// # On the emulator
//
// The Cloud Spanner emulator runs one read-write transaction per database
// at a time (a newcomer, or now and then the holder, is aborted) and lets a
// new transaction on a session end the one before it, multiplexed sessions
// included. When the client is on the emulator (auto_config_emulator, or
// the endpoint came from SPANNER_EMULATOR_HOST), each connection's
// SessionLease therefore hands out a regular session of its own (created
// on first use, deleted when the connection closes) instead of the
// multiplexed one, and the read-write work of the process (read-write
// transactions from their first statement to the end, autocommit and
// partitioned DML, Apply, DDL: the connection calls EnterReadWrite, or
// DeferReadWrite at BeginTx, and LeaveReadWrite around it) passes a per-database gate one at a time. A waiter goes ahead
// without the gate when the holder has started nothing for half a second
// (a goroutine holding one transaction while it waits for another),
// leaving the rest to the emulator's aborts and the replay. emulator.go
// has the emulator's exact behaviour; against Spanner none of this runs.
//
// Close closes the channels; the Client is closed by its connector's Close
// (sql.DB.Close). Connections never close it.
//
// Ownership: Config returns the Client's own copy of the configuration,
// shared read-only by all connections. The metadata maps attached by
// Context and SessionContext are shared and must not be modified (gRPC
// only reads them; metadata.FromOutgoingContext returns copies). The Client
// holds no buffers that alias received data.
package transport
