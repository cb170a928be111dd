package telemetry

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
)

// The driver's own metrics, besides MetricOperationDuration. Each is
// recorded once per event named in its description, never per row, and
// not at all when nobody listens.
const (
	// MetricAttemptDuration is the histogram of each RPC attempt's
	// duration in seconds: a call retried after a transient failure, or a
	// query stream resumed, is several attempts. Its count is the number of
	// attempts.
	MetricAttemptDuration = "spannerfast.rpc.attempt.duration"
	// MetricRetries counts the attempts of an RPC after its first (retries
	// of transient failures and stream resumptions), when the RPC ends,
	// with its outcome.
	MetricRetries = "spannerfast.rpc.retries"
	// MetricAborts counts the ABORTED errors Spanner returned to
	// read-write work, with what the driver did about each
	// (KeyAbortAction).
	MetricAborts = "spannerfast.transaction.aborts"
	// MetricReplays counts the replays of aborted read-write
	// transactions, with their outcome (KeyReplayOutcome).
	MetricReplays = "spannerfast.transaction.replays"
	// MetricReturnedRows is the histogram of the rows each query returned
	// (read before its rows were closed): OpenTelemetry's database client
	// convention.
	MetricReturnedRows = "db.client.response.returned_rows"
	// MetricDecodedBytes counts the bytes of result messages the driver
	// received and decoded.
	MetricDecodedBytes = "spannerfast.response.decoded_bytes"
	// MetricOpenRows is the number of query results (database/sql Rows)
	// open now.
	MetricOpenRows = "spannerfast.rows.open"
	// MetricOpenConnections is the number of driver connections open now.
	MetricOpenConnections = "spannerfast.connections.open"
)

// The official client's built-in ("native") metrics that spannerfast
// produces, with the names and attributes the official client gives them
// in an application's own OpenTelemetry pipeline (the spanner/client/
// namespace). disable_native_metrics turns these off, and only these.
const (
	NativeMetricPrefix             = "spanner/client/"
	MetricNativeOperationLatencies = NativeMetricPrefix + "operation_latencies"
	MetricNativeAttemptLatencies   = NativeMetricPrefix + "attempt_latencies"
	MetricNativeOperationCount     = NativeMetricPrefix + "operation_count"
	MetricNativeAttemptCount       = NativeMetricPrefix + "attempt_count"
	nativeClientNamePrefix         = "spannerfast/"
	nativeDirectPathUsedNo         = "false"
)

// KeyRetryOutcome is how an RPC that was retried ended (MetricRetries):
// OutcomeSucceeded or OutcomeFailed.
const KeyRetryOutcome = attribute.Key("spanner.retry.outcome")

// Attribute keys of the native metrics: the official client's labels.
const (
	KeyNativeMethod            = attribute.Key("method") // Spanner.ExecuteStreamingSql
	KeyNativeStatus            = attribute.Key("status") // the gRPC code's name: OK, Aborted, ...
	KeyNativeProject           = attribute.Key("project_id")
	KeyNativeInstance          = attribute.Key("instance_id")
	KeyNativeDatabase          = attribute.Key("database")
	KeyNativeClientName        = attribute.Key("client_name")
	KeyNativeDirectPathEnabled = attribute.Key("directpath_enabled")
	KeyNativeDirectPathUsed    = attribute.Key("directpath_used")
)

// The outcomes of a retried RPC (KeyRetryOutcome).
const (
	OutcomeSucceeded = "succeeded"
	OutcomeFailed    = "failed"
)

// nativeBuckets are the official client's bucket boundaries of its latency
// histograms, in milliseconds.
var nativeBuckets = []float64{0.0, 0.5, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0,
	11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0,
	25.0, 30.0, 40.0, 50.0, 65.0, 80.0, 100.0, 130.0, 160.0, 200.0, 250.0, 300.0, 400.0, 500.0, 650.0,
	800.0, 1000.0, 2000.0, 5000.0, 10000.0, 20000.0, 50000.0, 100000.0, 200000.0,
	400000.0, 800000.0, 1600000.0, 3200000.0}

