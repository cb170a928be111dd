package telemetry

import (
	"context"
	"log/slog"
	"reflect"
	"sync/atomic"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"
)

// Config is what a connector's telemetry is made of. The zero Config traces
// and measures through OpenTelemetry's global providers, puts query text in
// spans and logs nothing.
type Config struct {
	// TracerProvider and MeterProvider, when not nil, are used instead of
	// the global ones (otel.GetTracerProvider, otel.GetMeterProvider), which
	// are looked up for each operation.
	TracerProvider trace.TracerProvider
	MeterProvider  metric.MeterProvider
	// Logger receives the driver's logs; nil logs nothing.
	Logger *slog.Logger

	// DisableTracing makes no spans (metrics are still recorded).
	DisableTracing bool
	// OmitQueryText leaves statements' text out of all telemetry:
	// db.query.text out of spans, and the text of errors, which may quote
	// a statement, out of span statuses, events and log records
	// (errtext.go).
	OmitQueryText bool
	// DisableNativeMetrics leaves out the official client's built-in
	// metrics (the spanner/client/ ones, clientmetrics.go), as
	// disable_native_metrics does in go-sql-spanner.
	DisableNativeMetrics bool
	// NativeExportProvider, when not nil, also receives the native metrics,
	// under the names Cloud Monitoring gives them (nativeexport.go): the
	// private provider of internal/nativemetrics, which exports them. It
	// is independent of DisableNativeMetrics' effect on the application's
	// pipeline: whoever builds the Config decides both.
	NativeExportProvider metric.MeterProvider
	// DirectPathEnabled is the directpath_enabled label of the native
	// metrics: the channels are dialled with DirectPath
	// (GOOGLE_SPANNER_ENABLE_DIRECT_ACCESS). Whether an attempt went over
	// it (directpath_used) is not known: that label is always "false".
	DirectPathEnabled bool

	// Database is db.namespace: the database's path.
	Database string
	// ServerAddress and ServerPort are the endpoint's host and port
	// (server.address, server.port); "" and 0 leave them out.
	ServerAddress string
	ServerPort    int
	// Version is the instrumentation scope's version.
	Version string
	// ErrorCode names an error's gRPC code: its number and its name as
	// google.golang.org/grpc/codes spells it ("NotFound"). Nil, or a false
	// ok, records error.type as "_OTHER" and no code.
	ErrorCode func(err error) (code int64, name string, ok bool)
}

// Telemetry is one connector's telemetry. Its methods are safe for
// concurrent use; a nil *Telemetry records nothing.
type Telemetry struct {
	cfg Config

	base      []attribute.KeyValue        // db.system.name, db.namespace, server.*: every span and measurement
	spanAttrs [kinds][]attribute.KeyValue // base plus db.operation.name, per kind: what a span starts with (op.go)

	tracing atomic.Pointer[tracerState]
	meters  atomic.Pointer[meterState]
	gfe     atomic.Pointer[GFE] // rpc.go
	export  *nativeFour         // nil: native metrics not exported (nativeexport.go)
	sets    setCache            // measurements' attribute sets (sets.go)
}

// New returns the telemetry cfg describes.
func New(cfg Config) *Telemetry {
	t := &Telemetry{cfg: cfg}
	t.base = append(t.base, KeyDBSystemName.String(SystemName))
	if cfg.Database != "" {
		t.base = append(t.base, KeyDBNamespace.String(cfg.Database))
	}
	if cfg.ServerAddress != "" {
		t.base = append(t.base, KeyServerAddress.String(cfg.ServerAddress))
		if cfg.ServerPort != 0 {
			t.base = append(t.base, KeyServerPort.Int(cfg.ServerPort))
		}
	}
	t.spanAttrs = newSpanAttrs(t.base)
	if cfg.NativeExportProvider != nil {
		t.export = newExportInstruments(cfg.NativeExportProvider, cfg.Version)
	}
	return t
}

// Logger returns the logger given in code, or nil: callers log only when
// it is not nil.
func (t *Telemetry) Logger() *slog.Logger {
	if t == nil {
		return nil
	}
	return t.cfg.Logger
}

// Logging reports whether a log at level would be written.
func (t *Telemetry) Logging(ctx context.Context, level slog.Level) bool {
	l := t.Logger()
	return l != nil && l.Enabled(ctx, level)
}

