package e2e

import (
	"context"
	"database/sql"
	"strings"
	"testing"

	"go.uber.org/goleak"
	"google.golang.org/genproto/googleapis/api/distribution"
	"google.golang.org/grpc/metadata"

	"github.com/spannerfast/spannerfast/internal/fakemonitoring"
	"github.com/spannerfast/spannerfast/internal/nativemetrics"
)

// The export of the built-in metrics to Cloud Monitoring, through
// database/sql on the fake server, to an in-process fake of the
// Monitoring API. The fake server speaks plain text, for which the export
// is off (as in go-sql-spanner): the test target stands in for a
// production endpoint. These tests set the process's environment: not
// parallel.

// exportEnv clears the switches that turn the export off, for the test.
func exportEnv(t *testing.T) {
	t.Setenv(nativemetrics.EnvDisable, "")
	t.Setenv(nativemetrics.EnvEmulatorHost, "")
}

// runNativeWork runs a few statements: three queries and an update.
func runNativeWork(t *testing.T, db *sql.DB) {
	t.Helper()
	ctx := context.Background()
	for range 3 {
		if got := readStrings(t, mustQuery(t, db, txnQuery)); len(got) != 2 {
			t.Fatalf("rows %v", got)
		}
	}
	if _, err := db.ExecContext(ctx, txnUpdate); err != nil {
		t.Fatal(err)
	}
}

// TestFakeNativeMetricsExport: by default the official client's built-in
// metrics reach Cloud Monitoring when the handle closes, as the official
// client sends them: one series per metric type
// (spanner.googleapis.com/internal/client/operation_count, attempt_count,
// operation_latencies, attempt_latencies), method and status, on the
// spanner_instance_client resource of the database's project and
// instance, with the client's labels; the counts are the calls the server
// received. The two GFE metrics go with them: gfe_latencies, the
// server-timing header's gfet4t7 duration in whole milliseconds, per
// attempt answered with it, and gfe_connectivity_error_count, per attempt
// answered without it. Nothing is left running.
func TestFakeNativeMetricsExport(t *testing.T) {
	ignore := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, ignore) })
	exportEnv(t)
	mon := fakemonitoring.Start(t)
	nativemetrics.UseTestTarget(t, nativemetrics.TestTarget{Addr: mon.Addr(), Location: "global"})
	s, db := startTxnFake(t)
	s.SetResponseHeader(metadata.Pairs("server-timing", "gfet4t7; dur=12.7, other; dur=1"))
	runNativeWork(t, db)
	timedUpdates := int64(len(s.RequestsFor("ExecuteSql")))
	s.SetResponseHeader(nil) // as when a call does not reach Google's network
	if _, err := db.ExecContext(context.Background(), txnUpdate); err != nil {
		t.Fatal(err)
	}
	if n := len(mon.Requests()); n != 0 {
		t.Fatalf("%d exports before the interval and the close", n)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	reqs := mon.Requests()
	if len(reqs) != 1 || reqs[0].GetName() != "projects/p" {
		t.Fatalf("%d requests (%v), want one to projects/p", len(reqs), reqs)
	}
	counts := map[string]int64{} // type/method/status → count
	for _, ts := range reqs[0].GetTimeSeries() {
		res, labels := ts.GetResource(), ts.GetMetric().GetLabels()
		if res.GetType() != "spanner_instance_client" || res.GetLabels()["project_id"] != "p" ||
			res.GetLabels()["instance_id"] != "i" || res.GetLabels()["instance_config"] != "unknown" ||
			res.GetLabels()["location"] != "global" || len(res.GetLabels()["client_hash"]) != 6 {
			t.Errorf("resource %v", res)
		}
		if labels["database"] != "d" || labels["client_uid"] == "" || labels["client_name"] == "" ||
			labels["directpath_enabled"] != "false" || labels["directpath_used"] != "false" || len(labels) != 7 {
			t.Errorf("labels %v", labels)
		}
		v := ts.GetPoints()[0].GetValue()
		n := v.GetInt64Value()
		if d := v.GetDistributionValue(); d != nil {
			n = d.GetCount()
			if strings.HasSuffix(ts.GetMetric().GetType(), "/gfe_latencies") {
				checkGFEDistribution(t, labels["method"], d)
			}
		}
		counts[ts.GetMetric().GetType()+"/"+labels["method"]+"/"+labels["status"]] += n
	}
	const p = "spanner.googleapis.com/internal/client/"
	queries := int64(len(s.RequestsFor("ExecuteStreamingSql")) + s.DialectQueries())
	for key, want := range map[string]int64{
		p + "operation_count/Spanner.ExecuteStreamingSql/OK":     queries,
		p + "attempt_count/Spanner.ExecuteStreamingSql/OK":       queries,
		p + "operation_latencies/Spanner.ExecuteStreamingSql/OK": queries,
		p + "attempt_latencies/Spanner.ExecuteStreamingSql/OK":   queries,
		p + "operation_count/Spanner.ExecuteSql/OK":              int64(len(s.RequestsFor("ExecuteSql"))),
		p + "operation_count/Spanner.Commit/OK":                  int64(len(s.RequestsFor("Commit"))),
		p + "operation_count/Spanner.CreateSession/OK":           1,
		p + "gfe_latencies/Spanner.ExecuteStreamingSql/OK":       queries,
		p + "gfe_latencies/Spanner.ExecuteSql/OK":                timedUpdates,
		p + "gfe_connectivity_error_count/Spanner.ExecuteSql/OK": int64(len(s.RequestsFor("ExecuteSql"))) - timedUpdates,
	} {
		if counts[key] != want || want == 0 {
			t.Errorf("%s = %d, want %d (> 0)", key, counts[key], want)
		}
	}
	if queries != 4 {
		t.Errorf("%d ExecuteStreamingSql calls, want 4 (3 queries, the dialect's)", queries)
	}
}

