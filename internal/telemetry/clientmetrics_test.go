package telemetry_test

import (
	"context"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/spannerfast/spannerfast/internal/telemetry"
)

// measured returns a Telemetry recording to a manual reader, with cfg's
// switches.
func measured(t *testing.T, cfg telemetry.Config) (*telemetry.Telemetry, *sdkmetric.ManualReader) {
	t.Helper()
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	t.Cleanup(func() { _ = mp.Shutdown(context.Background()) })
	cfg.MeterProvider = mp
	cfg.Database = "projects/p/instances/i/databases/d"
	cfg.Version = "1.2.3"
	return telemetry.New(cfg), reader
}

// collected returns every metric the reader holds, by name.
func collected(t *testing.T, r *sdkmetric.ManualReader) map[string]metricdata.Metrics {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := r.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	out := map[string]metricdata.Metrics{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			out[m.Name] = m
		}
	}
	return out
}

// pointsOf returns a sum's or a histogram's points as attributes → value
// (a histogram's count).
func pointsOf(t *testing.T, m metricdata.Metrics) map[attribute.Set]int64 {
	t.Helper()
	out := map[attribute.Set]int64{}
	switch d := m.Data.(type) {
	case metricdata.Sum[int64]:
		for _, p := range d.DataPoints {
			out[p.Attributes] = p.Value
		}
	case metricdata.Histogram[float64]:
		for _, p := range d.DataPoints {
			out[p.Attributes] = int64(p.Count)
		}
	case metricdata.Histogram[int64]:
		for _, p := range d.DataPoints {
			out[p.Attributes] = int64(p.Count)
		}
	default:
		t.Fatalf("%s: unexpected data %T", m.Name, m.Data)
	}
	return out
}

// value returns the point of m whose attributes include want (its only
// one when want is empty); -1 when none has.
func value(t *testing.T, m metricdata.Metrics, want ...attribute.KeyValue) int64 {
	t.Helper()
	var got int64 = -1
	for set, v := range pointsOf(t, m) {
		ok := true
		for _, kv := range want {
			if x, has := set.Value(kv.Key); !has || x != kv.Value {
				ok = false
			}
		}
		if ok {
			if got >= 0 {
				t.Fatalf("%s: several points match %v", m.Name, want)
			}
			got = v
		}
	}
	return got
}

// TestClientMetrics records each of the driver's own metrics once or
// twice and reads them back with their attributes.
func TestClientMetrics(t *testing.T) {
	tel, reader := measured(t, telemetry.Config{})
	ctx := context.Background()
	if !tel.Measuring() {
		t.Fatal("Measuring is false with an SDK provider")
	}

	// A call retried once that then succeeded, and one that failed at
	// once.
	a := tel.StartRPCAttempt("/google.spanner.v1.Spanner/Commit")
	a.End(ctx, 14, "Unavailable")
	b := tel.StartRPCAttempt("/google.spanner.v1.Spanner/Commit")
	b.End(ctx, 0, "OK")
	b.EndRPCOperation(ctx, 3*time.Millisecond, 2, 0, "OK")
	c := tel.StartRPCAttempt("/google.spanner.v1.Spanner/ExecuteStreamingSql")
	c.End(ctx, 3, "InvalidArgument")
	c.EndRPCOperation(ctx, time.Millisecond, 1, 3, "InvalidArgument")

	tel.Aborted(ctx, telemetry.Failure{Attempt: 1}, telemetry.AbortReplay)
	tel.Aborted(ctx, telemetry.Failure{Attempt: 2}, telemetry.AbortReplay)
	tel.Aborted(ctx, telemetry.Failure{Attempt: 1}, telemetry.AbortReturn)
	tel.Replayed(ctx, telemetry.Replay{Attempt: 1, Outcome: telemetry.ReplayStarted})
	tel.Replayed(ctx, telemetry.Replay{Attempt: 1, Outcome: telemetry.ReplaySucceeded})

	r1 := tel.RowsOpened()
	r2 := tel.RowsOpened()
	r1.Closed(5, 400)
	c1 := tel.ConnOpened()
	tel.ConnOpened()
	c1.Closed()

	ms := collected(t, reader)
	method := telemetry.KeyRPCMethod.String("Commit")
	for _, c := range []struct {
		metric string
		attrs  []attribute.KeyValue
		want   int64
	}{
		{telemetry.MetricAttemptDuration, []attribute.KeyValue{method, telemetry.KeyRPCGRPCStatus.Int64(14)}, 1},
		{telemetry.MetricAttemptDuration, []attribute.KeyValue{method, telemetry.KeyRPCGRPCStatus.Int64(0)}, 1},
		{telemetry.MetricRetries, []attribute.KeyValue{method, telemetry.KeyRetryOutcome.String(telemetry.OutcomeSucceeded)}, 1},
		{telemetry.MetricAborts, []attribute.KeyValue{telemetry.KeyAbortAction.String(telemetry.AbortReplay)}, 2},
		{telemetry.MetricAborts, []attribute.KeyValue{telemetry.KeyAbortAction.String(telemetry.AbortReturn)}, 1},
		{telemetry.MetricReplays, []attribute.KeyValue{telemetry.KeyReplayOutcome.String(string(telemetry.ReplaySucceeded))}, 1},
		// A replay's start is not an outcome.
		{telemetry.MetricReplays, nil, 1},
		{telemetry.MetricOpenRows, nil, 1},
		{telemetry.MetricReturnedRows, []attribute.KeyValue{telemetry.KeyDBOperationName.String("Query")}, 1},
		{telemetry.MetricDecodedBytes, nil, 400},
		{telemetry.MetricOpenConnections, nil, 1},
		{telemetry.MetricNativeAttemptCount, []attribute.KeyValue{
			telemetry.KeyNativeMethod.String("Spanner.Commit"), telemetry.KeyNativeStatus.String("Unavailable"),
			telemetry.KeyNativeProject.String("p"), telemetry.KeyNativeInstance.String("i"), telemetry.KeyNativeDatabase.String("d"),
			telemetry.KeyNativeClientName.String("spannerfast/1.2.3"),
		}, 1},
		{telemetry.MetricNativeAttemptLatencies, []attribute.KeyValue{telemetry.KeyNativeMethod.String("Spanner.Commit"), telemetry.KeyNativeStatus.String("OK")}, 1},
		{telemetry.MetricNativeOperationCount, []attribute.KeyValue{telemetry.KeyNativeMethod.String("Spanner.Commit"), telemetry.KeyNativeStatus.String("OK")}, 1},
		{telemetry.MetricNativeOperationLatencies, []attribute.KeyValue{telemetry.KeyNativeMethod.String("Spanner.ExecuteStreamingSql"), telemetry.KeyNativeStatus.String("InvalidArgument")}, 1},
	} {
		m, ok := ms[c.metric]
		if !ok {
			t.Errorf("%s not recorded", c.metric)
			continue
		}
		if got := value(t, m, c.attrs...); got != c.want {
			t.Errorf("%s %v = %d, want %d", c.metric, c.attrs, got, c.want)
		}
	}
	// A call that was not retried counts no retry.
	if got := value(t, ms[telemetry.MetricRetries], telemetry.KeyRPCMethod.String("ExecuteStreamingSql")); got != -1 {
		t.Errorf("a call made once counted %d retries", got)
	}
	// The connector's attributes are on the driver's own metrics.
	if got := value(t, ms[telemetry.MetricOpenRows], telemetry.KeyDBSystemName.String(telemetry.SystemName)); got != 1 {
		t.Errorf("open rows with db.system.name: %d, want 1", got)
	}
	r2.Closed(0, 0)
}

