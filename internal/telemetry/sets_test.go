package telemetry_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/spannerfast/spannerfast/internal/telemetry"
)

const streamingSQL = "/google.spanner.v1.Spanner/ExecuteStreamingSql"

// aQuery is what a point query asks of telemetry: its operation, its RPC
// attempt (retried once, so that the retries counter is measured too), its
// GFE latency and missing header, its open result and a connection.
func aQuery(tel *telemetry.Telemetry) {
	ctx, op := tel.Start(context.Background(), telemetry.Query, "SELECT 1")
	a := tel.StartRPCAttempt(streamingSQL)
	a.End(ctx, 0, "OK")
	a.EndRPCOperation(ctx, time.Millisecond, 2, 0, "OK")
	g := tel.GFE()
	g.Record(ctx, "ExecuteStreamingSql", time.Millisecond, true)
	g.Record(ctx, "ExecuteStreamingSql", 0, false)
	r := op.RowsOpened()
	op.AddRows(1)
	r.Closed(1, 100)
	op.End(nil)
	c := tel.ConnOpened()
	c.Closed()
}

// TestMeasurementsAllocateNothing: with an SDK MeterProvider listening
// (and no tracer), a query's measurements allocate nothing once their
// attribute sets were built: each set is built once per connector, not
// per measurement. And they are all recorded, with the same attributes a
// set built on the spot has.
func TestMeasurementsAllocateNothing(t *testing.T) {
	tel, reader := measured(t, telemetry.Config{})
	aQuery(tel) // builds the sets
	const runs = 100
	if n := testing.AllocsPerRun(runs, func() { aQuery(tel) }); n != 0 {
		t.Errorf("%.1f allocations per query's measurements, want 0", n)
	}
	ms := collected(t, reader)
	queries := int64(runs + 2) // AllocsPerRun runs once more to warm up
	base := []attribute.KeyValue{telemetry.KeyDBSystemName.String(telemetry.SystemName), telemetry.KeyDBNamespace.String("projects/p/instances/i/databases/d")}
	with := func(extra ...attribute.KeyValue) []attribute.KeyValue {
		return append(append([]attribute.KeyValue(nil), base...), extra...)
	}
	for name, want := range map[string][]attribute.KeyValue{
		telemetry.MetricOperationDuration: with(telemetry.KeyDBOperationName.String("Query")),
		telemetry.MetricReturnedRows:      with(telemetry.KeyDBOperationName.String("Query")),
		telemetry.MetricAttemptDuration:   with(telemetry.KeyRPCMethod.String("ExecuteStreamingSql"), telemetry.KeyRPCGRPCStatus.Int64(0)),
		telemetry.MetricRetries:           with(telemetry.KeyRPCMethod.String("ExecuteStreamingSql"), telemetry.KeyRetryOutcome.String(telemetry.OutcomeSucceeded)),
		telemetry.MetricGFELatency:        with(telemetry.KeyGRPCMethod.String("ExecuteStreamingSql")),
		telemetry.MetricGFEHeaderMissing:  with(telemetry.KeyGRPCMethod.String("ExecuteStreamingSql")),
		telemetry.MetricDecodedBytes:      base,
	} {
		m, ok := ms[name]
		if !ok {
			t.Errorf("%s not recorded", name)
			continue
		}
		points := pointsOf(t, m)
		if len(points) != 1 {
			t.Errorf("%s: %d attribute sets, want 1: %v", name, len(points), points)
		}
		if got := points[attribute.NewSet(want...)]; got != queries && !(name == telemetry.MetricDecodedBytes && got == 100*queries) {
			t.Errorf("%s{%v}: %d, want %d queries' worth (sets: %v)", name, want, got, queries, points)
		}
	}
	for _, name := range []string{telemetry.MetricNativeOperationLatencies, telemetry.MetricNativeAttemptLatencies,
		telemetry.MetricNativeOperationCount, telemetry.MetricNativeAttemptCount} {
		if points := pointsOf(t, ms[name]); len(points) != 1 {
			t.Errorf("%s: %d attribute sets, want 1: %v", name, len(points), points)
		}
	}
}

