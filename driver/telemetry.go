package driver

import (
	"log/slog"

	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/spannerfast/spannerfast/internal/telemetry"
)

// ConnectorOption gives NewConnector what a DSN cannot carry: the
// OpenTelemetry providers and the logger (docs/observability.md).
type ConnectorOption func(*connectorOptions)

// connectorOptions is what ConnectorOptions set.
type connectorOptions struct{ telemetry telemetry.Config }

// WithTracerProvider makes the connector's spans with tp instead of
// OpenTelemetry's global TracerProvider. Without it the global provider is
// looked up for each operation, so one installed later (otel.SetTracerProvider)
// is used from then on.
func WithTracerProvider(tp trace.TracerProvider) ConnectorOption {
	return func(o *connectorOptions) { o.telemetry.TracerProvider = tp }
}

// WithMeterProvider records the connector's metrics with mp instead of
// OpenTelemetry's global MeterProvider (looked up for each operation
// otherwise).
func WithMeterProvider(mp metric.MeterProvider) ConnectorOption {
	return func(o *connectorOptions) { o.telemetry.MeterProvider = mp }
}

// WithLogger sends the connector's logs to l. Without it the driver logs
// nothing.
func WithLogger(l *slog.Logger) ConnectorOption {
	return func(o *connectorOptions) { o.telemetry.Logger = l }
}
