//go:build !nospannerfast

package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync/atomic"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/spannerfast/spannerfast/cmd/spannerfast-bench/internal/workload"
	"github.com/spannerfast/spannerfast/driver"
	"github.com/spannerfast/spannerfast/dsn"
)

// The telemetry arm: spannerfast-safe with an OpenTelemetry SDK listening
// to everything, given on the connector (OpenTelemetry's global providers
// stay the silent defaults, so the other arms still run with nobody
// listening). It measures what telemetry costs when it is on; the
// difference with spannerfast-safe in one run is the overhead.
func init() {
	register(armSpec{id: armFastOtel, title: "spannerfast-otel", order: 55, available: true, verify: true,
		optIn:   true,
		applies: func(*workload.Workload) bool { return true },
		open:    func(ctx context.Context, e *env) (arm, error) { return openSpannerfastOtel(ctx, e) }})
}

// otelArm is a spannerfastArm whose connectors trace and measure with an
// SDK: every span sampled (AlwaysSample) and handed to a batch span
// processor that blocks rather than drops when its queue is full, whose
// exporter counts the spans and throws them away; metrics aggregated by a
// manual reader (collected once, at close, to check that they were
// recorded).
type otelArm struct {
	*spannerfastArm
	sdk *otelSDK
}

// otelSDK is the arm's providers and what they recorded.
type otelSDK struct {
	tp       *sdktrace.TracerProvider
	mp       *sdkmetric.MeterProvider
	reader   *sdkmetric.ManualReader
	exporter *countingExporter
}

func newOtelSDK() *otelSDK {
	s := &otelSDK{exporter: &countingExporter{}, reader: sdkmetric.NewManualReader()}
	s.tp = sdktrace.NewTracerProvider(
		sdktrace.WithSampler(sdktrace.AlwaysSample()),
		sdktrace.WithBatcher(s.exporter, sdktrace.WithBlocking()))
	s.mp = sdkmetric.NewMeterProvider(sdkmetric.WithReader(s.reader))
	return s
}

// options are the connector options that make a connector use s.
func (s *otelSDK) options() []driver.ConnectorOption {
	return []driver.ConnectorOption{driver.WithTracerProvider(s.tp), driver.WithMeterProvider(s.mp)}
}

// finish flushes the spans and collects the metrics: the number of spans
// exported and of metric data points (over all instruments) recorded.
func (s *otelSDK) finish(ctx context.Context) (spans int64, points int, err error) {
	err = s.tp.ForceFlush(ctx)
	var rm metricdata.ResourceMetrics
	if cerr := s.reader.Collect(ctx, &rm); cerr != nil {
		err = errors.Join(err, cerr)
	}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			switch d := m.Data.(type) {
			case metricdata.Histogram[float64]:
				points += len(d.DataPoints)
			case metricdata.Histogram[int64]:
				points += len(d.DataPoints)
			case metricdata.Sum[int64]:
				points += len(d.DataPoints)
			case metricdata.Sum[float64]:
				points += len(d.DataPoints)
			}
		}
	}
	return s.exporter.spans.Load(), points, err
}

func (s *otelSDK) shutdown(ctx context.Context) error {
	return errors.Join(s.tp.Shutdown(ctx), s.mp.Shutdown(ctx))
}

// countingExporter counts the spans it is given and keeps none.
type countingExporter struct{ spans atomic.Int64 }

var _ sdktrace.SpanExporter = (*countingExporter)(nil)

func (e *countingExporter) ExportSpans(_ context.Context, spans []sdktrace.ReadOnlySpan) error {
	e.spans.Add(int64(len(spans)))
	return nil
}

func (e *countingExporter) Shutdown(context.Context) error { return nil }

func openSpannerfastOtel(_ context.Context, e *env) (arm, error) {
	s := newOtelSDK()
	dsnText := spannerfastDSN(e.addr, e.database, false)
	open := func(text string) (*sql.DB, error) {
		cfg, err := dsn.Parse(text)
		if err != nil {
			return nil, fmt.Errorf("dsn.Parse: %w", err)
		}
		c, err := driver.NewConnector(cfg, s.options()...)
		if err != nil {
			return nil, fmt.Errorf("NewConnector: %w", err)
		}
		return sql.OpenDB(c), nil
	}
	db, err := open(dsnText)
	if err != nil {
		return nil, errors.Join(err, s.shutdown(context.Background()))
	}
	noRetry, err := open(dsnText + noRetryProperty)
	if err != nil {
		return nil, errors.Join(err, db.Close(), s.shutdown(context.Background()))
	}
	db.SetMaxIdleConns(workload.ConcurrentStreams) // as spannerfast-safe
	a := &spannerfastArm{db: db, noRetry: noRetry, dests: newDestSet(e.workloads, false), writes: newSQLWrites(e.workloads)}
	return &otelArm{spannerfastArm: a, sdk: s}, nil
}

// close closes the databases, then checks that the SDK did record: a
// run that exported no span or recorded no metric measured nothing, and
// close says so.
func (a *otelArm) close() error {
	ctx := context.Background()
	err := a.spannerfastArm.close()
	spans, points, ferr := a.sdk.finish(ctx)
	err = errors.Join(err, ferr, a.sdk.shutdown(ctx))
	if ferr == nil && (spans == 0 || points == 0) {
		err = errors.Join(err, fmt.Errorf("the OpenTelemetry SDK recorded %d spans and %d metric points: telemetry was not on", spans, points))
	}
	return err
}
