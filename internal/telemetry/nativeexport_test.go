package telemetry_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/spannerfast/spannerfast/internal/telemetry"
)

// TestNativeExportRecorded: with an export provider (the application's
// pipeline silent), an attempt and its operation are recorded to it under
// the Cloud Monitoring names, with the per-call labels only (method,
// status, directpath_enabled, directpath_used); admin calls are not.
func TestNativeExportRecorded(t *testing.T) {
	ctx := context.Background()
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	t.Cleanup(func() { _ = mp.Shutdown(ctx) })
	tel := telemetry.New(telemetry.Config{Database: "projects/p/instances/i/databases/d", NativeExportProvider: mp})
	if !tel.Exporting() || tel.Measuring() {
		t.Fatalf("Exporting %v, Measuring %v: want true, false", tel.Exporting(), tel.Measuring())
	}
	for range 2 {
		a := tel.StartRPCAttempt("/google.spanner.v1.Spanner/ExecuteStreamingSql")
		if !a.Active() {
			t.Fatal("attempt not active with an export provider")
		}
		a.End(ctx, 0, "OK")
		a.EndRPCOperation(ctx, 0, 1, 0, "OK")
	}
	admin := tel.StartRPCAttempt("/google.spanner.admin.database.v1.DatabaseAdmin/GetDatabase")
	admin.End(ctx, 0, "OK")
	admin.EndRPCOperation(ctx, 0, 1, 0, "OK")

	var rm metricdata.ResourceMetrics
	if err := reader.Collect(ctx, &rm); err != nil {
		t.Fatal(err)
	}
	want := attribute.NewSet(
		attribute.String("method", "Spanner.ExecuteStreamingSql"), attribute.String("status", "OK"),
		attribute.String("directpath_enabled", "false"), attribute.String("directpath_used", "false"))
	got := map[string]uint64{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			switch d := m.Data.(type) {
			case metricdata.Sum[int64]:
				for _, p := range d.DataPoints {
					checkSet(t, m.Name, p.Attributes, want)
					got[m.Name] += uint64(p.Value)
				}
			case metricdata.Histogram[float64]:
				for _, p := range d.DataPoints {
					checkSet(t, m.Name, p.Attributes, want)
					got[m.Name] += p.Count
				}
			default:
				t.Errorf("%s: unexpected data %T", m.Name, m.Data)
			}
		}
	}
	for _, name := range []string{telemetry.ExportOperationCount, telemetry.ExportAttemptCount,
		telemetry.ExportOperationLatencies, telemetry.ExportAttemptLatencies} {
		if got[name] != 2 {
			t.Errorf("%s = %d, want 2", name, got[name])
		}
	}
	if len(got) != 4 {
		t.Errorf("metrics %v, want the four native ones", got)
	}
}

func checkSet(t *testing.T, name string, got attribute.Set, want attribute.Set) {
	t.Helper()
	if !got.Equals(&want) {
		t.Errorf("%s attributes %v, want %v", name, got.Encoded(attribute.DefaultEncoder()), want.Encoded(attribute.DefaultEncoder()))
	}
}

// TestNativeExportGFE: with an export provider (the application's
// pipeline silent), the GFE latency of a Spanner attempt is recorded as
// gfe_latencies (ms, whole milliseconds, the official client's buckets)
// and an attempt without the header as gfe_connectivity_error_count, with
// the per-call labels and the attempt's status; admin calls are not.
func TestNativeExportGFE(t *testing.T) {
	ctx := context.Background()
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	t.Cleanup(func() { _ = mp.Shutdown(ctx) })
	tel := telemetry.New(telemetry.Config{Database: "projects/p/instances/i/databases/d", NativeExportProvider: mp})
	if !tel.ExportingGFE() {
		t.Fatal("ExportingGFE false with an export provider")
	}
	const method = "/google.spanner.v1.Spanner/Commit"
	tel.ExportGFE(ctx, method, "OK", 12700*time.Microsecond, true)
	tel.ExportGFE(ctx, method, "Unavailable", 0, false)
	tel.ExportGFE(ctx, "/google.spanner.admin.database.v1.DatabaseAdmin/GetDatabase", "OK", time.Millisecond, true)

	var rm metricdata.ResourceMetrics
	if err := reader.Collect(ctx, &rm); err != nil {
		t.Fatal(err)
	}
	labels := func(status string) attribute.Set {
		return attribute.NewSet(attribute.String("method", "Spanner.Commit"), attribute.String("status", status),
			attribute.String("directpath_enabled", "false"), attribute.String("directpath_used", "false"))
	}
	seen := 0
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			switch m.Name {
			case telemetry.ExportGFELatencies:
				d := m.Data.(metricdata.Histogram[float64])
				if m.Unit != "ms" || len(d.DataPoints) != 1 || len(d.DataPoints[0].Bounds) != 50 {
					t.Fatalf("%s: unit %q, %+v", m.Name, m.Unit, d.DataPoints)
				}
				p := d.DataPoints[0]
				checkSet(t, m.Name, p.Attributes, labels("OK"))
				if p.Count != 1 || p.Sum != 12 || p.Bounds[13] != 12 || p.BucketCounts[13] != 1 {
					t.Errorf("%s: count %d, sum %v, bucket (11, 12] %d: want 1, 12, 1", m.Name, p.Count, p.Sum, p.BucketCounts[13])
				}
				seen++
			case telemetry.ExportGFEConnectivityErrorCount:
				d := m.Data.(metricdata.Sum[int64])
				if m.Unit != "1" || len(d.DataPoints) != 1 || d.DataPoints[0].Value != 1 {
					t.Fatalf("%s: unit %q, %+v", m.Name, m.Unit, d.DataPoints)
				}
				checkSet(t, m.Name, d.DataPoints[0].Attributes, labels("Unavailable"))
				seen++
			}
		}
	}
	if seen != 2 {
		t.Errorf("%d of the two GFE metrics recorded", seen)
	}
}

