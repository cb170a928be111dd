package e2e

import (
	"context"
	"database/sql"
	"testing"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"google.golang.org/grpc/metadata"

	"github.com/spannerfast/spannerfast/driver"
	"github.com/spannerfast/spannerfast/dsn"
	"github.com/spannerfast/spannerfast/internal/fakespanner"
)

// openFakeWith opens the fake server through driver.NewConnector with
// connector options (providers given in code).
func openFakeWith(t *testing.T, s *fakespanner.Server, opts []driver.ConnectorOption, props ...string) *sql.DB {
	t.Helper()
	cfg, err := dsn.Parse(fakeDSN(s, props...))
	if err != nil {
		t.Fatal(err)
	}
	c, err := driver.NewConnector(cfg, opts...)
	if err != nil {
		t.Fatal(err)
	}
	db := sql.OpenDB(c)
	t.Cleanup(func() { db.Close() })
	return db
}

// sdkTracing is an SDK tracer provider recording every span in memory.
func sdkTracing(t *testing.T, sampler sdktrace.Sampler) (*sdktrace.TracerProvider, *tracetest.SpanRecorder) {
	sr := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(sr), sdktrace.WithSampler(sampler))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	return tp, sr
}

// TestEndToEndTracingSendsTraceContext: with enable_end_to_end_tracing and
// a recording span in the statement's context, each RPC carries that
// span's trace context (W3C traceparent) beside
// x-goog-spanner-end-to-end-tracing; without the property, or without a
// recording span (none, or one not sampled), no traceparent is sent.
func TestEndToEndTracingSendsTraceContext(t *testing.T) {
	s := fakespanner.Start(t)
	s.AddResult(pointQuery, pointResult())
	tp, _ := sdkTracing(t, sdktrace.AlwaysSample())
	unsampled, _ := sdkTracing(t, sdktrace.NeverSample())
	on := openFake(t, s, "enable_end_to_end_tracing=true")
	off := openFake(t, s)

	query := func(db *sql.DB, ctx context.Context) metadata.MD {
		t.Helper()
		s.ResetRequests()
		if _, _, err := readCanon(ctx, db, pointQuery); err != nil {
			t.Fatal(err)
		}
		reqs := s.RequestsFor("ExecuteStreamingSql")
		if len(reqs) != 1 {
			t.Fatalf("%d streaming requests", len(reqs))
		}
		return reqs[0].Header
	}

	ctx, span := tp.Tracer("app").Start(context.Background(), "request")
	h := query(on, ctx)
	want := "00-" + span.SpanContext().TraceID().String() + "-" + span.SpanContext().SpanID().String() + "-01"
	if got := h.Get("traceparent"); len(got) != 1 || got[0] != want {
		t.Errorf("traceparent %q, want %q (the recording span's)", got, want)
	}
	if got := h.Get("x-goog-spanner-end-to-end-tracing"); len(got) != 1 || got[0] != "true" {
		t.Errorf("x-goog-spanner-end-to-end-tracing %q", got)
	}
	span.End()

	// The application's own propagator, when it set one, is used.
	otel.SetTextMapPropagator(propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{}))
	t.Cleanup(func() { otel.SetTextMapPropagator(propagation.NewCompositeTextMapPropagator()) })
	ctx, span = tp.Tracer("app").Start(context.Background(), "request")
	if got := query(on, ctx).Get("traceparent"); len(got) != 1 || got[0] == want {
		t.Errorf("traceparent %q with the global propagator, want the new span's", got)
	}

	for name, c := range map[string]struct {
		db  *sql.DB
		ctx context.Context
	}{
		"property off, recording span": {off, ctx},
		"no span":                      {on, context.Background()},
		"span not sampled":             {on, func() context.Context { c, _ := unsampled.Tracer("app").Start(context.Background(), "x"); return c }()},
	} {
		if got := query(c.db, c.ctx).Get("traceparent"); len(got) != 0 {
			t.Errorf("%s: traceparent %q sent", name, got)
		}
	}
	span.End()
}