// checkGFEDistribution checks an exported gfe_latencies distribution of
// method: every attempt took 12 ms (12.7 truncated, as the official client
// does), in the bucket (11, 12] of the official client's boundaries.
func checkGFEDistribution(t *testing.T, method string, d *distribution.Distribution) {
	t.Helper()
	bounds := d.GetBucketOptions().GetExplicitBuckets().GetBounds()
	if d.GetMean() != 12 || len(bounds) != 50 || bounds[1] != 0.5 || bounds[len(bounds)-1] != 3200000 {
		t.Errorf("gfe_latencies of %s: mean %v, bounds %v; want 12 on the official client's 50 bounds", method, d.GetMean(), bounds)
		return
	}
	for i, n := range d.GetBucketCounts() {
		if n != 0 && (i == 0 || bounds[i-1] != 11 || bounds[i] != 12) {
			t.Errorf("gfe_latencies of %s: %d in bucket %d (upper bound %v), want them all in (11, 12]", method, n, i, bounds[min(i, len(bounds)-1)])
		}
	}
}

// TestFakeNativeMetricsExportOff: with disable_native_metrics,
// SPANNER_DISABLE_BUILTIN_METRICS=true, SPANNER_EMULATOR_HOST, or plain
// text without the test target, the fake Monitoring API receives nothing
// and no exporter runs (no goroutine is left, none was started: goleak).
func TestFakeNativeMetricsExportOff(t *testing.T) {
	for _, c := range []struct {
		name   string
		props  []string
		env    map[string]string
		target bool
	}{
		{name: "disable_native_metrics", props: []string{"disable_native_metrics=true"}, target: true},
		{name: "env switch", env: map[string]string{nativemetrics.EnvDisable: "true"}, target: true},
		{name: "emulator", env: map[string]string{nativemetrics.EnvEmulatorHost: "localhost:9010"}, target: true},
		{name: "plain text"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ignore := goleak.IgnoreCurrent()
			t.Cleanup(func() { goleak.VerifyNone(t, ignore) })
			exportEnv(t)
			for k, v := range c.env {
				t.Setenv(k, v)
			}
			mon := fakemonitoring.Start(t)
			if c.target {
				nativemetrics.UseTestTarget(t, nativemetrics.TestTarget{Addr: mon.Addr(), Location: "global"})
			}
			_, db := startTxnFake(t, c.props...)
			runNativeWork(t, db)
			if err := db.Close(); err != nil {
				t.Fatal(err)
			}
			if n := len(mon.Requests()); n != 0 {
				t.Errorf("%d exports with the export off", n)
			}
		})
	}
}

// BenchmarkPointQueryNativeExport is BenchmarkPointQuery with the export
// of the built-in metrics off (the fake server's plain text) and on (to
// the fake Monitoring API, at the official 60-second interval): what
// recording the four native metrics to the export's provider costs per
// query.
func BenchmarkPointQueryNativeExport(b *testing.B) {
	for _, on := range []bool{false, true} {
		name := "off"
		if on {
			name = "on"
		}
		b.Run(name, func(b *testing.B) {
			b.Setenv(nativemetrics.EnvDisable, "")
			b.Setenv(nativemetrics.EnvEmulatorHost, "")
			if on {
				mon := fakemonitoring.Start(b)
				nativemetrics.UseTestTarget(b, nativemetrics.TestTarget{Addr: mon.Addr(), Location: "global"})
			}
			benchPointQuery(b)
		})
	}
}
