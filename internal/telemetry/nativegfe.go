package telemetry

import (
	"context"
	"time"

	"go.opentelemetry.io/otel/metric"
)

// The official client's two GFE metrics in the export pipeline: the
// server-timing header's gfet4t7 duration of each attempt that had one,
// and the count of attempts answered without it. Like the client, they
// are recorded per attempt of a Spanner RPC with the attempt's status and
// the same per-call labels as the other native metrics (exportSet); the
// latency is whole milliseconds, as the client truncates it.
const (
	ExportGFELatencies              = NativeExportPrefix + "gfe_latencies"
	ExportGFEConnectivityErrorCount = NativeExportPrefix + "gfe_connectivity_error_count"
)

// exportGFE are the export's GFE instruments.
type exportGFE struct {
	latencies          metric.Float64Histogram
	connectivityErrors metric.Int64Counter
}

// newExportGFE makes the instruments on m; check reports a refused one.
func newExportGFE(m metric.Meter, check func(error)) *exportGFE {
	var g exportGFE
	var err error
	g.latencies, err = m.Float64Histogram(ExportGFELatencies,
		metric.WithDescription("Latency between Google's network receiving an RPC and reading back the first byte of the response."),
		metric.WithUnit("ms"), metric.WithExplicitBucketBoundaries(nativeBuckets...))
	check(err)
	g.connectivityErrors, err = m.Int64Counter(ExportGFEConnectivityErrorCount,
		metric.WithDescription("Number of requests that failed to reach the Google network."),
		metric.WithUnit("1"))
	check(err)
	return &g
}

// ExportingGFE reports whether the GFE metrics are exported: then the
// transport reads each attempt's response headers even when the
// application's pipeline does not listen.
func (t *Telemetry) ExportingGFE() bool { return t.exporting() != nil }

// ExportGFE records one attempt of the gRPC method (full name) that ended
// with the status codeName: its GFE latency when the header had it
// (found), else one more connectivity error. Export off, or a method not
// Spanner's, records nothing.
func (t *Telemetry) ExportGFE(ctx context.Context, method, codeName string, latency time.Duration, found bool) {
	ex := t.exporting()
	if ex == nil || !nativeMethod(method) {
		return
	}
	o := t.exportSet(method, codeName)
	if found {
		ex.gfe.latencies.Record(ctx, float64(latency.Milliseconds()), o.rec...)
		return
	}
	ex.gfe.connectivityErrors.Add(ctx, 1, o.add...)
}
