package transport

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/spannerfast/spannerfast/internal/telemetry"
)

// internalRetryMessages are the INTERNAL errors that are transport hiccups,
// not query failures, and so may be retried (the official client's list).
var internalRetryMessages = []string{
	"stream terminated by RST_STREAM",
	"HTTP/2 error code: INTERNAL_ERROR",
	"Connection closed with unknown cause",
	"Received unexpected EOS on DATA frame from server",
	"Authentication backend internal server error. Please retry",
}

// RetryDelay reports whether err is a transient failure that may be
// retried (by resuming a stream or calling again), and the delay the server
// asked for (0 if none).
func RetryDelay(err error) (retry bool, serverDelay time.Duration) {
	s, ok := status.FromError(err)
	if !ok {
		return false, 0
	}
	delay := ServerRetryDelay(s)
	switch s.Code() {
	case codes.Unavailable:
		return true, delay
	case codes.Internal:
		for _, m := range internalRetryMessages {
			if strings.Contains(s.Message(), m) {
				return true, delay
			}
		}
	case codes.ResourceExhausted:
		return delay > 0, delay
	}
	return false, 0
}

// ServerRetryDelay is the delay the server asked for in the RetryInfo of
// s, 0 if none.
func ServerRetryDelay(s *status.Status) time.Duration {
	for _, d := range s.Details() {
		if ri, ok := d.(*errdetails.RetryInfo); ok && ri.GetRetryDelay() != nil {
			return ri.GetRetryDelay().AsDuration()
		}
	}
	return 0
}

// Backoff is the wait between attempts after a transient failure: full
// jitter (uniform in (0, ceiling]) with a ceiling that starts at 20 ms,
// grows x1.3 per attempt and is capped at 32 s, as the official client's
// default. A server RetryInfo delay replaces the jittered one. Reset starts
// over after progress, so a long stream that hits a failure now and then
// does not inherit an old, long wait.
// The zero value is ready to use; Report makes its waits seen.
type Backoff struct {
	ceiling time.Duration
	// Rand returns a value in [0, n); nil means math/rand/v2. Tests
	// inject a fixed source (n-1: every delay is the ceiling).
	Rand     func(n int64) int64
	last     error // the last transient failure retried, if any
	attempts int   // failed attempts waited out, progress or not
	// Report says how each wait is reported (telemetry): the zero value
	// reports retries to the context's span only.
	Report Report
}

// Report is how Backoff.Wait reports a wait before it starts: as a span
// event on the context's span and a record of the connector's logger (see
// internal/telemetry), with the number of the attempt that failed (every
// failure waited out counts, Reset or not), its gRPC code and the wait.
// Nothing is built when neither listens.
type Report struct {
	Tel    *telemetry.Telemetry // nil: nothing is reported
	Method string               // the RPC that failed; "" for none
	// Event is telemetry.EventRetry ("" too), EventResume or EventAbort.
	Event string
	// Action is what follows an abort (EventAbort): telemetry.AbortRetry
	// or AbortReplay.
	Action string
	// Token is the resume token the next attempt continues after
	// (EventResume); nil: from the beginning.
	Token []byte
	// Counted: the abort was counted where it was returned
	// (EventAbort): only describe it (Telemetry.AbortRetried).
	Counted bool
}

// Attempts is how many failed attempts the backoff waited out.
func (b *Backoff) Attempts() int { return b.attempts }

// report tells b.Report's listeners that the attempt that failed with err
// is followed by another after delay.
func (b *Backoff) report(ctx context.Context, err error, delay time.Duration) {
	r := &b.Report
	level := telemetry.LevelRetry
	switch r.Event {
	case telemetry.EventAbort:
		level = telemetry.LevelAbort
	case telemetry.EventResume:
		level = telemetry.LevelResume
	}
	if !r.Tel.Reporting(ctx, level) {
		return
	}
	code := status.Code(err)
	f := telemetry.Failure{Method: r.Method, Attempt: b.attempts, Code: uint32(code), CodeName: code.String(), Delay: delay}
	switch r.Event {
	case telemetry.EventAbort:
		if r.Counted {
			r.Tel.AbortRetried(ctx, f, r.Action)
		} else {
			r.Tel.Aborted(ctx, f, r.Action)
		}
	case telemetry.EventResume:
		r.Tel.Resumed(ctx, f, r.Token)
	default:
		r.Tel.Retried(ctx, f)
	}
}

const (
	backoffInitial    = 20 * time.Millisecond
	backoffMax        = 32 * time.Second
	backoffMultiplier = 1.3
)

