package transport

import (
	"context"
	"errors"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// TestSharedStep: a step goes on when the caller that started it stops
// waiting while another waits, and that caller's error names the step and
// the step's latest transient failure; a failure reaches the callers of
// its run and is not kept; a run nobody waits for ends.
func TestSharedStep(t *testing.T) {
	life, end := context.WithCancel(context.Background())
	defer end()
	var s sharedStep[int]
	release, started := make(chan struct{}), make(chan struct{}, 1)
	runs := 0
	slow := func(ctx context.Context) (int, error) {
		runs++
		noteStepFailure(ctx, errUnavailableForTest)
		started <- struct{}{}
		select {
		case <-release:
			return 7, nil
		case <-ctx.Done():
			return 0, ctx.Err()
		}
	}

	short, cancel := context.WithCancel(context.Background())
	defer cancel()
	shortErr := make(chan error, 1)
	go func() {
		_, err := s.do(short, life, "the test step", slow)
		shortErr <- err
	}()
	waitWaiters(t, &s, 1)
	longDone := make(chan int)
	go func() {
		v, _ := s.do(context.Background(), life, "the test step", slow)
		longDone <- v
	}()
	waitWaiters(t, &s, 2)
	<-started
	cancel() // the caller that started the step stops waiting
	err := <-shortErr
	var stopped *RetryStoppedError
	if !errors.As(err, &stopped) || !errors.Is(err, context.Canceled) ||
		status.Code(err) != codes.Canceled || stopped.Step != "the test step" || stopped.Last != errUnavailableForTest {
		t.Fatalf("short caller: %v, want CANCELED naming the step and its last failure", err)
	}
	close(release)
	if v := <-longDone; v != 7 || runs != 1 {
		t.Fatalf("long caller got %d after %d runs, want 7 from the one run", v, runs)
	}

	// A failure is returned and not kept.
	fail := errors.New("refused")
	if _, err := s.do(context.Background(), life, "x", func(context.Context) (int, error) { return 0, fail }); err != fail {
		t.Fatalf("failing run: %v", err)
	}
	if v, err := s.do(context.Background(), life, "x", func(context.Context) (int, error) { return 3, nil }); v != 3 || err != nil {
		t.Fatalf("run after a failure: %d, %v", v, err)
	}

	// A run nobody waits for is cancelled.
	ended := make(chan error, 1)
	alone, cancelAlone := context.WithCancel(context.Background())
	go func() {
		time.Sleep(10 * time.Millisecond)
		cancelAlone()
	}()
	s.do(alone, life, "x", func(ctx context.Context) (int, error) {
		<-ctx.Done()
		ended <- ctx.Err()
		return 0, ctx.Err()
	})
	select {
	case err := <-ended:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("abandoned run ended with %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a run nobody waits for went on")
	}
}

// waitWaiters waits until n callers wait for s's run.
func waitWaiters[T any](t *testing.T, s *sharedStep[T], n int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		s.mu.Lock()
		got := 0
		if s.run != nil {
			got = s.run.waiters
		}
		s.mu.Unlock()
		if got == n {
			return
		}
	}
	t.Fatalf("%d callers never waited for the step", n)
}

var errUnavailableForTest = status.Error(codes.Unavailable, "test: unavailable")