// TestDisableNativeMetrics: with DisableNativeMetrics (disable_native_metrics)
// the official client's metrics are not recorded and the driver's own are.
func TestDisableNativeMetrics(t *testing.T) {
	tel, reader := measured(t, telemetry.Config{DisableNativeMetrics: true})
	ctx := context.Background()
	a := tel.StartRPCAttempt("/google.spanner.v1.Spanner/Commit")
	a.End(ctx, 0, "OK")
	a.EndRPCOperation(ctx, time.Millisecond, 1, 0, "OK")
	ms := collected(t, reader)
	if _, ok := ms[telemetry.MetricAttemptDuration]; !ok {
		t.Errorf("%s not recorded", telemetry.MetricAttemptDuration)
	}
	for _, name := range []string{telemetry.MetricNativeAttemptCount, telemetry.MetricNativeAttemptLatencies,
		telemetry.MetricNativeOperationCount, telemetry.MetricNativeOperationLatencies} {
		if _, ok := ms[name]; ok {
			t.Errorf("%s recorded with DisableNativeMetrics", name)
		}
	}
}

// TestNativeMetricsDataAPIOnly: the admin APIs' calls are measured as
// attempts but, as in the official client, have no native metrics.
func TestNativeMetricsDataAPIOnly(t *testing.T) {
	tel, reader := measured(t, telemetry.Config{})
	ctx := context.Background()
	a := tel.StartRPCAttempt("/google.spanner.admin.database.v1.DatabaseAdmin/UpdateDatabaseDdl")
	a.End(ctx, 0, "OK")
	a.EndRPCOperation(ctx, time.Millisecond, 1, 0, "OK")
	ms := collected(t, reader)
	if _, ok := ms[telemetry.MetricAttemptDuration]; !ok {
		t.Errorf("%s not recorded", telemetry.MetricAttemptDuration)
	}
	if _, ok := ms[telemetry.MetricNativeAttemptCount]; ok {
		t.Errorf("%s recorded for an admin call", telemetry.MetricNativeAttemptCount)
	}
}

// TestClientMetricsCostNothingUnheard: with no provider installed (the
// global default) and with a nil Telemetry, measuring allocates nothing.
func TestClientMetricsCostNothingUnheard(t *testing.T) {
	ctx := context.Background()
	for name, tel := range map[string]*telemetry.Telemetry{
		"global default": telemetry.New(telemetry.Config{Database: "projects/p/instances/i/databases/d"}),
		"nil":            nil,
	} {
		if tel.Measuring() {
			t.Errorf("%s: Measuring is true", name)
		}
		got := testing.AllocsPerRun(100, func() {
			a := tel.StartRPCAttempt("/google.spanner.v1.Spanner/ExecuteStreamingSql")
			a.End(ctx, 0, "OK")
			a.EndRPCOperation(ctx, 0, 1, 0, "OK")
			r := tel.RowsOpened()
			r.Closed(1, 100)
			c := tel.ConnOpened()
			c.Closed()
			tel.Aborted(ctx, telemetry.Failure{Attempt: 1}, telemetry.AbortReplay)
			tel.Replayed(ctx, telemetry.Replay{Attempt: 1, Outcome: telemetry.ReplaySucceeded})
		})
		if got != 0 {
			t.Errorf("%s: %.1f allocations per measurement, want 0", name, got)
		}
	}
}
