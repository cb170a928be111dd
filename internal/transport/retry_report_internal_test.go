package transport

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/spannerfast/spannerfast/internal/fakespanner"
	"github.com/spannerfast/spannerfast/internal/telemetry"
)

// noSleep is a SleepFunc that does not wait.
func noSleep(context.Context, time.Duration) error { return nil }

// countingHandler counts the records it is given.
type countingHandler struct{ n int }

func (h *countingHandler) Enabled(context.Context, slog.Level) bool  { return true }
func (h *countingHandler) Handle(context.Context, slog.Record) error { h.n++; return nil }
func (h *countingHandler) WithAttrs([]slog.Attr) slog.Handler        { return h }
func (h *countingHandler) WithGroup(string) slog.Handler             { return h }

// TestBackoffReportFreeWithoutListener: with no logger and no recording
// span, a retry's wait reports nothing and allocates nothing; with a
// logger, every wait is one record, numbered from 1 across Reset.
func TestBackoffReportFreeWithoutListener(t *testing.T) {
	ctx := context.Background()
	quiet := Backoff{Report: Report{Tel: telemetry.New(telemetry.Config{}), Method: "Commit"}}
	if allocs := testing.AllocsPerRun(100, func() {
		_ = quiet.Wait(ctx, noSleep, fakespanner.ErrUnavailable, 0)
	}); allocs != 0 {
		t.Fatalf("%v allocations per wait with nobody listening", allocs)
	}

	h := &countingHandler{}
	b := Backoff{Report: Report{Tel: telemetry.New(telemetry.Config{Logger: slog.New(h)}), Method: "Commit"}}
	for i := 1; i <= 3; i++ {
		if err := b.Wait(ctx, noSleep, fakespanner.ErrUnavailable, 0); err != nil {
			t.Fatal(err)
		}
		if h.n != i || b.Attempts() != i {
			t.Fatalf("after wait %d: %d records, Attempts %d", i, h.n, b.Attempts())
		}
		b.Reset() // progress starts the delay over, not the numbering
	}
}