// Delay returns the wait before the next attempt and advances the ceiling.
// serverDelay (from RetryInfo), if positive, is used as it is.
func (b *Backoff) Delay(serverDelay time.Duration) time.Duration {
	if b.ceiling == 0 {
		b.ceiling = backoffInitial
	}
	ceiling := b.ceiling
	b.ceiling = min(time.Duration(float64(b.ceiling)*backoffMultiplier), backoffMax)
	if serverDelay > 0 {
		return serverDelay
	}
	rnd := b.Rand
	if rnd == nil {
		rnd = rand.Int64N
	}
	return 1 + time.Duration(rnd(int64(ceiling)))
}

// Reset makes the next delay start from the initial ceiling again and
// forgets the failure being retried.
func (b *Backoff) Reset() { b.ceiling, b.last = 0, nil }

// Final returns the error that ends the retries on failure err, which is
// not transient: a *RetryStoppedError if ctx ended while an earlier failure
// was being retried (the attempt failed because of that), else err. When
// ctx tracks its call's attempts (a streaming query's), the error carries
// the last attempt's request id (*RequestIDError).
func (b *Backoff) Final(ctx context.Context, err error) error {
	return WithLastRequestID(ctx, b.final(ctx, err))
}

func (b *Backoff) final(ctx context.Context, err error) error {
	cerr := ctx.Err()
	if cerr == nil && status.Code(err) == codes.DeadlineExceeded {
		// gRPC enforces the deadline with its own timer, which may fire
		// just before the context's: the deadline has passed all the same.
		if d, ok := ctx.Deadline(); ok && !time.Now().Before(d) {
			cerr = context.DeadlineExceeded
		}
	}
	if cerr != nil && b.last != nil {
		return &RetryStoppedError{Context: cerr, Last: b.last}
	}
	return err
}

// SleepFunc waits d or until ctx ends, returning ctx.Err() in that case.
// Sleep is the real one; tests record the waits instead.
type SleepFunc func(ctx context.Context, d time.Duration) error

// Pause decides what follows the failure err of an attempt: nil after
// waiting out the backoff when err is transient (the caller makes another
// attempt); err itself when it is not; a *RetryStoppedError when ctx ended
// during the wait, or ended an attempt that retried an earlier failure.
func (b *Backoff) Pause(ctx context.Context, sleep SleepFunc, err error) error {
	retry, serverDelay := RetryDelay(err)
	if !retry {
		return b.Final(ctx, err)
	}
	return b.Wait(ctx, sleep, err, serverDelay)
}

// Wait waits out the backoff after the failure err, which the caller has
// decided to retry (Pause decides by the transient-failure rules; commits
// and aborted transactions have rules of their own), with serverDelay
// (from RetryInfo) if positive, after reporting it (Report). It returns
// nil after the wait, or a *RetryStoppedError naming err when ctx ends
// first (with the last attempt's request id, as Final).
func (b *Backoff) Wait(ctx context.Context, sleep SleepFunc, err error, serverDelay time.Duration) error {
	b.last = err
	b.attempts++
	d := b.Delay(serverDelay)
	b.report(ctx, err, d)
	if cerr := sleep(ctx, d); cerr != nil {
		return WithLastRequestID(ctx, &RetryStoppedError{Context: cerr, Last: err})
	}
	return nil
}

// RetryStoppedError is the error when a context (the caller's, or the one
// statement_timeout or connect_timeout made) ends while a transient failure
// is being retried, or while the caller waits for a shared start-up step
// (shared_step.go) that goes on for the other callers. Its gRPC code is the
// context's: DEADLINE_EXCEEDED, or CANCELED; the official client reports
// the same code. errors.Is matches both the context error and the last
// transient error.
type RetryStoppedError struct {
	Context error  // context.DeadlineExceeded or context.Canceled
	Last    error  // the transient failure that was being retried; nil if none yet (Step)
	Step    string // what the caller waited for, when it waited for a shared step
}

func (e *RetryStoppedError) Error() string {
	switch {
	case e.Step == "":
		return fmt.Sprintf("spannerfast: %v while retrying; last error: %v", e.Context, e.Last)
	case e.Last == nil:
		return fmt.Sprintf("spannerfast: %v while waiting for %s", e.Context, e.Step)
	}
	return fmt.Sprintf("spannerfast: %v while waiting for %s; last error: %v", e.Context, e.Step, e.Last)
}

// GRPCStatus makes status.Code(err) report the context's code.
func (e *RetryStoppedError) GRPCStatus() *status.Status {
	return status.New(status.FromContextError(e.Context).Code(), e.Error())
}

func (e *RetryStoppedError) Unwrap() []error {
	if e.Last == nil {
		return []error{e.Context}
	}
	return []error{e.Context, e.Last}
}

// Sleep waits d or until ctx ends, returning ctx.Err() in that case.
func Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
