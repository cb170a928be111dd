package nativemetrics

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	monitoring "cloud.google.com/go/monitoring/apiv3/v2"
	"cloud.google.com/go/monitoring/apiv3/v2/monitoringpb"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"google.golang.org/api/option"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// batchSize is the most time series Cloud Monitoring takes in one request.
const batchSize = 200

// exporter is the periodic reader's exporter: it sends what the reader
// collected to Cloud Monitoring. The monitoring client is made on the first
// export, in the reader's goroutine: making it may look credentials up
// (Application Default Credentials may ask the metadata server), which no
// caller of the driver waits for.
type exporter struct {
	labels   clientLabels
	opts     func() []option.ClientOption
	location func() string
	interval time.Duration

	mu         sync.Mutex
	client     *monitoring.MetricClient
	lastExport time.Time
	closing    bool // the final collection is under way
	shut       bool
}

var _ sdkmetric.Exporter = (*exporter)(nil)

// Temporality is cumulative for every instrument, as Cloud Monitoring's
// CUMULATIVE metric kind wants.
func (e *exporter) Temporality(sdkmetric.InstrumentKind) metricdata.Temporality {
	return metricdata.CumulativeTemporality
}

// Aggregation is the SDK's default (the histograms' buckets come from the
// instruments).
func (e *exporter) Aggregation(k sdkmetric.InstrumentKind) sdkmetric.Aggregation {
	return sdkmetric.DefaultAggregationSelector(k)
}

// Export sends rm. The last export, when the client closes, is skipped if
// one was sent less than half an interval ago, as the official client
// does: Cloud Monitoring refuses points of a series written too often.
func (e *exporter) Export(ctx context.Context, rm *metricdata.ResourceMetrics) error {
	e.mu.Lock()
	if e.shut || e.closing && time.Since(e.lastExport) < e.interval/2 {
		e.mu.Unlock()
		return nil
	}
	e.mu.Unlock()
	series, convErr := e.labels.timeSeries(rm, e.location)
	if len(series) == 0 {
		return convErr
	}
	client, err := e.monitoringClient(ctx)
	if err != nil {
		return err
	}
	errs := []error{convErr}
	name := "projects/" + e.labels.project
	for i := 0; i < len(series); i += batchSize {
		req := &monitoringpb.CreateTimeSeriesRequest{Name: name, TimeSeries: series[i:min(i+batchSize, len(series))]}
		if err := client.CreateServiceTimeSeries(ctx, req); err != nil {
			errs = append(errs, exportError(e.labels.project, err))
		}
	}
	e.mu.Lock()
	e.lastExport = time.Now()
	e.mu.Unlock()
	return errors.Join(errs...)
}

// ExportError is a failed export of the built-in metrics; it keeps the
// gRPC status (status.Code works through Unwrap).
type ExportError struct {
	Project string
	Err     error
}

func (e *ExportError) Error() string {
	msg := fmt.Sprintf("spannerfast: exporting built-in client metrics to Cloud Monitoring (project %s): %v", e.Project, e.Err)
	if status.Code(e.Err) == codes.PermissionDenied {
		msg += " (the credentials need the Monitoring Metric Writer role, roles/monitoring.metricWriter, on the project; disable_native_metrics=true turns the export off)"
	}
	return msg
}

func (e *ExportError) Unwrap() error { return e.Err }

func exportError(project string, err error) error { return &ExportError{Project: project, Err: err} }

// monitoringClient makes the client on first use. A failure is returned
// (the reader reports it to OpenTelemetry's error handler) and the next
// export tries again: Application Default Credentials may come later.
func (e *exporter) monitoringClient(ctx context.Context) (*monitoring.MetricClient, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.client != nil {
		return e.client, nil
	}
	client, err := monitoring.NewMetricClient(ctx, e.opts()...)
	if err != nil {
		return nil, exportError(e.labels.project, err)
	}
	e.client = client
	return client, nil
}

// ForceFlush has nothing to flush: the exporter holds no data.
func (e *exporter) ForceFlush(ctx context.Context) error { return ctx.Err() }

// Shutdown closes the monitoring client, after the final export.
func (e *exporter) Shutdown(ctx context.Context) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.shut {
		return nil
	}
	e.shut = true
	if e.client != nil {
		return e.client.Close()
	}
	return nil
}

// beginClose marks the collection that follows as the final one.
func (e *exporter) beginClose() {
	e.mu.Lock()
	e.closing = true
	e.mu.Unlock()
}
