package nativemetrics_test

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.uber.org/goleak"
	metricpb "google.golang.org/genproto/googleapis/api/metric"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/spannerfast/spannerfast/dsn"
	"github.com/spannerfast/spannerfast/internal/fakemonitoring"
	"github.com/spannerfast/spannerfast/internal/nativemetrics"
)

const prefix = "spanner.googleapis.com/internal/client/"

// noLeaks checks, after the test's other cleanups (the fake's stop), that
// the test left no goroutine running.
func noLeaks(t *testing.T) {
	ignore := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, ignore) })
}

func config(t *testing.T, props string) *dsn.Config {
	t.Helper()
	cfg, err := dsn.Parse("projects/p/instances/i/databases/d" + props)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// TestEnabled: the export is on by default and off with
// disable_native_metrics, SPANNER_DISABLE_BUILTIN_METRICS=true,
// SPANNER_EMULATOR_HOST, an experimental host or plain text (as go-sql-spanner); a test target
// turns it on for plain text only. When off, Start makes nothing.
func TestEnabled(t *testing.T) {
	noLeaks(t)
	t.Setenv(nativemetrics.EnvDisable, "")
	t.Setenv(nativemetrics.EnvEmulatorHost, "")
	for _, c := range []struct {
		name, props string
		plain       bool
		env         map[string]string
		target      bool
		want        bool
	}{
		{name: "default", want: true},
		{name: "disable_native_metrics", props: ";disable_native_metrics=true"},
		{name: "env switch", env: map[string]string{nativemetrics.EnvDisable: "true"}},
		{name: "env switch 1", env: map[string]string{nativemetrics.EnvDisable: "1"}},
		{name: "env switch false", env: map[string]string{nativemetrics.EnvDisable: "false"}, want: true},
		{name: "emulator", env: map[string]string{nativemetrics.EnvEmulatorHost: "localhost:9010"}},
		{name: "experimental host", props: ";endpoint=host.internal:15000;is_experimental_host=true"},
		{name: "plain text", plain: true},
		{name: "plain text, test target", plain: true, target: true, want: true},
		{name: "test target, disabled", props: ";disable_native_metrics=true", plain: true, target: true},
		{name: "test target, env switch", plain: true, target: true, env: map[string]string{nativemetrics.EnvDisable: "true"}},
		{name: "test target, emulator", plain: true, target: true, env: map[string]string{nativemetrics.EnvEmulatorHost: "x:1"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			for k, v := range c.env {
				t.Setenv(k, v)
			}
			if c.target {
				nativemetrics.UseTestTarget(t, nativemetrics.TestTarget{Addr: "127.0.0.1:1", Location: "global"})
			}
			cfg := config(t, c.props)
			if got := nativemetrics.Enabled(cfg, c.plain); got != c.want {
				t.Fatalf("Enabled = %v, want %v", got, c.want)
			}
			x := nativemetrics.Start(cfg, c.plain, "spannerfast/test")
			if (x != nil) != c.want {
				t.Fatalf("Start made an exporter: %v, want %v", x != nil, c.want)
			}
			if !c.want && x.Provider() != nil {
				t.Fatal("a nil Exporter has a provider")
			}
			if err := x.Close(); err != nil && c.want {
				// Nothing was recorded: the final export sends nothing.
				t.Fatalf("Close: %v", err)
			}
		})
	}
}

// record records n operations of ExecuteSql with status OK and one with
// NotFound on x's provider, and one metric the export does not send.
func record(t *testing.T, x *nativemetrics.Exporter, n int) {
	t.Helper()
	ctx := context.Background()
	m := x.Provider().Meter("test")
	count, err := m.Int64Counter(prefix + "operation_count")
	if err != nil {
		t.Fatal(err)
	}
	lat, err := m.Float64Histogram(prefix+"operation_latencies", metric.WithUnit("ms"),
		metric.WithExplicitBucketBoundaries(0, 1, 10))
	if err != nil {
		t.Fatal(err)
	}
	other, err := m.Int64Counter("other")
	if err != nil {
		t.Fatal(err)
	}
	attrs := func(code string) metric.MeasurementOption {
		return metric.WithAttributes(attribute.String("method", "Spanner.ExecuteSql"), attribute.String("status", code),
			attribute.String("directpath_enabled", "false"), attribute.String("directpath_used", "false"),
			attribute.String("unexported", "x"))
	}
	for range n {
		count.Add(ctx, 1, attrs("OK"))
		lat.Record(ctx, 5, attrs("OK"))
	}
	count.Add(ctx, 1, attrs("NotFound"))
	other.Add(ctx, 1)
}

// TestExportToFake: what is recorded reaches the fake Monitoring API when
// the exporter closes, as the official client sends it: one
// CreateServiceTimeSeries to projects/P, the metric types, the
// spanner_instance_client resource and its labels, the metric labels,
// cumulative INT64 counts and DISTRIBUTION latencies; nothing else is
// sent, and nothing is left running.
func TestExportToFake(t *testing.T) {
	noLeaks(t)
	fake := fakemonitoring.Start(t)
	nativemetrics.UseTestTarget(t, nativemetrics.TestTarget{Addr: fake.Addr(), Location: "europe-west1"})
	x := nativemetrics.Start(config(t, ""), true, "spannerfast/v9")
	record(t, x, 3)
	if got := fake.Requests(); len(got) != 0 {
		t.Fatalf("%d requests before the first interval", len(got))
	}
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
	reqs := fake.Requests()
	if len(reqs) != 1 || reqs[0].GetName() != "projects/p" {
		t.Fatalf("requests %v, want one to projects/p", reqs)
	}
	counts := map[string]int64{}
	var uid string
	for _, ts := range reqs[0].GetTimeSeries() {
		typ := ts.GetMetric().GetType()
		labels := ts.GetMetric().GetLabels()
		if res := ts.GetResource(); res.GetType() != "spanner_instance_client" ||
			res.GetLabels()["project_id"] != "p" || res.GetLabels()["instance_id"] != "i" ||
			res.GetLabels()["instance_config"] != "unknown" || res.GetLabels()["location"] != "europe-west1" ||
			!regexp.MustCompile(`^[0-9a-f]{6}$`).MatchString(res.GetLabels()["client_hash"]) || len(res.GetLabels()) != 5 {
			t.Errorf("%s: resource %v", typ, res)
		}
		uid = labels["client_uid"]
		if !regexp.MustCompile(`^[0-9a-f-]{36}@[0-9]+@.+$`).MatchString(uid) || labels["client_name"] != "spannerfast/v9" ||
			labels["database"] != "d" || labels["method"] != "Spanner.ExecuteSql" ||
			labels["directpath_enabled"] != "false" || labels["directpath_used"] != "false" || len(labels) != 7 {
			t.Errorf("%s: labels %v", typ, labels)
		}
		if ts.GetMetricKind() != metricpb.MetricDescriptor_CUMULATIVE || len(ts.GetPoints()) != 1 {
			t.Errorf("%s: kind %v, %d points", typ, ts.GetMetricKind(), len(ts.GetPoints()))
			continue
		}
		p := ts.GetPoints()[0]
		if !p.GetInterval().GetEndTime().AsTime().After(p.GetInterval().GetStartTime().AsTime()) {
			t.Errorf("%s: interval %v", typ, p.GetInterval())
		}
		key := strings.TrimPrefix(typ, prefix) + "/" + labels["status"]
		switch ts.GetValueType() {
		case metricpb.MetricDescriptor_INT64:
			counts[key] += p.GetValue().GetInt64Value()
		case metricpb.MetricDescriptor_DISTRIBUTION:
			d := p.GetValue().GetDistributionValue()
			counts[key] += d.GetCount()
			if b := d.GetBucketOptions().GetExplicitBuckets().GetBounds(); len(b) != 3 || d.GetMean() != 5 || ts.GetUnit() != "ms" {
				t.Errorf("%s: bounds %v, mean %v, unit %q", typ, b, d.GetMean(), ts.GetUnit())
			}
		default:
			t.Errorf("%s: value type %v", typ, ts.GetValueType())
		}
	}
	want := map[string]int64{"operation_count/OK": 3, "operation_count/NotFound": 1, "operation_latencies/OK": 3}
	if len(counts) != len(want) {
		t.Errorf("series %v, want %v", counts, want)
	}
	for k, v := range want {
		if counts[k] != v {
			t.Errorf("%s = %d, want %d", k, counts[k], v)
		}
	}
	if x.Close() != nil {
		t.Error("a second Close failed")
	}
}

// TestExportPeriodic: the reader exports every interval, and Close, right
// after an export, sends no other (Cloud Monitoring refuses points of a
// series written too often; the official client skips it likewise).
func TestExportPeriodic(t *testing.T) {
	noLeaks(t)
	fake := fakemonitoring.Start(t)
	nativemetrics.UseTestTarget(t, nativemetrics.TestTarget{Addr: fake.Addr(), Interval: time.Second, Location: "global"})
	x := nativemetrics.Start(config(t, ""), true, "spannerfast/test")
	record(t, x, 1)
	deadline := time.Now().Add(10 * time.Second)
	for len(fake.Requests()) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no export within 10 seconds at a 1-second interval")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
	if n := len(fake.Requests()); n != 1 {
		t.Errorf("%d requests, want 1 (the close right after an export sends nothing)", n)
	}
}

// TestExportError: a refused export is an *ExportError that keeps the
// gRPC code, names the project and, for PERMISSION_DENIED, the role.
func TestExportError(t *testing.T) {
	noLeaks(t)
	fake := fakemonitoring.Start(t)
	fake.Fail(status.Error(codes.PermissionDenied, "no"))
	nativemetrics.UseTestTarget(t, nativemetrics.TestTarget{Addr: fake.Addr(), Location: "global"})
	x := nativemetrics.Start(config(t, ""), true, "spannerfast/test")
	record(t, x, 1)
	err := x.Close()
	var ee *nativemetrics.ExportError
	if !errors.As(err, &ee) || status.Code(ee) != codes.PermissionDenied ||
		!strings.Contains(err.Error(), "project p") || !strings.Contains(err.Error(), "roles/monitoring.metricWriter") {
		t.Fatalf("Close: %v", err)
	}
}