// clientInstruments are the instruments of clientmetrics.go on one meter.
// The native ones are nil when disable_native_metrics is set.
type clientInstruments struct {
	attemptDuration metric.Float64Histogram
	retries         metric.Int64Counter
	aborts          metric.Int64Counter
	replays         metric.Int64Counter
	returnedRows    metric.Int64Histogram
	decodedBytes    metric.Int64Counter
	openRows        metric.Int64UpDownCounter
	openConns       metric.Int64UpDownCounter

	native *nativeInstruments
}

type nativeInstruments struct {
	labels []attribute.KeyValue // the client's: project, instance, database, client name
	nativeFour
}

// newClientInstruments makes the instruments on m. An instrument the SDK
// refuses is reported to OpenTelemetry's error handler and replaced by
// m's no-op-equivalent: the SDK returns a usable instrument with the error.
func newClientInstruments(m metric.Meter, cfg *Config) *clientInstruments {
	ci := &clientInstruments{}
	check := func(err error) {
		if err != nil {
			otel.Handle(err)
		}
	}
	var err error
	ci.attemptDuration, err = m.Float64Histogram(MetricAttemptDuration,
		metric.WithDescription("Duration of each RPC attempt, retries and stream resumptions included."),
		metric.WithUnit("s"), metric.WithExplicitBucketBoundaries(durationBuckets...))
	check(err)
	ci.retries, err = m.Int64Counter(MetricRetries,
		metric.WithDescription("Attempts of an RPC after its first (transient failures retried, streams resumed)."),
		metric.WithUnit("{retry}"))
	check(err)
	ci.aborts, err = m.Int64Counter(MetricAborts,
		metric.WithDescription("ABORTED errors Spanner returned to read-write work, by what the driver did about them."),
		metric.WithUnit("{abort}"))
	check(err)
	ci.replays, err = m.Int64Counter(MetricReplays,
		metric.WithDescription("Replays of aborted read-write transactions, by outcome."),
		metric.WithUnit("{replay}"))
	check(err)
	ci.returnedRows, err = m.Int64Histogram(MetricReturnedRows,
		metric.WithDescription("Rows a query returned to the application."),
		metric.WithUnit("{row}"),
		metric.WithExplicitBucketBoundaries(1, 2, 5, 10, 100, 1000, 10000, 100000, 1000000))
	check(err)
	ci.decodedBytes, err = m.Int64Counter(MetricDecodedBytes,
		metric.WithDescription("Bytes of query result messages received and decoded."),
		metric.WithUnit("By"))
	check(err)
	ci.openRows, err = m.Int64UpDownCounter(MetricOpenRows,
		metric.WithDescription("Query results open (not yet closed)."),
		metric.WithUnit("{rows}"))
	check(err)
	ci.openConns, err = m.Int64UpDownCounter(MetricOpenConnections,
		metric.WithDescription("Driver connections open."),
		metric.WithUnit("{connection}"))
	check(err)
	if cfg.DisableNativeMetrics {
		return ci
	}
	project, instance, database := databaseIDs(cfg.Database)
	n := &nativeInstruments{labels: []attribute.KeyValue{
		KeyNativeProject.String(project),
		KeyNativeInstance.String(instance),
		KeyNativeDatabase.String(database),
		KeyNativeClientName.String(nativeClientNamePrefix + cfg.Version),
		KeyNativeDirectPathEnabled.String(strconv.FormatBool(cfg.DirectPathEnabled)),
		KeyNativeDirectPathUsed.String(nativeDirectPathUsedNo),
	}}
	n.nativeFour = newNativeFour(m, NativeMetricPrefix, check)
	ci.native = n
	return ci
}

// client returns the instruments of clientmetrics.go now, nil when nobody
// listens.
func (t *Telemetry) client() *clientInstruments {
	m := t.meter()
	if m == nil {
		return nil
	}
	return m.client
}

