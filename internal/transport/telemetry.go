package transport

import (
	"context"
	"errors"
	"net"
	"strconv"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/spannerfast/spannerfast/dsn"
	"github.com/spannerfast/spannerfast/internal/telemetry"
)

// Telemetry returns the connector's telemetry: the providers, the logger
// and the switches of its DSN. Never nil.
func (c *Client) Telemetry() *telemetry.Telemetry { return c.tel }

// UseTelemetry takes the providers and the logger given in code (the
// other fields of given are the client's own). Call it before the client
// is used.
func (c *Client) UseTelemetry(given telemetry.Config) {
	c.tel = c.newTelemetry(given)
}

// newTelemetry is the client's telemetry with the providers and the logger
// of given, recording the built-in metrics to their export too when it is
// on (internal/nativemetrics).
func (c *Client) newTelemetry(given telemetry.Config) *telemetry.Telemetry {
	tc := telemetryConfig(c.cfg, c.endpoint, given)
	tc.NativeExportProvider = c.native.Provider()
	tc.DirectPathEnabled = c.directPath
	return telemetry.New(tc)
}

// nativeClientName is the client_name label of the built-in metrics.
func nativeClientName() string { return "spannerfast/" + moduleVersion() }

// telemetryConfig is the telemetry of cfg, reaching endpoint, with the
// providers and the logger of given.
func telemetryConfig(cfg *dsn.Config, endpoint string, given telemetry.Config) telemetry.Config {
	tc := telemetry.Config{
		TracerProvider:       given.TracerProvider,
		MeterProvider:        given.MeterProvider,
		Logger:               given.Logger,
		DisableTracing:       cfg.DisableTracing,
		OmitQueryText:        cfg.DisableQueryTextInTraces,
		DisableNativeMetrics: cfg.DisableNativeMetrics,
		Database:             cfg.DatabasePath(),
		ServerAddress:        endpoint,
		Version:              moduleVersion(),
		ErrorCode:            errorCode,
	}
	if host, port, err := net.SplitHostPort(endpoint); err == nil {
		tc.ServerAddress = host
		tc.ServerPort, _ = strconv.Atoi(port)
	}
	return tc
}

// errorCode is telemetry's ErrorCode: the gRPC code of err (of its status,
// or of the context's end), named as package codes spells it.
func errorCode(err error) (int64, string, bool) {
	if s, ok := status.FromError(err); ok {
		return int64(s.Code()), s.Code().String(), true
	}
	switch {
	case errors.Is(err, context.Canceled):
		return int64(codes.Canceled), codes.Canceled.String(), true
	case errors.Is(err, context.DeadlineExceeded):
		return int64(codes.DeadlineExceeded), codes.DeadlineExceeded.String(), true
	}
	return 0, "", false
}
