package telemetry_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"
	"go.uber.org/goleak"

	"github.com/spannerfast/spannerfast/internal/telemetry"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// codeErr is an error with a gRPC-like code, named by errorCode.
type codeErr struct {
	code int64
	name string
}

func (e codeErr) Error() string { return "failed: " + e.name }

func errorCode(err error) (int64, string, bool) {
	var c codeErr
	if errors.As(err, &c) {
		return c.code, c.name, true
	}
	return 0, "", false
}

const db = "projects/p/instances/i/databases/d"

// recorded returns a Telemetry on an in-memory span recorder and a manual
// metric reader, with cfg's switches.
func recorded(t *testing.T, cfg telemetry.Config) (*telemetry.Telemetry, *tracetest.SpanRecorder, *sdkmetric.ManualReader) {
	t.Helper()
	sr := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(sr))
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	t.Cleanup(func() {
		_ = tp.Shutdown(context.Background())
		_ = mp.Shutdown(context.Background())
	})
	cfg.TracerProvider, cfg.MeterProvider = tp, mp
	cfg.Database, cfg.ServerAddress, cfg.ServerPort, cfg.ErrorCode = db, "spanner.example", 443, errorCode
	return telemetry.New(cfg), sr, reader
}

func attrs(kvs []attribute.KeyValue) map[attribute.Key]attribute.Value {
	m := map[attribute.Key]attribute.Value{}
	for _, kv := range kvs {
		m[kv.Key] = kv.Value
	}
	return m
}

// durations returns the data points of db.client.operation.duration.
func durations(t *testing.T, r *sdkmetric.ManualReader) []metricdata.HistogramDataPoint[float64] {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := r.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	for _, sm := range rm.ScopeMetrics {
		if sm.Scope.Name != telemetry.ScopeName {
			t.Errorf("scope %q, want %q", sm.Scope.Name, telemetry.ScopeName)
		}
		for _, m := range sm.Metrics {
			if m.Name == telemetry.MetricOperationDuration {
				if m.Unit != "s" {
					t.Errorf("unit %q, want s", m.Unit)
				}
				return m.Data.(metricdata.Histogram[float64]).DataPoints
			}
		}
	}
	return nil
}

func TestSpanAndDurationOfASuccess(t *testing.T) {
	tel, sr, reader := recorded(t, telemetry.Config{Version: "1.2.3"})
	ctx, op := tel.Start(context.Background(), telemetry.Query, "SELECT 1")
	if !trace.SpanFromContext(ctx).SpanContext().IsValid() {
		t.Fatal("the returned context carries no span")
	}
	op.AddRows(2)
	op.AddRows(1)
	op.End(nil)
	op.End(errors.New("ignored: ended twice")) // no second span end, no second measurement

	spans := sr.Ended()
	if len(spans) != 1 {
		t.Fatalf("%d spans, want 1", len(spans))
	}
	s := spans[0]
	if s.Name() != "cloud.google.com/go/spanner.Query" || s.SpanKind() != trace.SpanKindClient {
		t.Errorf("span %q kind %v", s.Name(), s.SpanKind())
	}
	if s.InstrumentationScope().Name != telemetry.ScopeName || s.InstrumentationScope().Version != "1.2.3" {
		t.Errorf("scope %+v", s.InstrumentationScope())
	}
	if s.Status().Code != codes.Unset {
		t.Errorf("status %v, want unset", s.Status())
	}
	a := attrs(s.Attributes())
	want := map[attribute.Key]any{
		"db.system.name": "gcp.spanner", "db.namespace": db, "db.operation.name": "Query",
		"db.query.text": "SELECT 1", "db.response.returned_rows": int64(3),
		"server.address": "spanner.example", "server.port": int64(443),
	}
	for k, v := range want {
		if got := a[k].AsInterface(); got != v {
			t.Errorf("%s = %v, want %v", k, got, v)
		}
	}
	if _, ok := a["error.type"]; ok {
		t.Error("error.type on a success")
	}

	points := durations(t, reader)
	if len(points) != 1 || points[0].Count != 1 {
		t.Fatalf("duration points %+v, want one with one measurement", points)
	}
	p := points[0]
	if v, _ := p.Attributes.Value("db.operation.name"); v.AsString() != "Query" {
		t.Errorf("metric db.operation.name %v", v)
	}
	if v, _ := p.Attributes.Value("db.system.name"); v.AsString() != "gcp.spanner" {
		t.Errorf("metric db.system.name %v", v)
	}
	if p.Attributes.HasValue("error.type") || p.Attributes.HasValue("db.query.text") {
		t.Errorf("metric attributes %v: no error.type on success, never query text", p.Attributes.ToSlice())
	}
	if p.Sum < 0 || p.Sum > 60 {
		t.Errorf("duration %v s", p.Sum)
	}
}

