package telemetry

import (
	"context"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// What the transport reports of each RPC attempt: its request id on the
// span of the operation it serves, the trace context sent to Spanner for
// end-to-end tracing, and the GFE latency from the server-timing header.

// KeyRequestID is the attribute of the x-goog-spanner-request-id of an
// operation's (last) RPC, with the official client's name.
const KeyRequestID = attribute.Key("x_goog_spanner_request_id")

// KeyGRPCMethod names the RPC of a GFE measurement, as the official
// client's attribute does (here the method's name, e.g.
// "ExecuteStreamingSql").
const KeyGRPCMethod = attribute.Key("grpc_client_method")

// The GFE metrics, named as the official client's OpenTelemetry metrics
// (its built-in metrics, exported to Cloud Monitoring rather than to the
// application's provider, call them gfe_latencies and
// gfe_connectivity_error_count).
const (
	// MetricGFELatency is the histogram, in milliseconds, of the time
	// between Google's front end receiving an RPC and it reading the first
	// byte of the response: the server-timing header's gfet4t7 duration.
	MetricGFELatency = "spanner/gfe_latency"
	// MetricGFEHeaderMissing counts RPC attempts answered without that
	// header: most likely the RPC never reached Google's network.
	MetricGFEHeaderMissing = "spanner/gfe_header_missing_count"
)

// gfeBuckets are the official client's bucket boundaries of
// spanner/gfe_latency, in milliseconds.
var gfeBuckets = []float64{0.0, 0.01, 0.05, 0.1, 0.3, 0.6, 0.8, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0, 13.0,
	16.0, 20.0, 25.0, 30.0, 40.0, 50.0, 65.0, 80.0, 100.0, 130.0, 160.0, 200.0, 250.0,
	300.0, 400.0, 500.0, 650.0, 800.0, 1000.0, 2000.0, 5000.0, 10000.0, 20000.0, 50000.0,
	100000.0}

// NoteRequestID sets KeyRequestID to id on the span in ctx, when the
// connector traces and that span records: the span of the operation the
// RPC serves. A retried RPC overwrites it with its last attempt's id.
func (t *Telemetry) NoteRequestID(ctx context.Context, id string) {
	if t.tracer() == nil {
		return
	}
	if s := trace.SpanFromContext(ctx); s.IsRecording() {
		s.SetAttributes(KeyRequestID.String(id))
	}
}

// TraceHeaders returns the trace context of the span in ctx as header
// name/value pairs to send with an RPC, or nil when that span does not
// record. They come from the application's global TextMapPropagator
// (otel.SetTextMapPropagator), as the official client's gRPC
// instrumentation sends them; when the application set none (the default
// propagates nothing), from W3C Trace Context (traceparent), the format
// Spanner reads.
func TraceHeaders(ctx context.Context) []string {
	if !trace.SpanFromContext(ctx).IsRecording() {
		return nil
	}
	p := otel.GetTextMapPropagator()
	if len(p.Fields()) == 0 {
		p = propagation.TraceContext{}
	}
	c := propagation.MapCarrier{}
	p.Inject(ctx, c)
	kv := make([]string, 0, 2*len(c))
	for k, v := range c {
		kv = append(kv, k, v)
	}
	return kv
}

// GFE records the GFE latency of RPC attempts. Nil (nobody listens to
// metrics) records nothing; ask for it per attempt (Telemetry.GFE).
type GFE struct {
	provider metric.MeterProvider
	latency  metric.Int64Histogram
	missing  metric.Int64Counter
	base     []attribute.KeyValue
	sets     *setCache // the connector's
}

// GFE returns the GFE instruments to use now, or nil when nobody listens
// to metrics: then the caller reads no header.
func (t *Telemetry) GFE() *GFE {
	m := t.meter()
	if m == nil {
		return nil
	}
	if g := t.gfe.Load(); g != nil && g.provider == m.provider {
		return g
	}
	meter := m.provider.Meter(ScopeName, t.meterOptions()...)
	g := &GFE{provider: m.provider, base: t.base, sets: &t.sets}
	var err error
	if g.latency, err = meter.Int64Histogram(MetricGFELatency,
		metric.WithDescription("Latency between Google's network receiving an RPC and reading back the first byte of the response"),
		metric.WithUnit("ms"),
		metric.WithExplicitBucketBoundaries(gfeBuckets...)); err != nil {
		otel.Handle(err)
		return nil
	}
	if g.missing, err = meter.Int64Counter(MetricGFEHeaderMissing,
		metric.WithDescription("Number of RPC responses received without the server-timing header, most likely means that the RPC never reached Google's network"),
		metric.WithUnit("1")); err != nil {
		otel.Handle(err)
		return nil
	}
	if m.cached {
		t.gfe.Store(g)
	}
	return g
}

// Record records one attempt of the RPC method: its GFE latency when
// found, else one more attempt without the header.
func (g *GFE) Record(ctx context.Context, method string, latency time.Duration, found bool) {
	if g == nil {
		return
	}
	o := g.sets.get(setKey{family: famGFE, s1: method}, g.base, KeyGRPCMethod.String(method))
	if found {
		g.latency.Record(ctx, latency.Milliseconds(), o.rec...)
		return
	}
	g.missing.Add(ctx, 1, o.add...)
}

func (t *Telemetry) meterOptions() []metric.MeterOption {
	if t.cfg.Version == "" {
		return nil
	}
	return []metric.MeterOption{metric.WithInstrumentationVersion(t.cfg.Version)}
}
