package telemetry

import (
	"context"
	"strconv"
	"strings"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/metric"
)

// The official client records its built-in metrics twice when it may: to
// the application's pipeline under spanner/client/ (clientmetrics.go), and
// to a meter provider of its own that exports them to Cloud Monitoring
// (internal/nativemetrics). This file is the second sink: the same four
// measurements (and the two GFE ones, nativegfe.go), on the instruments of Config.NativeExportProvider, named
// as Cloud Monitoring knows them, with the labels that vary per call
// (method, status, directpath_enabled, directpath_used). The exporter adds
// the client's labels (project, instance, database, client_uid, ...) and
// the monitored resource. When there is no such provider (export off) the
// sink is nil and costs nothing.

// NativeExportPrefix starts the metric types of the official client's
// built-in metrics in Cloud Monitoring.
const NativeExportPrefix = "spanner.googleapis.com/internal/client/"

// The native metrics' names in the export pipeline.
const (
	ExportOperationLatencies = NativeExportPrefix + "operation_latencies"
	ExportAttemptLatencies   = NativeExportPrefix + "attempt_latencies"
	ExportOperationCount     = NativeExportPrefix + "operation_count"
	ExportAttemptCount       = NativeExportPrefix + "attempt_count"
)

// nativeFour are the four native instruments on one meter, named with a
// prefix: the application's pipeline's (NativeMetricPrefix,
// clientmetrics.go) or the export's (NativeExportPrefix).
type nativeFour struct {
	operationLatencies metric.Float64Histogram
	attemptLatencies   metric.Float64Histogram
	operationCount     metric.Int64Counter
	attemptCount       metric.Int64Counter
	gfe                *exportGFE // the export's only (nativegfe.go); nil on the application's pipeline
}

// newNativeFour makes the instruments on m; check reports a refused one.
func newNativeFour(m metric.Meter, prefix string, check func(error)) nativeFour {
	var f nativeFour
	var err error
	f.operationLatencies, err = m.Float64Histogram(prefix+"operation_latencies",
		metric.WithDescription("Total time until final operation success or failure, including retries and backoff."),
		metric.WithUnit("ms"), metric.WithExplicitBucketBoundaries(nativeBuckets...))
	check(err)
	f.attemptLatencies, err = m.Float64Histogram(prefix+"attempt_latencies",
		metric.WithDescription("Client observed latency per RPC attempt."),
		metric.WithUnit("ms"), metric.WithExplicitBucketBoundaries(nativeBuckets...))
	check(err)
	f.operationCount, err = m.Int64Counter(prefix+"operation_count",
		metric.WithDescription("The count of database operations."), metric.WithUnit("1"))
	check(err)
	f.attemptCount, err = m.Int64Counter(prefix+"attempt_count",
		metric.WithDescription("The number of attempts made for the operation, including the initial attempt."),
		metric.WithUnit("1"))
	check(err)
	return f
}

// attempt records an attempt that lasted ms milliseconds.
func (f *nativeFour) attempt(ctx context.Context, ms float64, o *measureOpts) {
	f.attemptLatencies.Record(ctx, ms, o.rec...)
	f.attemptCount.Add(ctx, 1, o.add...)
}

// operation records an operation that lasted ms milliseconds.
func (f *nativeFour) operation(ctx context.Context, ms float64, o *measureOpts) {
	f.operationLatencies.Record(ctx, ms, o.rec...)
	f.operationCount.Add(ctx, 1, o.add...)
}

// newExportInstruments makes the export's instruments on p, once per
// connector.
func newExportInstruments(p metric.MeterProvider, version string) *nativeFour {
	var opts []metric.MeterOption
	if version != "" {
		opts = append(opts, metric.WithInstrumentationVersion(version))
	}
	m := p.Meter(ScopeName, opts...)
	check := func(err error) {
		if err != nil {
			otel.Handle(err)
		}
	}
	f := newNativeFour(m, NativeExportPrefix, check)
	f.gfe = newExportGFE(m, check)
	return &f
}

// exporting returns the export sink, nil when export is off.
func (t *Telemetry) exporting() *nativeFour {
	if t == nil {
		return nil
	}
	return t.export
}

// exportSet is the attribute set of an exported measurement of method
// with status codeName: the per-call labels alone (cached per connector).
func (t *Telemetry) exportSet(method, codeName string) *measureOpts {
	k := setKey{family: famExport, s1: method, s2: codeName}
	if m := t.sets.sets.Load(); m != nil {
		if o, ok := (*m)[k]; ok {
			return o
		}
	}
	return t.sets.get(k, nil,
		KeyNativeMethod.String(nativeMethodLabel(method)),
		KeyNativeDirectPathEnabled.String(strconv.FormatBool(t.cfg.DirectPathEnabled)),
		KeyNativeDirectPathUsed.String(nativeDirectPathUsedNo),
		KeyNativeStatus.String(codeName))
}

// nativeMethodLabel is the method label of a gRPC method:
// "/google.spanner.v1.Spanner/Commit" is "Spanner.Commit".
func nativeMethodLabel(method string) string {
	label, ok := nativeMethods.Load(method)
	if !ok {
		label = strings.ReplaceAll(strings.TrimPrefix(method, "/google.spanner.v1."), "/", ".")
		nativeMethods.Store(method, label)
	}
	return label.(string)
}

// Exporting reports whether the native metrics are exported (a provider
// for them was given).
func (t *Telemetry) Exporting() bool { return t.exporting() != nil }

// DirectPathEnabled reports the directpath_enabled label of the native
// metrics.
func (t *Telemetry) DirectPathEnabled() bool { return t != nil && t.cfg.DirectPathEnabled }