// TestNativeExportOffCostsNothing: without an export provider and with
// the application's pipeline silent, an RPC is not measured (no clock,
// no allocation), and with one, recording it allocates nothing once the
// attribute set is cached.
func TestNativeExportOffCostsNothing(t *testing.T) {
	ctx := context.Background()
	call := func(tel *telemetry.Telemetry) {
		a := tel.StartRPCAttempt("/google.spanner.v1.Spanner/ExecuteSql")
		a.End(ctx, 0, "OK")
		a.EndRPCOperation(ctx, 0, 1, 0, "OK")
		tel.ExportGFE(ctx, "/google.spanner.v1.Spanner/ExecuteSql", "OK", 12*time.Millisecond, true)
		tel.ExportGFE(ctx, "/google.spanner.v1.Spanner/ExecuteSql", "OK", 0, false)
	}
	off := telemetry.New(telemetry.Config{Database: "projects/p/instances/i/databases/d"})
	if off.Exporting() || off.ExportingGFE() {
		t.Fatal("Exporting without a provider")
	}
	if a := off.StartRPCAttempt("/google.spanner.v1.Spanner/ExecuteSql"); a.Active() || !a.Start().IsZero() {
		t.Error("export off: the attempt is measured")
	}
	if n := testing.AllocsPerRun(100, func() { call(off) }); n != 0 {
		t.Errorf("export off: %.1f allocations per call, want 0", n)
	}
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
	t.Cleanup(func() { _ = mp.Shutdown(ctx) })
	on := telemetry.New(telemetry.Config{Database: "projects/p/instances/i/databases/d", NativeExportProvider: mp})
	call(on)
	if raceEnabled {
		return // the SDK's counts vary under the race detector (race_on_test.go)
	}
	if n := testing.AllocsPerRun(100, func() { call(on) }); n != 0 {
		t.Errorf("export on: %.1f allocations per call, want 0", n)
	}
}

// TestNativeDirectPathEnabled: directpath_enabled is "true" in both sinks
// (the application's pipeline and the export) when the connector's
// channels are dialled with DirectPath, "false" otherwise;
// directpath_used is "false" either way (not known).
func TestNativeDirectPathEnabled(t *testing.T) {
	ctx := context.Background()
	for _, enabled := range []bool{false, true} {
		app := sdkmetric.NewManualReader()
		appMP := sdkmetric.NewMeterProvider(sdkmetric.WithReader(app))
		exp := sdkmetric.NewManualReader()
		expMP := sdkmetric.NewMeterProvider(sdkmetric.WithReader(exp))
		t.Cleanup(func() { _ = appMP.Shutdown(ctx); _ = expMP.Shutdown(ctx) })
		tel := telemetry.New(telemetry.Config{Database: "projects/p/instances/i/databases/d",
			MeterProvider: appMP, NativeExportProvider: expMP, DirectPathEnabled: enabled})
		a := tel.StartRPCAttempt("/google.spanner.v1.Spanner/Commit")
		a.End(ctx, 0, "OK")
		a.EndRPCOperation(ctx, 0, 1, 0, "OK")
		want := map[string]string{"directpath_enabled": strconv.FormatBool(enabled), "directpath_used": "false"}
		for sink, r := range map[string]*sdkmetric.ManualReader{"application": app, "export": exp} {
			var rm metricdata.ResourceMetrics
			if err := r.Collect(ctx, &rm); err != nil {
				t.Fatal(err)
			}
			seen := 0
			for _, sm := range rm.ScopeMetrics {
				for _, m := range sm.Metrics {
					if !strings.Contains(m.Name, "/client/") {
						continue // the driver's own metrics have no such labels
					}
					seen++
					for _, set := range pointSets(m.Data) {
						for k, v := range want {
							if got, _ := set.Value(attribute.Key(k)); got.AsString() != v {
								t.Errorf("DirectPathEnabled %v, %s sink, %s: %s = %q, want %q", enabled, sink, m.Name, k, got.AsString(), v)
							}
						}
					}
				}
			}
			if seen != 4 {
				t.Errorf("DirectPathEnabled %v, %s sink: %d native metrics, want 4", enabled, sink, seen)
			}
		}
	}
}

// pointSets are the attribute sets of a metric's data points.
func pointSets(data metricdata.Aggregation) []attribute.Set {
	var out []attribute.Set
	switch d := data.(type) {
	case metricdata.Sum[int64]:
		for _, p := range d.DataPoints {
			out = append(out, p.Attributes)
		}
	case metricdata.Histogram[float64]:
		for _, p := range d.DataPoints {
			out = append(out, p.Attributes)
		}
	}
	return out
}