func TestFailureHasErrorStatusAndCode(t *testing.T) {
	tel, sr, reader := recorded(t, telemetry.Config{})
	_, op := tel.Start(context.Background(), telemetry.Commit, "")
	op.End(fmt.Errorf("commit: %w", codeErr{10, "Aborted"}))
	_, other := tel.Start(context.Background(), telemetry.Update, "UPDATE T SET X=1")
	other.End(errors.New("no code"))

	spans := sr.Ended()
	if len(spans) != 2 {
		t.Fatalf("%d spans", len(spans))
	}
	s := spans[0]
	if s.Status().Code != codes.Error || !strings.Contains(s.Status().Description, "Aborted") {
		t.Errorf("status %+v", s.Status())
	}
	a := attrs(s.Attributes())
	if a["error.type"].AsString() != "Aborted" || a["rpc.grpc.status_code"].AsInt64() != 10 || a["db.response.status_code"].AsString() != "Aborted" {
		t.Errorf("attributes %v", s.Attributes())
	}
	if _, ok := a["db.query.text"]; ok {
		t.Error("db.query.text for an operation without text")
	}
	if len(s.Events()) != 1 || s.Events()[0].Name != "exception" {
		t.Errorf("events %v, want the recorded error", s.Events())
	}
	if a := attrs(spans[1].Attributes()); a["error.type"].AsString() != "_OTHER" {
		t.Errorf("error without a code: error.type %v", a["error.type"])
	}

	got := map[string]string{}
	for _, p := range durations(t, reader) {
		op, _ := p.Attributes.Value("db.operation.name")
		et, _ := p.Attributes.Value("error.type")
		got[op.AsString()] = et.AsString()
	}
	if got["Commit"] != "Aborted" || got["Update"] != "_OTHER" {
		t.Errorf("metric error.type per operation %v", got)
	}
}

func TestQueryTextOmitted(t *testing.T) {
	tel, sr, _ := recorded(t, telemetry.Config{OmitQueryText: true})
	_, op := tel.Start(context.Background(), telemetry.Query, "SELECT secret")
	op.End(nil)
	for _, kv := range sr.Ended()[0].Attributes() {
		if kv.Key == telemetry.KeyDBQueryText {
			t.Fatalf("db.query.text %q with OmitQueryText", kv.Value.AsString())
		}
	}
}

func TestDisableTracingStillMeasures(t *testing.T) {
	tel, sr, reader := recorded(t, telemetry.Config{DisableTracing: true})
	ctx, op := tel.Start(context.Background(), telemetry.Query, "SELECT 1")
	if !op.Active() || op.Recording() || trace.SpanFromContext(ctx).SpanContext().IsValid() {
		t.Errorf("active %v recording %v", op.Active(), op.Recording())
	}
	op.End(nil)
	if n := len(sr.Ended()); n != 0 {
		t.Errorf("%d spans with tracing off", n)
	}
	if p := durations(t, reader); len(p) != 1 {
		t.Errorf("duration points %v, want 1", p)
	}
}