// TestRequestIDOnSpan: with the connector tracing, the statement's span
// carries x_goog_spanner_request_id, the id of the RPC that served it
// (and the session's creation span its own).
func TestRequestIDOnSpan(t *testing.T) {
	s := fakespanner.Start(t)
	s.AddResult(pointQuery, pointResult())
	tp, sr := sdkTracing(t, sdktrace.AlwaysSample())
	db := openFakeWith(t, s, []driver.ConnectorOption{driver.WithTracerProvider(tp)})
	ctx, span := tp.Tracer("app").Start(context.Background(), "request")
	s.ResetRequests()
	if _, _, err := readCanon(ctx, db, pointQuery); err != nil {
		t.Fatal(err)
	}
	span.End()
	reqs := s.RequestsFor("ExecuteStreamingSql")
	want := requestIDOf(t, reqs[len(reqs)-1]).raw
	found := map[string]string{}
	for _, sp := range sr.Ended() {
		for _, a := range sp.Attributes() {
			if a.Key == "x_goog_spanner_request_id" {
				found[sp.Name()] = a.Value.AsString()
			}
		}
	}
	// The statement's own span, child of the application's, is the span
	// of the RPC's context; the session's creation has a span of its own.
	sessions := s.RequestsFor("CreateSession")
	if len(sessions) != 1 {
		t.Fatalf("%d CreateSession requests", len(sessions))
	}
	if got := found["cloud.google.com/go/spanner.Query"]; got != want {
		t.Errorf("Query span's request id %q, want %q (spans: %q)", got, want, found)
	}
	if got, want := found["cloud.google.com/go/spanner.CreateSession"], requestIDOf(t, sessions[0]).raw; got != want {
		t.Errorf("CreateSession span's request id %q, want %q", got, want)
	}
	if len(found) != 2 {
		t.Errorf("spans with request ids: %q, want the Query and CreateSession spans only", found)
	}
}

// TestGFELatencyRecorded: with a meter listening, each RPC attempt's
// server-timing gfet4t7 duration is recorded in spanner/gfe_latency
// (milliseconds, per grpc_client_method), and an answer without the header
// counts in spanner/gfe_header_missing_count.
func TestGFELatencyRecorded(t *testing.T) {
	s := fakespanner.Start(t)
	s.AddResult(pointQuery, pointResult())
	s.AddResult("UPDATE Singers SET Rating = 1 WHERE TRUE", fakespanner.DML(1))
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	t.Cleanup(func() { _ = mp.Shutdown(context.Background()) })
	db := openFakeWith(t, s, []driver.ConnectorOption{driver.WithMeterProvider(mp)})
	ctx := context.Background()

	// Without the header: counted as missing.
	if _, _, err := readCanon(ctx, db, pointQuery); err != nil {
		t.Fatal(err)
	}
	s.SetResponseHeader(metadata.Pairs("server-timing", "gfet4t7; dur=123.4, other; dur=1"))
	if _, _, err := readCanon(ctx, db, pointQuery); err != nil {
		t.Fatal(err)
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.ExecContext(ctx, "UPDATE Singers SET Rating = 1 WHERE TRUE"); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}

	var rm metricdata.ResourceMetrics
	if err := reader.Collect(ctx, &rm); err != nil {
		t.Fatal(err)
	}
	latency := map[string]metricdata.HistogramDataPoint[int64]{}
	missing := map[string]int64{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			switch m.Name {
			case "spanner/gfe_latency":
				if m.Unit != "ms" {
					t.Errorf("unit %q", m.Unit)
				}
				for _, dp := range m.Data.(metricdata.Histogram[int64]).DataPoints {
					latency[method(dp.Attributes)] = dp
				}
			case "spanner/gfe_header_missing_count":
				for _, dp := range m.Data.(metricdata.Sum[int64]).DataPoints {
					missing[method(dp.Attributes)] += dp.Value
				}
			}
		}
	}
	q := latency["ExecuteStreamingSql"]
	if q.Count != 1 || q.Sum != 123 {
		t.Errorf("ExecuteStreamingSql latency: %d measurements summing %d ms, want 1 of 123", q.Count, q.Sum)
	}
	for _, m := range []string{"ExecuteSql", "Commit"} {
		if latency[m].Count != 1 || latency[m].Sum != 123 {
			t.Errorf("%s latency: %d measurements summing %d ms, want 1 of 123", m, latency[m].Count, latency[m].Sum)
		}
	}
	// Before the header: the session's creation, the connector's dialect
	// query and the first point query.
	if missing["ExecuteStreamingSql"] != 2 || missing["CreateSession"] != 1 || len(missing) != 2 {
		t.Errorf("missing headers %v, want 2 ExecuteStreamingSql and 1 CreateSession", missing)
	}
}

func method(s attribute.Set) string {
	v, _ := s.Value("grpc_client_method")
	return v.AsString()
}