// QueryText reports whether telemetry may carry statements' text:
// db.query.text and errors' own texts.
func (t *Telemetry) QueryText() bool { return t != nil && !t.cfg.OmitQueryText }

// tracerState is the tracer of one provider, found listening or not. It is
// replaced when the provider in effect changes.
type tracerState struct {
	provider trace.TracerProvider
	tracer   trace.Tracer // nil: nobody listens
	cached   bool         // provider is comparable: the state may be reused
}

// meterState is the instruments of one meter provider.
type meterState struct {
	provider metric.MeterProvider
	duration metric.Float64Histogram // nil: nobody listens
	client   *clientInstruments      // clientmetrics.go
	cached   bool
}

// tracer returns the tracer to use now, or nil when nobody listens. With a
// provider seen before it is one atomic load and one comparison.
func (t *Telemetry) tracer() trace.Tracer {
	if t == nil || t.cfg.DisableTracing {
		return nil
	}
	p := t.cfg.TracerProvider
	if p == nil {
		p = otel.GetTracerProvider()
	}
	if s := t.tracing.Load(); s != nil && s.cached && s.provider == p {
		return s.tracer
	}
	s := &tracerState{provider: p, cached: comparable(p)}
	if !silentTracerProvider(p) {
		var opts []trace.TracerOption
		if t.cfg.Version != "" {
			opts = append(opts, trace.WithInstrumentationVersion(t.cfg.Version))
		}
		s.tracer = p.Tracer(ScopeName, opts...)
	}
	t.tracing.Store(s)
	return s.tracer
}

// meter returns the instruments to use now; nil when nobody listens.
func (t *Telemetry) meter() *meterState {
	if t == nil {
		return nil
	}
	p := t.cfg.MeterProvider
	if p == nil {
		p = otel.GetMeterProvider()
	}
	if s := t.meters.Load(); s != nil && s.cached && s.provider == p {
		if s.duration == nil {
			return nil
		}
		return s
	}
	s := &meterState{provider: p, cached: comparable(p)}
	if !silentMeterProvider(p) {
		var opts []metric.MeterOption
		if t.cfg.Version != "" {
			opts = append(opts, metric.WithInstrumentationVersion(t.cfg.Version))
		}
		m := p.Meter(ScopeName, opts...)
		h, err := m.Float64Histogram(MetricOperationDuration,
			metric.WithDescription("Duration of database client operations."),
			metric.WithUnit("s"),
			metric.WithExplicitBucketBoundaries(durationBuckets...))
		if err == nil {
			s.duration = h
		} else {
			otel.Handle(err)
		}
		s.client = newClientInstruments(m, &t.cfg)
	}
	t.meters.Store(s)
	if s.duration == nil {
		return nil
	}
	return s
}

// globalPackage is where OpenTelemetry's default global providers live:
// until an application calls otel.SetTracerProvider (SetMeterProvider),
// otel.GetTracerProvider returns one of this package's types, which
// records nothing.
const globalPackage = "go.opentelemetry.io/otel/internal/global"

// silentTracerProvider reports whether p records nothing for sure: a no-op
// provider or the global default that nobody replaced.
func silentTracerProvider(p trace.TracerProvider) bool {
	switch p.(type) {
	case tracenoop.TracerProvider, *tracenoop.TracerProvider:
		return true
	}
	return fromPackage(p, globalPackage) || isType(p, "go.opentelemetry.io/otel/trace", "noopTracerProvider") // trace.NewNoopTracerProvider
}

// silentMeterProvider is silentTracerProvider for meter providers.
func silentMeterProvider(p metric.MeterProvider) bool {
	switch p.(type) {
	case metricnoop.MeterProvider, *metricnoop.MeterProvider:
		return true
	}
	return fromPackage(p, globalPackage)
}

// fromPackage reports whether v's type (or what it points to) is declared
// in package path.
func fromPackage(v any, path string) bool {
	t := reflect.TypeOf(v)
	if t == nil {
		return false
	}
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.PkgPath() == path
}

// isType reports whether v's type (or what it points to) is path.name.
func isType(v any, path, name string) bool {
	t := reflect.TypeOf(v)
	if t == nil {
		return false
	}
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.PkgPath() == path && t.Name() == name
}

// comparable reports whether v may be compared with == without a panic.
func comparable(v any) bool {
	t := reflect.TypeOf(v)
	return t != nil && t.Comparable()
}
