package transport

import (
	"context"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// TestRetriedFailure: an attempt's failure leaves its operation open only
// when the driver's retry loop for that call sends another attempt: the
// commit's rules for Commit, RetryDelay's for the Spanner API's other
// calls, below the unary limit, while the context lasts; never for the
// admin APIs, whose calls the driver does not retry this way.
func TestRetriedFailure(t *testing.T) {
	live := context.Background()
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	unavailable := status.Error(codes.Unavailable, "x")
	exhausted := status.Error(codes.ResourceExhausted, "x") // no retry delay
	rst := status.Error(codes.Internal, "stream terminated by RST_STREAM")
	for _, c := range []struct {
		name     string
		ctx      context.Context
		method   string
		unary    bool
		attempts int
		err      error
		want     bool
	}{
		{"success", live, "ExecuteSql", true, 1, nil, false},
		{"unavailable", live, "ExecuteSql", true, 1, unavailable, true},
		{"unavailable at the unary limit", live, "ExecuteSql", true, MaxUnaryAttempts, unavailable, false},
		{"unavailable, context ended", ended, "ExecuteSql", true, 1, unavailable, false},
		{"stream unavailable past the unary limit", live, "ExecuteStreamingSql", false, MaxUnaryAttempts + 3, unavailable, true},
		{"RST_STREAM", live, "ExecuteSql", true, 1, rst, true},
		{"exhausted without delay", live, "ExecuteSql", true, 1, exhausted, false},
		{"commit exhausted without delay", live, "Commit", true, 1, exhausted, true},
		{"commit RST_STREAM", live, "Commit", true, 1, rst, false},
		{"aborted", live, "Commit", true, 1, status.Error(codes.Aborted, "x"), false},
		{"admin unavailable", live, "", true, 1, unavailable, false},
	} {
		method := spannerMethodPrefix + c.method
		if c.method == "" {
			method = "/google.spanner.admin.database.v1.DatabaseAdmin/UpdateDatabaseDdl"
		}
		op := &rpcOp{method: method, unary: c.unary, attempts: c.attempts}
		if got := retriedFailure(c.ctx, op, c.err); got != c.want {
			t.Errorf("%s: retriedFailure = %v, want %v", c.name, got, c.want)
		}
	}
}