func TestChildrenOfAnOpThroughContext(t *testing.T) {
	tel, sr, _ := recorded(t, telemetry.Config{})
	_, tx := tel.Start(context.Background(), telemetry.ReadWriteTransaction, "")
	// A statement of the transaction arrives with a context that does not
	// carry the transaction's span (database/sql gives none).
	_, stmt := tel.Start(tx.Context(context.Background()), telemetry.Update, "UPDATE T SET X=1")
	stmt.End(nil)
	tx.Event("retry", telemetry.KeyAttempt.Int(2))
	tx.End(nil)
	spans := sr.Ended()
	if len(spans) != 2 {
		t.Fatalf("%d spans", len(spans))
	}
	child, parent := spans[0], spans[1]
	if child.Parent().SpanID() != parent.SpanContext().SpanID() || child.SpanContext().TraceID() != parent.SpanContext().TraceID() {
		t.Errorf("statement's parent %v, want the transaction %v", child.Parent().SpanID(), parent.SpanContext().SpanID())
	}
	if ev := parent.Events(); len(ev) != 1 || ev[0].Name != "retry" || attrs(ev[0].Attributes)["spanner.attempt"].AsInt64() != 2 {
		t.Errorf("events %+v", ev)
	}
}

func TestEventOnTheSpanInContext(t *testing.T) {
	tel, sr, _ := recorded(t, telemetry.Config{})
	ctx, op := tel.Start(context.Background(), telemetry.Query, "")
	if !telemetry.Recording(ctx) {
		t.Fatal("Recording is false in an operation's context")
	}
	telemetry.Event(ctx, "resumed", telemetry.KeyAttempt.Int(1))
	op.End(nil)
	if ev := sr.Ended()[0].Events(); len(ev) != 1 || ev[0].Name != "resumed" {
		t.Errorf("events %+v", ev)
	}
}

// TestGlobalProviderInstalledLater: a connector made before the
// application installs its providers uses them from then on.
func TestGlobalProviderInstalledLater(t *testing.T) {
	tel := telemetry.New(telemetry.Config{Database: db})
	_, op := tel.Start(context.Background(), telemetry.Query, "SELECT 1")
	if op.Active() {
		t.Fatal("an operation is active with the global default providers")
	}
	op.End(nil)

	sr := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(sr))
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	prevT, prevM := otel.GetTracerProvider(), otel.GetMeterProvider()
	otel.SetTracerProvider(tp)
	otel.SetMeterProvider(mp)
	t.Cleanup(func() {
		otel.SetTracerProvider(prevT)
		otel.SetMeterProvider(prevM)
		_ = tp.Shutdown(context.Background())
		_ = mp.Shutdown(context.Background())
	})

	_, op = tel.Start(context.Background(), telemetry.Query, "SELECT 1")
	op.End(nil)
	if n := len(sr.Ended()); n != 1 {
		t.Errorf("%d spans after otel.SetTracerProvider, want 1", n)
	}
	if p := durations(t, reader); len(p) != 1 {
		t.Errorf("duration points %v after otel.SetMeterProvider, want 1", p)
	}
}

// TestNobodyListeningAllocatesNothing holds the promise that telemetry
// costs nothing on the hot path when no provider records.
func TestNobodyListeningAllocatesNothing(t *testing.T) {
	cases := map[string]telemetry.Config{
		"global defaults": {},
		"noop providers":  {TracerProvider: tracenoop.NewTracerProvider(), MeterProvider: metricnoop.NewMeterProvider()},
		"tracing off":     {DisableTracing: true},
		"deprecated noop": {TracerProvider: trace.NewNoopTracerProvider(), MeterProvider: metricnoop.NewMeterProvider()},
	}
	for name, cfg := range cases {
		t.Run(name, func(t *testing.T) {
			cfg.Database, cfg.ServerAddress, cfg.ErrorCode = db, "spanner.example", errorCode
			tel := telemetry.New(cfg)
			ctx := context.Background()
			var err error = codeErr{10, "Aborted"} // an error already, as callers have
			n := testing.AllocsPerRun(100, func() {
				c, op := tel.Start(ctx, telemetry.Query, "SELECT 1")
				if op.Active() || c != ctx {
					t.Fatal("an operation is active with nobody listening")
				}
				op.AddRows(5)
				op.SetAttributes(telemetry.KeyRequestTag.String("tag"))
				op.Event("retry", telemetry.KeyAttempt.Int(2))
				telemetry.Event(ctx, "resumed", telemetry.KeyAttempt.Int(1))
				_ = op.Context(ctx)
				op.End(err)
			})
			if n != 0 {
				t.Errorf("%v allocations per operation, want 0", n)
			}
		})
	}
}

