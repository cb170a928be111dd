package transport

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/spannerfast/spannerfast/dsn"
	"github.com/spannerfast/spannerfast/internal/fakespanner"
	"github.com/spannerfast/spannerfast/internal/telemetry"
)

// noSleep is a SleepFunc that does not wait.
func noSleep(context.Context, time.Duration) error { return nil }

// countingHandler counts the records it is given and keeps their levels
// and session reasons.
type countingHandler struct {
	mu      sync.Mutex
	n       int
	levels  []slog.Level
	reasons []string
}

func (h *countingHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h *countingHandler) Handle(_ context.Context, r slog.Record) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.n++
	h.levels = append(h.levels, r.Level)
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == string(telemetry.KeySessionReason) {
			h.reasons = append(h.reasons, a.Value.String())
		}
		return true
	})
	return nil
}
func (h *countingHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *countingHandler) WithGroup(string) slog.Handler      { return h }

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

// TestSessionExpiredLoggedAsRecreated: the multiplexed session is logged
// at Debug when first made and at Info, reason expired, when it reached
// its age limit and was replaced.
func TestSessionExpiredLoggedAsRecreated(t *testing.T) {
	srv := fakespanner.Start(t)
	cfg, err := dsn.Parse(srv.Addr() + "/projects/p/instances/i/databases/d;usePlainText=true")
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewClient(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	h := &countingHandler{}
	c.UseTelemetry(telemetry.Config{Logger: slog.New(h)})
	first, err := c.Session(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	aged := *c.session.Load()
	aged.created = time.Now().Add(-maxSessionAge - time.Minute)
	c.session.Store(&aged)
	second, err := c.Session(context.Background())
	if err != nil || second == first {
		t.Fatalf("second Session = %q, %v; want a new session", second, err)
	}
	if fmt.Sprint(h.levels, h.reasons) != fmt.Sprint([]slog.Level{slog.LevelDebug, slog.LevelInfo}, []string{"first", "expired"}) {
		t.Fatalf("records at %v with reasons %v; want Debug first, Info expired", h.levels, h.reasons)
	}
}
