package txn

import (
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/spannerfast/spannerfast/internal/telemetry"
)

// records keeps the log records it is given.
type records struct {
	mu   sync.Mutex
	recs []slog.Record
}

func (h *records) Enabled(context.Context, slog.Level) bool { return true }
func (h *records) Handle(_ context.Context, r slog.Record) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.recs = append(h.recs, r.Clone())
	return nil
}
func (h *records) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *records) WithGroup(string) slog.Handler      { return h }

// TestRetryTransactionReports: each abort RetryTransaction retries is
// an "abort" record (action retry, numbered from 1) of the telemetry the
// attempts name; before any names one, nothing is reported and the retry
// still happens.
func TestRetryTransactionReports(t *testing.T) {
	h := &records{}
	tel := telemetry.New(telemetry.Config{Logger: slog.New(h)})
	var known *telemetry.Telemetry
	calls := 0
	err := RetryTransaction(context.Background(), func() *telemetry.Telemetry { return known }, func() error {
		calls++
		if calls > 1 {
			known = tel // learnt from the second attempt's connection
		}
		if calls < 4 {
			return abortedAfter(time.Millisecond)
		}
		return nil
	})
	if err != nil || calls != 4 {
		t.Fatalf("RetryTransaction = %v after %d calls, want nil after 4", err, calls)
	}
	var attempts []int64
	for _, r := range h.recs {
		r.Attrs(func(a slog.Attr) bool {
			switch a.Key {
			case string(telemetry.KeyAttempt):
				attempts = append(attempts, a.Value.Int64())
			case string(telemetry.KeyAbortAction):
				if a.Value.String() != telemetry.AbortRetry {
					t.Errorf("action %v, want retry", a.Value)
				}
			}
			return true
		})
		if r.Level != telemetry.LevelAbort {
			t.Errorf("record at %v, want %v", r.Level, telemetry.LevelAbort)
		}
	}
	if len(attempts) != 2 || attempts[0] != 2 || attempts[1] != 3 {
		t.Fatalf("reported attempts %v, want [2 3] (the first abort came before any telemetry was known)", attempts)
	}
}
