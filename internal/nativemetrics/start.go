package nativemetrics

import (
	"context"
	"os"
	"sync"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"google.golang.org/api/option"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/spannerfast/spannerfast/dsn"
)

// DefaultInterval is the official client's time between two exports.
const DefaultInterval = time.Minute

// closeTimeout bounds the final export when the client closes.
const closeTimeout = 10 * time.Second

// Exporter is one client's export: a meter provider of its own, read every
// interval by a periodic reader (one goroutine) that sends to Cloud
// Monitoring. A nil *Exporter exports nothing.
type Exporter struct {
	provider *sdkmetric.MeterProvider
	exp      *exporter
	close    sync.Once
	closeErr error
}

// Start starts the export of a client of cfg (plain: it talks plain text)
// whose client_name label is clientName, or returns nil when the export is
// off (Enabled): then nothing is made.
func Start(cfg *dsn.Config, plain bool, clientName string) *Exporter {
	if !Enabled(cfg, plain) {
		return nil
	}
	opts := clientOptions(cfg) // the environment as the client is made, as the official client reads it
	e := &exporter{
		labels:   newClientLabels(cfg.Project, cfg.Instance, cfg.Database, clientName),
		opts:     func() []option.ClientOption { return opts },
		location: detectedLocation,
		interval: DefaultInterval,
	}
	if tt := testTarget.Load(); tt != nil {
		addr := tt.Addr
		e.opts = func() []option.ClientOption {
			return []option.ClientOption{option.WithEndpoint(addr), option.WithoutAuthentication(),
				option.WithGRPCDialOption(grpc.WithTransportCredentials(insecure.NewCredentials()))}
		}
		if tt.Interval > 0 {
			e.interval = tt.Interval
		}
		if loc := tt.Location; loc != "" {
			e.location = func() string { return loc }
		}
	}
	// Never exported before: the final export on close is not skipped.
	e.lastExport = time.Now().Add(-e.interval)
	reader := sdkmetric.NewPeriodicReader(e, sdkmetric.WithInterval(e.interval))
	return &Exporter{provider: sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader)), exp: e}
}

// Provider is the meter provider the native metrics are recorded to; nil
// for a nil Exporter.
func (x *Exporter) Provider() metric.MeterProvider {
	if x == nil {
		return nil
	}
	return x.provider
}

// Close exports what was recorded since the last export (bounded by
// closeTimeout) and stops the reader's goroutine and the monitoring
// client. A failed final export is reported to OpenTelemetry's error
// handler, as the reader reports the periodic ones, and returned. Closing
// again does nothing and returns the same.
func (x *Exporter) Close() error {
	if x == nil {
		return nil
	}
	x.close.Do(func() {
		x.exp.beginClose()
		ctx, cancel := context.WithTimeout(context.Background(), closeTimeout)
		defer cancel()
		if x.closeErr = x.provider.Shutdown(ctx); x.closeErr != nil {
			otel.Handle(x.closeErr)
		}
	})
	return x.closeErr
}

// clientOptions are the monitoring client's options for a client of cfg:
// Spanner's credentials (the DSN's file or JSON, else Application Default
// Credentials, which the monitoring library looks up itself), the
// universe domain of GOOGLE_CLOUD_UNIVERSE_DOMAIN and the endpoint of
// SPANNER_MONITORING_HOST, as the official client gives its exporter.
// The credentials go as go-sql-spanner gives them to the official client
// (which hands them to its exporter): with the options that take the
// credentials' type from the JSON. The DSN is the application's own
// configuration, and internal/transport has already checked the JSON.
func clientOptions(cfg *dsn.Config) []option.ClientOption {
	var opts []option.ClientOption
	if ud := os.Getenv(EnvUniverseDomain); ud != "" {
		opts = append(opts, option.WithUniverseDomain(ud))
	}
	if host := os.Getenv(EnvMonitoringHost); host != "" {
		opts = append(opts, option.WithEndpoint(host))
	}
	switch {
	case cfg.CredentialsJSON != "":
		//lint:ignore SA1019 the type comes from the JSON, as go-sql-spanner gives it
		opts = append(opts, option.WithCredentialsJSON([]byte(cfg.CredentialsJSON)))
	case cfg.Credentials != "":
		//lint:ignore SA1019 the type comes from the file, as go-sql-spanner gives it
		opts = append(opts, option.WithCredentialsFile(cfg.Credentials))
	}
	return opts
}
