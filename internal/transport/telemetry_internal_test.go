package transport

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/spannerfast/spannerfast/dsn"
	"github.com/spannerfast/spannerfast/internal/telemetry"
)

// TestErrorCode: the code telemetry records for an error is its gRPC
// status's, through wrapping, or the context's end; other errors have none.
func TestErrorCode(t *testing.T) {
	for _, tc := range []struct {
		err  error
		code codes.Code
		ok   bool
	}{
		{status.Error(codes.NotFound, "no table"), codes.NotFound, true},
		{fmt.Errorf("query: %w", status.Error(codes.Aborted, "aborted")), codes.Aborted, true},
		{fmt.Errorf("waiting: %w", context.Canceled), codes.Canceled, true},
		{context.DeadlineExceeded, codes.DeadlineExceeded, true},
		{errors.New("plain"), 0, false},
	} {
		n, name, ok := errorCode(tc.err)
		if ok != tc.ok || (ok && (n != int64(tc.code) || name != tc.code.String())) {
			t.Errorf("errorCode(%v) = %d %q %v, want %v %v", tc.err, n, name, ok, tc.code, tc.ok)
		}
	}
}

// TestTelemetryConfig: the DSN's switches, the database path and the
// endpoint's host and port reach the telemetry; the providers come from
// what was given.
func TestTelemetryConfig(t *testing.T) {
	cfg, err := dsn.Parse("projects/p/instances/i/databases/d;disable_tracing=true;disable_query_text_in_traces=true")
	if err != nil {
		t.Fatal(err)
	}
	tc := telemetryConfig(cfg, "spanner.example:443", telemetry.Config{})
	if !tc.DisableTracing || !tc.OmitQueryText || tc.Database != "projects/p/instances/i/databases/d" ||
		tc.ServerAddress != "spanner.example" || tc.ServerPort != 443 || tc.ErrorCode == nil || tc.Version == "" {
		t.Errorf("telemetry config %+v", tc)
	}
}
