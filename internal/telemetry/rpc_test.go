package telemetry_test

import (
	"context"
	"testing"
	"time"

	metricnoop "go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	tracenoop "go.opentelemetry.io/otel/trace/noop"

	"github.com/spannerfast/spannerfast/internal/telemetry"
)

// TestRPCReportsFreeWithoutListener: with nobody listening, the transport's
// per-RPC questions (the request id for the span, whether to read the GFE
// header, trace context to send) answer "nothing" without allocating.
func TestRPCReportsFreeWithoutListener(t *testing.T) {
	for name, cfg := range map[string]telemetry.Config{
		"global defaults": {},
		"noop providers":  {TracerProvider: tracenoop.NewTracerProvider(), MeterProvider: metricnoop.NewMeterProvider()},
	} {
		tel := telemetry.New(cfg)
		ctx := context.Background()
		n := testing.AllocsPerRun(100, func() {
			tel.NoteRequestID(ctx, "1.0123456789abcdef.1.1.1.1")
			if tel.GFE() != nil {
				t.Fatal("GFE instruments with nobody listening")
			}
			if telemetry.TraceHeaders(ctx) != nil {
				t.Fatal("trace headers without a span")
			}
		})
		if n != 0 {
			t.Errorf("%s: %v allocations per RPC, want 0", name, n)
		}
	}
}

// TestRequestIDAndGFERecorded: NoteRequestID sets x_goog_spanner_request_id
// on the recording span in the context (the last id wins), and GFE records
// a latency in milliseconds or a missing header, per method.
func TestRequestIDAndGFERecorded(t *testing.T) {
	tel, sr, reader := recorded(t, telemetry.Config{})
	ctx, op := tel.Start(context.Background(), telemetry.Query, "SELECT 1")
	tel.NoteRequestID(ctx, "1.a.1.1.7.1")
	tel.NoteRequestID(ctx, "1.a.1.2.7.2")
	g := tel.GFE()
	g.Record(ctx, "ExecuteStreamingSql", 12500*time.Microsecond, true)
	g.Record(ctx, "Commit", 0, false)
	op.End(nil)

	spans := sr.Ended()
	if len(spans) != 1 {
		t.Fatalf("%d spans", len(spans))
	}
	var id string
	for _, a := range spans[0].Attributes() {
		if a.Key == telemetry.KeyRequestID {
			id = a.Value.AsString()
		}
	}
	if id != "1.a.1.2.7.2" {
		t.Errorf("x_goog_spanner_request_id %q, want the last attempt's", id)
	}
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	var sum, missing int64
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			switch m.Name {
			case telemetry.MetricGFELatency:
				for _, dp := range m.Data.(metricdata.Histogram[int64]).DataPoints {
					if v, _ := dp.Attributes.Value(telemetry.KeyGRPCMethod); v.AsString() == "ExecuteStreamingSql" {
						sum += dp.Sum
					}
				}
			case telemetry.MetricGFEHeaderMissing:
				for _, dp := range m.Data.(metricdata.Sum[int64]).DataPoints {
					if v, _ := dp.Attributes.Value(telemetry.KeyGRPCMethod); v.AsString() == "Commit" {
						missing += dp.Value
					}
				}
			}
		}
	}
	if sum != 12 || missing != 1 {
		t.Errorf("gfe latency sum %d ms, missing %d; want 12 and 1", sum, missing)
	}
}
