package telemetry

import (
	"context"
	"encoding/hex"
	"log/slog"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
)

// What the driver does on its own after a failure (a retried RPC, a resumed
// stream, an aborted transaction and its replay, a session made again) is
// reported twice, from one description: as an event on the span of the
// context (the statement's or the transaction's) when that span records
// and tracing is on, and as a record of the connector's logger (Config.Logger)
// when it is enabled for the level. With neither, the methods below return
// at their first test and allocate nothing; callers that must compute
// something for them (a gRPC code, a count) ask Reporting first. A nil
// *Telemetry reports nothing.

// Span event names.
const (
	EventRetry  = "retry"  // an RPC failed with a transient error and is sent again
	EventResume = "resume" // a streaming query failed and is resumed
	EventAbort  = "abort"  // Spanner aborted a transaction
	EventReplay = "replay" // an aborted transaction is replayed: started, and its outcome
)

// Attribute keys of the span events and of the log records (the same keys
// in both), besides KeyAttempt (the number of the attempt that failed, from
// 1; for a replay, the replay's number), KeyRPCGRPCStatus (the failure's
// gRPC code) and KeyErrorType (the code's name).
const (
	// KeyRPCMethod is the RPC that failed (OpenTelemetry's rpc.method).
	KeyRPCMethod = attribute.Key("rpc.method")
	// KeyRetryDelay is the wait before the next attempt, in milliseconds.
	KeyRetryDelay = attribute.Key("spanner.retry.delay_ms")
	// KeyResumeToken is the resume token a resumed stream continues
	// after, in hexadecimal; empty when it starts over from the beginning.
	KeyResumeToken = attribute.Key("spanner.resume_token")
	// KeyAbortAction is what follows an abort: AbortReplay, AbortRetry or
	// AbortReturn.
	KeyAbortAction = attribute.Key("spanner.abort.action")
	// KeyReplayOutcome is a replay's ReplayOutcome; KeyReplayStatements
	// the number of statements it runs again.
	KeyReplayOutcome    = attribute.Key("spanner.replay.outcome")
	KeyReplayStatements = attribute.Key("spanner.replay.statements")
	// KeySession is a session's name; KeySessionMultiplexed whether it is
	// multiplexed; KeySessionReason why it was made (SessionReason).
	KeySession            = attribute.Key("spanner.session")
	KeySessionMultiplexed = attribute.Key("spanner.session.multiplexed")
	KeySessionReason      = attribute.Key("spanner.session.reason")
	// KeyErrorMessage is the text of the error that ended a replay
	// (OpenTelemetry's exception.message).
	KeyErrorMessage = attribute.Key("exception.message")
	// KeyPartitionIndex is the partition a Partition span reads: its
	// place in the PartitionQuery answer, from 0.
	KeyPartitionIndex = attribute.Key("spanner.partition.index")
	// KeyPartitionCount is how many partitions a PartitionQuery span's
	// query was split into.
	KeyPartitionCount = attribute.Key("spanner.partition.count")
	// KeyEvent names the event in a log record ("retry", ...).
	KeyEvent = "event"
)

// The levels of the log records. Routine recoveries, which a healthy
// application sees now and then, are Debug; what changes the course of a
// transaction or replaces a session is Info.
const (
	LevelRetry         = slog.LevelDebug // EventRetry
	LevelResume        = slog.LevelDebug // EventResume
	LevelReplayStart   = slog.LevelDebug // a replay starts
	LevelSessionCreate = slog.LevelDebug // a session made for the first time
	LevelAbort         = slog.LevelInfo  // EventAbort
	LevelReplayOutcome = slog.LevelInfo  // a replay's outcome
	LevelSessionRenew  = slog.LevelInfo  // a session made again
)

// Reporting reports whether a report at level would go anywhere: tracing
// is on and ctx's span records, the logger is enabled for level, or a
// meter listens (aborts and replays are counted: clientmetrics.go).
func (t *Telemetry) Reporting(ctx context.Context, level slog.Level) bool {
	return t.describing(ctx, level) || t.Measuring()
}

// describing reports whether a report at level is described somewhere: as
// a span event or a log record.
func (t *Telemetry) describing(ctx context.Context, level slog.Level) bool {
	return t.spanEvents(ctx) || t.Logging(ctx, level)
}

// spanEvents reports whether events go on ctx's span.
func (t *Telemetry) spanEvents(ctx context.Context) bool {
	return t != nil && !t.cfg.DisableTracing && Recording(ctx)
}

// Failure is an attempt that failed and is followed by another.
type Failure struct {
	Method   string        // the RPC that failed ("Commit"); "" for none
	Attempt  int           // the attempt that failed, from 1
	Code     uint32        // its gRPC code
	CodeName string        // the code's name ("Unavailable")
	Delay    time.Duration // the wait before the next attempt
}

func (f *Failure) attrs(extra ...attribute.KeyValue) []attribute.KeyValue {
	a := make([]attribute.KeyValue, 0, 5+len(extra))
	if f.Method != "" {
		a = append(a, KeyRPCMethod.String(f.Method))
	}
	a = append(a,
		KeyAttempt.Int(f.Attempt),
		KeyRPCGRPCStatus.Int64(int64(f.Code)),
		KeyErrorType.String(f.CodeName),
		KeyRetryDelay.Float64(float64(f.Delay)/float64(time.Millisecond)))
	return append(a, extra...)
}

// Retried reports that an RPC failed with a transient error and is sent
// again after f.Delay (event "retry", Debug).
func (t *Telemetry) Retried(ctx context.Context, f Failure) {
	if !t.describing(ctx, LevelRetry) {
		return
	}
	t.report(ctx, LevelRetry, EventRetry, "spannerfast: retrying an RPC after a transient error", f.attrs())
}