func TestNilTelemetryRecordsNothing(t *testing.T) {
	var tel *telemetry.Telemetry
	ctx, op := tel.Start(context.Background(), telemetry.Query, "SELECT 1")
	op.End(nil)
	if op.Active() || ctx != context.Background() || tel.Logger() != nil || tel.Logging(ctx, slog.LevelError) {
		t.Error("a nil Telemetry records")
	}
}

func TestLogger(t *testing.T) {
	var b strings.Builder
	l := slog.New(slog.NewTextHandler(&b, &slog.HandlerOptions{Level: slog.LevelInfo}))
	tel := telemetry.New(telemetry.Config{Logger: l})
	if tel.Logger() != l || !tel.Logging(context.Background(), slog.LevelInfo) || tel.Logging(context.Background(), slog.LevelDebug) {
		t.Error("Logger/Logging do not follow the logger given")
	}
	if telemetry.New(telemetry.Config{}).Logging(context.Background(), slog.LevelError) {
		t.Error("logging without a logger")
	}
}

func TestKindNames(t *testing.T) {
	seen := map[string]bool{}
	for k := telemetry.Query; k <= telemetry.DropDatabase; k++ {
		n := k.String()
		if n == "" || n == "Unknown" || seen[n] {
			t.Errorf("kind %d named %q", k, n)
		}
		seen[n] = true
		if k.SpanName() != telemetry.SpanNamePrefix+n {
			t.Errorf("span name %q", k.SpanName())
		}
	}
	if telemetry.Kind(200).String() != "Unknown" {
		t.Error("an unknown kind has a name")
	}
}

// TestPartitionedUpdateOwnsItsQuery: partitioned DML is one
// PartitionedUpdate span; the query that runs the statement in its
// context starts no Query span (its events go on the PartitionedUpdate
// span), while the other kinds still start theirs.
func TestPartitionedUpdateOwnsItsQuery(t *testing.T) {
	tel, sr, reader := recorded(t, telemetry.Config{})
	ctx, pdml := tel.StartPartitionedUpdate(context.Background(), "UPDATE t SET x = 1 WHERE true", nil)
	qctx, q := tel.Start(ctx, telemetry.Query, "UPDATE t SET x = 1 WHERE true")
	if q.Active() || qctx != ctx {
		t.Fatal("a Query started inside partitioned DML is an operation of its own")
	}
	_, begin := tel.Start(ctx, telemetry.CreateSession, "")
	begin.End(nil)
	pdml.End(nil)
	var names []string
	for _, s := range sr.Ended() {
		names = append(names, s.Name())
	}
	if len(names) != 2 || names[0] != telemetry.CreateSession.SpanName() || names[1] != telemetry.SpanNamePrefix+"PartitionedUpdate" {
		t.Fatalf("spans %v, want CreateSession and PartitionedUpdate", names)
	}
	if a := attrs(sr.Ended()[1].Attributes()); a[telemetry.KeyDBOperationName].AsString() != "PartitionedUpdate" || a[telemetry.KeyDBQueryText].AsString() == "" {
		t.Errorf("PartitionedUpdate attributes %v", a)
	}
	if n := len(durations(t, reader)); n != 2 {
		t.Errorf("%d duration points, want 2 (CreateSession, PartitionedUpdate)", n)
	}
}