// Measuring reports whether anyone listens to metrics now: callers that
// would read a clock or build something for a measurement ask first.
func (t *Telemetry) Measuring() bool { return t.client() != nil }

// RPCAttempt is one RPC attempt being measured; the zero RPCAttempt, which
// StartRPCAttempt returns when nobody listens, records nothing.
type RPCAttempt struct {
	t      *Telemetry
	ci     *clientInstruments // nil: the application's pipeline does not listen
	ex     *nativeFour        // nil: native metrics are not exported (nativeexport.go)
	method string             // the gRPC method, "/google.spanner.v1.Spanner/Commit"
	start  time.Time
}

// StartRPCAttempt starts measuring an attempt of method (the full gRPC
// method name). When nobody listens and nothing is exported it reads no
// clock.
func (t *Telemetry) StartRPCAttempt(method string) RPCAttempt {
	ci, ex := t.client(), t.exporting()
	if ci == nil && ex == nil {
		return RPCAttempt{}
	}
	return RPCAttempt{t: t, ci: ci, ex: ex, method: method, start: time.Now()}
}

// Active reports whether a is measured.
func (a *RPCAttempt) Active() bool { return a.ci != nil || a.ex != nil }

// Start is when the attempt started (zero when not measured).
func (a *RPCAttempt) Start() time.Time { return a.start }

// End records the attempt with its gRPC status code (number and name) and
// returns when it ended (zero when not measured).
func (a *RPCAttempt) End(ctx context.Context, code int64, codeName string) time.Time {
	if !a.Active() {
		return time.Time{}
	}
	now := time.Now()
	d := now.Sub(a.start)
	if a.ci != nil {
		a.ci.attemptDuration.Record(ctx, d.Seconds(),
			a.t.opts(setKey{family: famAttempt, s1: a.method, n: code},
				KeyRPCMethod.String(shortMethod(a.method)), KeyRPCGRPCStatus.Int64(code)).rec...)
		if n := a.ci.native; n != nil && nativeMethod(a.method) {
			n.attempt(ctx, milliseconds(d), n.set(a.t, a.method, codeName))
		}
	}
	if a.ex != nil && nativeMethod(a.method) {
		a.ex.attempt(ctx, milliseconds(d), a.t.exportSet(a.method, codeName))
	}
	return now
}

// EndRPCOperation records an RPC operation that lasted d and took attempts
// attempts, a the last, which ended with code (its number and name): the
// native operation metrics, and the retries beyond the first attempt. It
// does nothing for an RPCAttempt that is not measured.
func (a *RPCAttempt) EndRPCOperation(ctx context.Context, d time.Duration, attempts int, code int64, codeName string) {
	if a.ex != nil && nativeMethod(a.method) {
		a.ex.operation(ctx, milliseconds(d), a.t.exportSet(a.method, codeName))
	}
	if a.ci == nil {
		return
	}
	if attempts > 1 {
		outcome := OutcomeSucceeded
		if code != 0 {
			outcome = OutcomeFailed
		}
		a.ci.retries.Add(ctx, int64(attempts-1),
			a.t.opts(setKey{family: famRetries, s1: a.method, s2: outcome},
				KeyRPCMethod.String(shortMethod(a.method)), KeyRetryOutcome.String(outcome)).add...)
	}
	if n := a.ci.native; n != nil && nativeMethod(a.method) {
		n.operation(ctx, milliseconds(d), n.set(a.t, a.method, codeName))
	}
}

// shortMethod is the method's name alone ("Commit"), as in the span
// events (rpc.method).
func shortMethod(method string) string { return method[strings.LastIndexByte(method, '/')+1:] }

