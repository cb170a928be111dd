package spannergorm_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"google.golang.org/grpc/codes"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"

	"github.com/spannerfast/spannerfast/driver"
	"github.com/spannerfast/spannerfast/dsn"
	"github.com/spannerfast/spannerfast/internal/fakespanner"
	"github.com/spannerfast/spannerfast/spannergorm"
)

// TestFakeRunTransactionUnderAbort: Spanner aborts the Commit of a
// RunTransaction, asking for a 30 ms delay. The function runs again, after
// the delay, in a new transaction, and the driver does not also replay the
// aborted one: the UPDATE is sent once per run, and committed by the second
// of two Commits. db.Transaction under the same abort is replayed by the
// driver instead: its function runs once. (On the emulator,
// TestEmulatorGORMSuite/RunTransactionAborts provokes a real abort.)
func TestFakeRunTransactionUnderAbort(t *testing.T) {
	const update = "UPDATE items SET n = 1 WHERE id = 1"
	for _, viaRunTransaction := range []bool{true, false} {
		s := fakespanner.Start(t)
		s.AddResult(fakespanner.DialectQuery, fakespanner.DialectResult("GOOGLE_STANDARD_SQL"))
		s.AddResult(update, fakespanner.DML(1))
		s.AddMethodFault("Commit", fakespanner.Fault{Err: fakespanner.WithRetryDelay(codes.Aborted, "aborted", 30*time.Millisecond)})
		db, err := gorm.Open(spannergorm.New(spannergorm.Config{DSN: s.Addr() + "/projects/p/instances/i/databases/d;usePlainText=true"}),
			&gorm.Config{Logger: logger.Discard})
		if err != nil {
			t.Fatal(err)
		}
		sqlDB, _ := db.DB()
		t.Cleanup(func() { _ = sqlDB.Close() })
		runs := 0
		fn := func(tx *gorm.DB) error {
			runs++
			return tx.Exec(update).Error
		}
		start := time.Now()
		if viaRunTransaction {
			err = spannergorm.RunTransaction(context.Background(), db, fn)
		} else {
			err = db.Transaction(fn)
		}
		if err != nil {
			t.Fatalf("RunTransaction=%v: %v", viaRunTransaction, err)
		}
		var sent int
		for _, r := range s.RequestsFor("ExecuteSql") {
			if r.ExecuteSQL().GetSql() == update {
				sent++
			}
		}
		commits := len(s.RequestsFor("Commit"))
		wantRuns := 1
		if viaRunTransaction {
			wantRuns = 2
		}
		if runs != wantRuns || sent != 2 || commits != 2 {
			t.Errorf("RunTransaction=%v: function ran %d times, UPDATE sent %d times, %d Commits; want %d, 2, 2",
				viaRunTransaction, runs, sent, commits, wantRuns)
		}
		if el := time.Since(start); el < 30*time.Millisecond {
			t.Errorf("RunTransaction=%v: retried after %v, before the server's delay", viaRunTransaction, el)
		}
	}
}

// TestFakeRunTransactionReportsRetries: each abort RunTransaction retries
// is reported as driver.RunTransaction reports it, learnt from the
// connector GORM's pool uses: an "abort" event with action retry and the
// attempt's number on the span of the caller's context, and an Info record
// of the connector's logger.
func TestFakeRunTransactionReportsRetries(t *testing.T) {
	const update = "UPDATE items SET n = 1 WHERE id = 1"
	s := fakespanner.Start(t)
	s.AddResult(fakespanner.DialectQuery, fakespanner.DialectResult("GOOGLE_STANDARD_SQL"))
	s.AddResult(update, fakespanner.DML(1))
	s.AddMethodFault("Commit", fakespanner.Fault{Err: fakespanner.WithRetryDelay(codes.Aborted, "aborted", time.Millisecond)})
	cfg, err := dsn.Parse(s.Addr() + "/projects/p/instances/i/databases/d;usePlainText=true")
	if err != nil {
		t.Fatal(err)
	}
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	var logged bytes.Buffer
	connector, err := driver.NewConnector(cfg, driver.WithTracerProvider(tp),
		driver.WithLogger(slog.New(slog.NewJSONHandler(&logged, &slog.HandlerOptions{Level: slog.LevelInfo}))))
	if err != nil {
		t.Fatal(err)
	}
	db, err := gorm.Open(spannergorm.New(spannergorm.Config{Connector: connector}), &gorm.Config{Logger: logger.Discard})
	if err != nil {
		t.Fatal(err)
	}
	sqlDB, _ := db.DB()
	t.Cleanup(func() { _ = sqlDB.Close() })

	ctx, app := tp.Tracer("app").Start(context.Background(), "app")
	runs := 0
	err = spannergorm.RunTransaction(ctx, db, func(tx *gorm.DB) error {
		runs++
		return tx.Exec(update).Error
	})
	app.End()
	if err != nil || runs != 2 {
		t.Fatalf("RunTransaction = %v after %d runs, want nil after 2", err, runs)
	}
	var retries []attribute.Set
	for _, sp := range spans.Ended() {
		if sp.SpanContext().SpanID() != app.SpanContext().SpanID() {
			continue
		}
		for _, e := range sp.Events() {
			if e.Name == "abort" {
				retries = append(retries, attribute.NewSet(e.Attributes...))
			}
		}
	}
	if len(retries) != 1 {
		t.Fatalf("%d abort events on the application's span, want 1", len(retries))
	}
	if v, _ := retries[0].Value("spanner.abort.action"); v.AsString() != "retry" {
		t.Errorf("abort event's action %q, want retry", v.AsString())
	}
	if v, _ := retries[0].Value("spanner.attempt"); v.AsInt64() != 1 {
		t.Errorf("abort event's attempt %d, want 1", v.AsInt64())
	}
	var retryRecords int
	for _, line := range strings.Split(strings.TrimSpace(logged.String()), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		if rec["event"] == "abort" && rec["spanner.abort.action"] == "retry" && rec["level"] == "INFO" {
			retryRecords++
		}
	}
	if retryRecords != 1 {
		t.Errorf("%d Info records of a retried abort, want 1; log:\n%s", retryRecords, logged.String())
	}
}