// TestFailedMeasurementsKeepTheirStatus: the cache keeps a failure's
// measurement apart from the successes of the same operation.
func TestFailedMeasurementsKeepTheirStatus(t *testing.T) {
	tel, reader := measured(t, telemetry.Config{ErrorCode: errorCode})
	for _, err := range []error{nil, codeErr{code: 5, name: "NotFound"}, nil, errors.New("plain")} {
		_, op := tel.Start(context.Background(), telemetry.Query, "")
		op.End(err)
	}
	statuses := map[string]int64{}
	for _, p := range durations(t, reader) {
		v, _ := p.Attributes.Value(telemetry.KeyErrorType)
		statuses[v.AsString()] += int64(p.Count)
	}
	if want := map[string]int64{"": 2, "NotFound": 1, "_OTHER": 1}; len(statuses) != len(want) ||
		statuses[""] != 2 || statuses["NotFound"] != 1 || statuses["_OTHER"] != 1 {
		t.Errorf("durations by error.type %v, want %v", statuses, want)
	}
}

// TestTracedQueryAllocatesWhatTheSDKDoes: with an SDK tracer and meter, a
// query's operation allocates what the SDK itself allocates to start a
// span with its six attributes, end it and record a measurement, plus
// three: the attributes with the query text (the kind's ready-made ones
// and the text, one slice) and db.response.returned_rows, added at the
// end (an interface method's variadic argument, and the SDK growing its
// attribute slice past the six the span started with).
func TestTracedQueryAllocatesWhatTheSDKDoes(t *testing.T) {
	if raceEnabled {
		t.Skip("the SDK's sync.Pool drops objects at random under the race detector")
	}
	tel, _, _ := recorded(t, telemetry.Config{})
	ours := testing.AllocsPerRun(100, func() {
		_, op := tel.Start(context.Background(), telemetry.Query, "SELECT 1")
		op.AddRows(1)
		op.End(nil)
	})

	// The SDK alone, with everything prepared beforehand, on providers
	// like recorded's.
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(tracetest.NewSpanRecorder()))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
	t.Cleanup(func() {
		_ = tp.Shutdown(context.Background())
		_ = mp.Shutdown(context.Background())
	})
	tr := tp.Tracer(telemetry.ScopeName)
	h, err := mp.Meter(telemetry.ScopeName).Float64Histogram(telemetry.MetricOperationDuration)
	if err != nil {
		t.Fatal(err)
	}
	attrs := []attribute.KeyValue{telemetry.KeyDBSystemName.String("gcp.spanner"), telemetry.KeyDBNamespace.String(db),
		telemetry.KeyServerAddress.String("spanner.example"), telemetry.KeyServerPort.Int(443),
		telemetry.KeyDBOperationName.String("Query"), telemetry.KeyDBQueryText.String("SELECT 1")}
	startOpts := []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindClient)}
	recOpts := []metric.RecordOption{metric.WithAttributeSet(attribute.NewSet(attrs[:5]...))}
	sdk := testing.AllocsPerRun(100, func() {
		ctx, s := tr.Start(context.Background(), "q", startOpts...)
		s.SetAttributes(attrs...)
		s.End()
		h.Record(ctx, 1, recOpts...)
	})
	if ours > sdk+3 {
		t.Errorf("a traced query's operation: %.1f allocations, the SDK's own %.1f: more than 3 of ours", ours, sdk)
	}
	t.Logf("a traced query's operation: %.1f allocations, the SDK's own %.1f", ours, sdk)
}

// BenchmarkQueryTelemetry is what a point query asks of telemetry (aQuery)
// with nobody listening (OpenTelemetry's global defaults), with an SDK
// MeterProvider, and with an SDK TracerProvider and MeterProvider (every
// span sampled and recorded, then dropped when it ends: no processor, so
// what is measured is the span's own cost, not an exporter's).
func BenchmarkQueryTelemetry(b *testing.B) {
	b.Run("unheard", func(b *testing.B) {
		tel := telemetry.New(telemetry.Config{Database: db})
		b.ReportAllocs()
		for b.Loop() {
			aQuery(tel)
		}
	})
	b.Run("metrics", func(b *testing.B) {
		mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
		defer mp.Shutdown(context.Background())
		tel := telemetry.New(telemetry.Config{Database: db, MeterProvider: mp})
		b.ReportAllocs()
		for b.Loop() {
			aQuery(tel)
		}
	})
	b.Run("traced", func(b *testing.B) {
		tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.AlwaysSample()))
		mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
		defer tp.Shutdown(context.Background())
		defer mp.Shutdown(context.Background())
		tel := telemetry.New(telemetry.Config{Database: db, TracerProvider: tp, MeterProvider: mp})
		b.ReportAllocs()
		for b.Loop() {
			aQuery(tel)
		}
	})
}
