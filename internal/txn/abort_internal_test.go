package txn

import (
	"context"
	"errors"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/spannerfast/spannerfast/internal/telemetry"
	"github.com/spannerfast/spannerfast/internal/transport"
)

func abortedAfter(d time.Duration) error {
	st, _ := status.New(codes.Aborted, "aborted").WithDetails(&errdetails.RetryInfo{RetryDelay: durationpb.New(d)})
	return st.Err()
}

// TestAbortDelay: an ABORTED error's RetryInfo is the wait before the
// retry (Spanner tells how long to back off after a conflict).
func TestAbortDelay(t *testing.T) {
	if got := abortDelay(abortedAfter(1500 * time.Millisecond)); got != 1500*time.Millisecond {
		t.Fatalf("abortDelay = %v, want 1.5s", got)
	}
	if got := abortDelay(status.Error(codes.Aborted, "no info")); got != 0 {
		t.Fatalf("abortDelay without RetryInfo = %v, want 0", got)
	}
}

// TestRetryTransaction: f runs again while it is aborted; other errors end
// it; a context that ends during the wait stops it with an error matching
// both the context and the abort. (No telemetry: nobody to report to.)
func TestRetryTransaction(t *testing.T) {
	ctx := context.Background()
	noTelemetry := func() *telemetry.Telemetry { return nil }
	calls := 0
	err := RetryTransaction(ctx, noTelemetry, func() error {
		calls++
		if calls < 3 {
			return abortedAfter(time.Millisecond)
		}
		return nil
	})
	if err != nil || calls != 3 {
		t.Fatalf("RetryTransaction = %v after %d calls, want nil after 3", err, calls)
	}
	boom := status.Error(codes.InvalidArgument, "boom")
	if err := RetryTransaction(ctx, noTelemetry, func() error { return boom }); err != boom {
		t.Fatalf("RetryTransaction = %v, want the non-abort error as is", err)
	}
	short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	start := time.Now()
	err = RetryTransaction(short, noTelemetry, func() error { return abortedAfter(time.Hour) })
	if !errors.Is(err, context.DeadlineExceeded) || status.Code(err) != codes.DeadlineExceeded || time.Since(start) > 10*time.Second {
		t.Fatalf("RetryTransaction with an ending context = %v", err)
	}
	var stopped *transport.RetryStoppedError
	if !errors.As(err, &stopped) || status.Code(stopped.Last) != codes.Aborted {
		t.Fatalf("RetryTransaction's error %v does not carry the abort", err)
	}
}
