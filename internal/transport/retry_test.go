package transport_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/spannerfast/spannerfast/internal/transport"
)

// TestSessionRetriesTransientFailures: CreateSession failing with
// UNAVAILABLE is retried inside one creation, and every concurrent caller
// waits for that creation instead of getting an error it is still
// retrying.
func TestSessionRetriesTransientFailures(t *testing.T) {
	f, addr := startFake(t, fakeOpts{})
	f.failCreates = 3
	c := newClient(t, addr+"/"+dbPath+";usePlainText=true")
	const n = 16
	names := make([]string, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { names[i], errs[i] = c.Session(context.Background()) })
	}
	wg.Wait()
	for i := range n {
		if errs[i] != nil || names[i] == "" || names[i] != names[0] {
			t.Fatalf("Session %d: %q, %v; want %q", i, names[i], errs[i], names[0])
		}
	}
	if f.count() != 4 {
		t.Fatalf("CreateSession called %d times, want 4 (3 failures, 1 success)", f.count())
	}
}

// TestSessionRetryBoundedByTimeouts: endless UNAVAILABLE ends with
// connect_timeout, or with the caller's context, as DEADLINE_EXCEEDED that
// names the last UNAVAILABLE.
func TestSessionRetryBoundedByTimeouts(t *testing.T) {
	for _, c := range []struct {
		name      string
		props     string
		ctxLimit  time.Duration
		wantCause error
	}{
		{"connect_timeout", ";connect_timeout=300ms", 0, context.DeadlineExceeded},
		{"caller context", "", 300 * time.Millisecond, context.DeadlineExceeded},
	} {
		f, addr := startFake(t, fakeOpts{})
		f.failCreates = 1 << 30
		client := newClient(t, addr+"/"+dbPath+";usePlainText=true"+c.props)
		ctx := context.Background()
		if c.ctxLimit > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, c.ctxLimit)
			defer cancel()
		}
		start := time.Now()
		_, err := client.Session(ctx)
		elapsed := time.Since(start)
		var stopped *transport.RetryStoppedError
		if status.Code(err) != codes.DeadlineExceeded || !errors.As(err, &stopped) || !errors.Is(err, c.wantCause) ||
			status.Code(stopped.Last) != codes.Unavailable {
			t.Fatalf("%s: %v (code %v), want DEADLINE_EXCEEDED after retrying UNAVAILABLE", c.name, err, status.Code(err))
		}
		// Two calls prove a retry. How many fit in 300 ms depends on the
		// machine's load, so no more is asked for.
		if f.count() < 2 {
			t.Fatalf("%s: CreateSession called %d times in %v; want a retry", c.name, f.count(), elapsed)
		}
		if elapsed > 10*time.Second {
			t.Fatalf("%s: took %v, want about 300ms", c.name, elapsed)
		}
	}
}
