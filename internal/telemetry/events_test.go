package telemetry_test

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/spannerfast/spannerfast/internal/telemetry"
)

// records is a slog.Handler that keeps every record it is given.
type records struct {
	mu    sync.Mutex
	level slog.Level
	recs  []slog.Record
}

func (h *records) Enabled(_ context.Context, l slog.Level) bool { return l >= h.level }
func (h *records) Handle(_ context.Context, r slog.Record) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.recs = append(h.recs, r.Clone())
	return nil
}
func (h *records) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *records) WithGroup(string) slog.Handler      { return h }

// attrs returns record i's attributes by key.
func (h *records) attrs(i int) map[string]any {
	h.mu.Lock()
	defer h.mu.Unlock()
	m := map[string]any{"level": h.recs[i].Level, "msg": h.recs[i].Message}
	h.recs[i].Attrs(func(a slog.Attr) bool { m[a.Key] = a.Value.Any(); return true })
	return m
}

// recordingSpan returns a context with a recording span, its recorder, and
// a Telemetry that traces through the same provider and logs to log.
func recordingSpan(t *testing.T, log *slog.Logger) (context.Context, *tracetest.SpanRecorder, *telemetry.Telemetry) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	ctx, span := tp.Tracer("test").Start(context.Background(), "op")
	t.Cleanup(func() { span.End() })
	return ctx, rec, telemetry.New(telemetry.Config{TracerProvider: tp, Logger: log})
}

func eventAttrs(a []attribute.KeyValue) map[string]any {
	m := map[string]any{}
	for _, kv := range a {
		m[string(kv.Key)] = kv.Value.AsInterface()
	}
	return m
}

// TestEventsReachSpanAndLog: each report is one span event and one log
// record with the same attributes, at the documented level.
func TestEventsReachSpanAndLog(t *testing.T) {
	h := &records{level: slog.LevelDebug}
	ctx, rec, tel := recordingSpan(t, slog.New(h))
	f := telemetry.Failure{Method: "Commit", Attempt: 2, Code: 14, CodeName: "Unavailable", Delay: 1500 * time.Microsecond}
	tel.Retried(ctx, f)
	tel.Resumed(ctx, f, []byte{0xab, 0x01})
	tel.Aborted(ctx, telemetry.Failure{Attempt: 1, Code: 10, CodeName: "Aborted"}, telemetry.AbortReplay)
	tel.Replayed(ctx, telemetry.Replay{Attempt: 1, Statements: 3, Outcome: telemetry.ReplayStarted})
	tel.Replayed(ctx, telemetry.Replay{Attempt: 1, Statements: 3, Outcome: telemetry.ReplayDataChanged, Err: errors.New("changed")})
	tel.SessionCreated(ctx, "s1", true, telemetry.SessionNotFound)
	trace := rec.Started()[0]
	trace.End()
	events := rec.Ended()[0].Events()
	want := []struct {
		event string
		level slog.Level
		attrs map[string]any
	}{
		{"retry", slog.LevelDebug, map[string]any{"rpc.method": "Commit", "spanner.attempt": int64(2), "rpc.grpc.status_code": int64(14), "error.type": "Unavailable", "spanner.retry.delay_ms": 1.5}},
		{"resume", slog.LevelDebug, map[string]any{"spanner.attempt": int64(2), "spanner.resume_token": "ab01"}},
		{"abort", slog.LevelInfo, map[string]any{"spanner.attempt": int64(1), "error.type": "Aborted", "spanner.abort.action": "replay"}},
		{"replay", slog.LevelDebug, map[string]any{"spanner.attempt": int64(1), "spanner.replay.statements": int64(3), "spanner.replay.outcome": "started"}},
		{"replay", slog.LevelInfo, map[string]any{"spanner.replay.outcome": "data_changed", "exception.message": "changed"}},
	}
	if len(events) != len(want) {
		t.Fatalf("%d span events, want %d", len(events), len(want))
	}
	if len(h.recs) != len(want)+1 {
		t.Fatalf("%d log records, want %d", len(h.recs), len(want)+1)
	}
	for i, w := range want {
		if events[i].Name != w.event {
			t.Errorf("event %d is %q, want %q", i, events[i].Name, w.event)
		}
		ea, la := eventAttrs(events[i].Attributes), h.attrs(i)
		if la["event"] != w.event || la["level"] != w.level {
			t.Errorf("record %d: event %v level %v, want %s %v", i, la["event"], la["level"], w.event, w.level)
		}
		for k, v := range w.attrs {
			if ea[k] != v || la[k] != v {
				t.Errorf("%s: %s = %v in the event, %v in the log; want %v", w.event, k, ea[k], la[k], v)
			}
		}
	}
	last := h.attrs(len(want))
	if last["level"] != slog.LevelInfo || last["spanner.session"] != "s1" || last["spanner.session.reason"] != "not_found" || last["spanner.session.multiplexed"] != true {
		t.Errorf("session record %v", last)
	}
}