// Resumed reports that a streaming query failed with a transient error and
// is resumed after f.Delay from token (nil: from the beginning) (event
// "resume", Debug).
func (t *Telemetry) Resumed(ctx context.Context, f Failure, token []byte) {
	if !t.describing(ctx, LevelResume) {
		return
	}
	t.report(ctx, LevelResume, EventResume, "spannerfast: resuming a streaming query after a transient error",
		f.attrs(KeyResumeToken.String(hex.EncodeToString(token))))
}

// What follows an abort (KeyAbortAction).
const (
	AbortReplay = "replay" // the transaction is replayed (retry_aborts_internally)
	AbortRetry  = "retry"  // work that returned nothing yet is run again whole
	AbortReturn = "return" // the abort goes to the application
)

// Aborted reports that Spanner aborted a transaction and what follows
// (event "abort", Info). f.Attempt counts the aborts of the same work.
func (t *Telemetry) Aborted(ctx context.Context, f Failure, action string) {
	t.countAbort(ctx, action)
	if !t.describing(ctx, LevelAbort) {
		return
	}
	t.report(ctx, LevelAbort, EventAbort, "spannerfast: transaction aborted",
		f.attrs(KeyAbortAction.String(action)))
}

// AbortRetried is Aborted for an abort counted already where it was
// returned: a RunTransaction function's attempt, whose transaction counted
// it with action AbortReturn. It is described (event, record) with action,
// and not counted again, so that the aborts metric counts each ABORTED
// once.
func (t *Telemetry) AbortRetried(ctx context.Context, f Failure, action string) {
	if !t.describing(ctx, LevelAbort) {
		return
	}
	t.report(ctx, LevelAbort, EventAbort, "spannerfast: transaction aborted",
		f.attrs(KeyAbortAction.String(action)))
}

// ReplayOutcome is how a replay ended (KeyReplayOutcome).
type ReplayOutcome string

const (
	ReplayStarted   ReplayOutcome = "started"   // not an outcome: the replay begins
	ReplaySucceeded ReplayOutcome = "succeeded" // every statement gave what it gave the first time
	// ReplayDataChanged: a statement gave something else; the transaction
	// fails with ErrAbortedDueToConcurrentModification.
	ReplayDataChanged ReplayOutcome = "data_changed"
	ReplayAborted     ReplayOutcome = "aborted" // Spanner aborted the replay too: it starts over
	ReplayFailed      ReplayOutcome = "failed"  // another error stopped it
)

// Replay is one replay of an aborted transaction.
type Replay struct {
	Attempt    int // the replay's number for the same abort, from 1
	Statements int // statements it runs again
	Outcome    ReplayOutcome
	Err        error // what stopped it (ReplayDataChanged, ReplayFailed)
}

// Replayed reports a replay's start (Debug) or outcome (Info) (event
// "replay").
func (t *Telemetry) Replayed(ctx context.Context, r Replay) {
	level := LevelReplayOutcome
	if r.Outcome == ReplayStarted {
		level = LevelReplayStart
	} else {
		t.countReplay(ctx, r.Outcome)
	}
	if !t.describing(ctx, level) {
		return
	}
	msg := "spannerfast: replay of an aborted transaction " + string(r.Outcome)
	if r.Outcome == ReplayStarted {
		msg = "spannerfast: replaying an aborted transaction"
	}
	a := []attribute.KeyValue{
		KeyAttempt.Int(r.Attempt),
		KeyReplayStatements.Int(r.Statements),
		KeyReplayOutcome.String(string(r.Outcome)),
	}
	if r.Err != nil {
		a = append(a, KeyErrorMessage.String(t.errorText(r.Err)))
	}
	t.report(ctx, level, EventReplay, msg, a)
}

// SessionReason is why a session was made (KeySessionReason).
type SessionReason string

const (
	SessionFirst    SessionReason = "first"     // none existed yet
	SessionExpired  SessionReason = "expired"   // the old one reached its age limit
	SessionNotFound SessionReason = "not_found" // Spanner no longer knew the old one
)

// SessionCreated logs a new session: Debug the first time, Info when it
// replaces one (recreation). Its span is the CreateSession span the
// transport started, not an event.
func (t *Telemetry) SessionCreated(ctx context.Context, name string, multiplexed bool, reason SessionReason) {
	level, msg := LevelSessionCreate, "spannerfast: session created"
	if reason != SessionFirst {
		level, msg = LevelSessionRenew, "spannerfast: session recreated"
	}
	if !t.Logging(ctx, level) {
		return
	}
	t.cfg.Logger.LogAttrs(ctx, level, msg,
		slog.String(string(KeySession), name),
		slog.Bool(string(KeySessionMultiplexed), multiplexed),
		slog.String(string(KeySessionReason), string(reason)))
}

// report adds the event to ctx's span if it records, and logs it if the
// logger is enabled for level, with the same attributes.
func (t *Telemetry) report(ctx context.Context, level slog.Level, event, msg string, a []attribute.KeyValue) {
	if t.spanEvents(ctx) {
		trace.SpanFromContext(ctx).AddEvent(event, trace.WithAttributes(a...))
	}
	if !t.Logging(ctx, level) {
		return
	}
	attrs := make([]slog.Attr, 0, len(a)+1)
	attrs = append(attrs, slog.String(KeyEvent, event))
	for _, kv := range a {
		attrs = append(attrs, slog.Any(string(kv.Key), kv.Value.AsInterface()))
	}
	t.cfg.Logger.LogAttrs(ctx, level, msg, attrs...)
}