func milliseconds(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// spannerService prefixes the gRPC methods of the Spanner data API: the
// official client records its native metrics for these, not for the
// admin APIs and long-running operations.
const spannerService = "/google.spanner.v1.Spanner/"

func nativeMethod(method string) bool { return strings.HasPrefix(method, spannerService) }

// nativeMethods caches the native method label of each gRPC method
// ("/google.spanner.v1.Spanner/Commit" is "Spanner.Commit").
var nativeMethods sync.Map // string → string

// set is the attribute set of a native measurement of method with status
// codeName: the official client's labels (built once per method and
// status, in t's cache).
func (n *nativeInstruments) set(t *Telemetry, method, codeName string) *measureOpts {
	k := setKey{family: famNative, s1: method, s2: codeName}
	if m := t.sets.sets.Load(); m != nil {
		if o, ok := (*m)[k]; ok {
			return o
		}
	}
	return t.sets.get(k, n.labels, KeyNativeMethod.String(nativeMethodLabel(method)), KeyNativeStatus.String(codeName))
}

// databaseIDs splits "projects/P/instances/I/databases/D"; parts it does
// not find are "".
func databaseIDs(path string) (project, instance, database string) {
	parts := strings.Split(path, "/")
	for i := 0; i+1 < len(parts); i += 2 {
		switch parts[i] {
		case "projects":
			project = parts[i+1]
		case "instances":
			instance = parts[i+1]
		case "databases":
			database = parts[i+1]
		}
	}
	return project, instance, database
}

// countAbort counts an ABORTED error returned to read-write work and what
// the driver did about it (AbortReplay, AbortRetry, AbortReturn).
func (t *Telemetry) countAbort(ctx context.Context, action string) {
	if ci := t.client(); ci != nil {
		ci.aborts.Add(ctx, 1, t.opts(setKey{family: famAbort, s1: action}, KeyAbortAction.String(action)).add...)
	}
}

// countReplay counts a replay of an aborted transaction that ended with
// outcome.
func (t *Telemetry) countReplay(ctx context.Context, outcome ReplayOutcome) {
	if ci := t.client(); ci != nil {
		ci.replays.Add(ctx, 1, t.opts(setKey{family: famReplay, s1: string(outcome)}, KeyReplayOutcome.String(string(outcome))).add...)
	}
}

// OpenRows is a query result counted among the open ones; the zero
// OpenRows, which RowsOpened returns when nobody listens, records
// nothing. Its Closed is recorded on the instruments RowsOpened used, so
// that a provider installed in between leaves no count unbalanced.
type OpenRows struct {
	t  *Telemetry
	ci *clientInstruments
}

// RowsOpened counts the result of op, a query, opened; nothing when
// nobody listens to op.
func (op *Op) RowsOpened() OpenRows { return op.t.RowsOpened() }

// RowsOpened counts a query result opened.
func (t *Telemetry) RowsOpened() OpenRows {
	ci := t.client()
	if ci == nil {
		return OpenRows{}
	}
	ci.openRows.Add(context.Background(), 1, t.opts(setKey{family: famBase}).add...)
	return OpenRows{t: t, ci: ci}
}

// Active reports whether o is counted.
func (o OpenRows) Active() bool { return o.ci != nil }

// Closed counts the result closed, with the rows it returned and the bytes
// of its messages that were decoded.
func (o OpenRows) Closed(rows, bytes int64) {
	if o.ci == nil {
		return
	}
	ctx := context.Background()
	base := o.t.opts(setKey{family: famBase})
	o.ci.openRows.Add(ctx, -1, base.add...)
	o.ci.returnedRows.Record(ctx, rows, o.t.operationOpts(Query).rec...)
	o.ci.decodedBytes.Add(ctx, bytes, base.add...)
}

// OpenConn is a connection counted among the open ones; the zero OpenConn
// records nothing.
type OpenConn struct {
	t  *Telemetry
	ci *clientInstruments
}

// ConnOpened counts a driver connection opened.
func (t *Telemetry) ConnOpened() OpenConn {
	ci := t.client()
	if ci == nil {
		return OpenConn{}
	}
	ci.openConns.Add(context.Background(), 1, t.opts(setKey{family: famBase}).add...)
	return OpenConn{t: t, ci: ci}
}

// Closed counts the connection closed.
func (o OpenConn) Closed() {
	if o.ci != nil {
		o.ci.openConns.Add(context.Background(), -1, o.t.opts(setKey{family: famBase}).add...)
	}
}