// TestEventsLevels: a logger at Info gets aborts and outcomes, not the
// routine retries and resumptions; a first session is Debug.
func TestEventsLevels(t *testing.T) {
	h := &records{level: slog.LevelInfo}
	tel := telemetry.New(telemetry.Config{Logger: slog.New(h)})
	ctx := context.Background()
	tel.Retried(ctx, telemetry.Failure{Attempt: 1})
	tel.Resumed(ctx, telemetry.Failure{Attempt: 1}, nil)
	tel.Replayed(ctx, telemetry.Replay{Attempt: 1, Outcome: telemetry.ReplayStarted})
	tel.SessionCreated(ctx, "s", true, telemetry.SessionFirst)
	if len(h.recs) != 0 {
		t.Fatalf("%d records at Info for Debug reports", len(h.recs))
	}
	tel.Aborted(ctx, telemetry.Failure{Attempt: 1}, telemetry.AbortRetry)
	tel.Replayed(ctx, telemetry.Replay{Attempt: 1, Outcome: telemetry.ReplaySucceeded})
	tel.SessionCreated(ctx, "s", true, telemetry.SessionExpired)
	if len(h.recs) != 3 {
		t.Fatalf("%d records at Info, want 3", len(h.recs))
	}
}

// TestEventsFreeWithoutListener: no logger and no recording span, nothing
// is built: no allocation.
func TestEventsFreeWithoutListener(t *testing.T) {
	ctx := context.Background()
	none := telemetry.New(telemetry.Config{})
	f := telemetry.Failure{Method: "Commit", Attempt: 1, Code: 14, CodeName: "Unavailable", Delay: time.Millisecond}
	token := []byte("token")
	err := errors.New("x")
	allocs := testing.AllocsPerRun(100, func() {
		none.Retried(ctx, f)
		none.Resumed(ctx, f, token)
		none.Aborted(ctx, f, telemetry.AbortReplay)
		none.Replayed(ctx, telemetry.Replay{Attempt: 1, Outcome: telemetry.ReplayFailed, Err: err})
		none.SessionCreated(ctx, "s", true, telemetry.SessionFirst)
	})
	if allocs != 0 {
		t.Fatalf("%v allocations with no logger and no span", allocs)
	}
	// A logger that is off for the level costs nothing either.
	off := telemetry.New(telemetry.Config{Logger: slog.New(&records{level: slog.LevelError})})
	allocs = testing.AllocsPerRun(100, func() {
		off.Retried(ctx, f)
		off.Aborted(ctx, f, telemetry.AbortReplay)
	})
	if allocs != 0 {
		t.Fatalf("%v allocations with a logger off for the level", allocs)
	}
}

// TestEventsFollowDisableTracing: with tracing off (disable_tracing) the
// reports reach the logger only, not the span of the context.
func TestEventsFollowDisableTracing(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	defer func() { _ = tp.Shutdown(context.Background()) }()
	ctx, span := tp.Tracer("app").Start(context.Background(), "app")
	h := &records{level: slog.LevelDebug}
	tel := telemetry.New(telemetry.Config{TracerProvider: tp, Logger: slog.New(h), DisableTracing: true})
	tel.Retried(ctx, telemetry.Failure{Attempt: 1})
	tel.Aborted(ctx, telemetry.Failure{Attempt: 1}, telemetry.AbortReturn)
	span.End()
	if n := len(rec.Ended()[0].Events()); n != 0 {
		t.Errorf("%d span events with tracing off", n)
	}
	if len(h.recs) != 2 {
		t.Errorf("%d log records, want 2", len(h.recs))
	}
}
