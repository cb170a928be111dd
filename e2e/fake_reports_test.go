package e2e

import (
	"context"
	"database/sql"
	"encoding/hex"
	"log/slog"
	"sort"
	"sync"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	sfdriver "github.com/spannerfast/spannerfast/driver"
	"github.com/spannerfast/spannerfast/dsn"
	"github.com/spannerfast/spannerfast/internal/fakespanner"
)

// The reports of what the driver does on its own after a failure
// (docs/observability.md#retries-aborts-and-replays): span events on the
// span of the work's context and records of the connector's slog logger,
// with their attempt numbers, on the scripted fake server.

// logRecords is a slog.Handler that keeps every record, at every level.
type logRecords struct {
	mu   sync.Mutex
	recs []slog.Record
}

func (h *logRecords) Enabled(context.Context, slog.Level) bool { return true }
func (h *logRecords) Handle(_ context.Context, r slog.Record) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.recs = append(h.recs, r.Clone())
	return nil
}
func (h *logRecords) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *logRecords) WithGroup(string) slog.Handler      { return h }

// report is one span event or log record: its name, level (logs) and
// attributes by key.
type report struct {
	name  string
	level slog.Level
	attrs map[string]any
}

// withEvent returns the records whose "event" attribute is name, in order.
func (h *logRecords) withEvent(name string) []report {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []report
	for _, r := range h.recs {
		rep := report{name: r.Message, level: r.Level, attrs: map[string]any{}}
		r.Attrs(func(a slog.Attr) bool { rep.attrs[a.Key] = a.Value.Any(); return true })
		if rep.attrs["event"] == name || (name == "session" && rep.attrs["spanner.session"] != nil) {
			out = append(out, rep)
		}
	}
	return out
}

// observed is a database on the fake server whose connector traces into
// an in-memory recorder and logs into logRecords.
type observed struct {
	db    *sql.DB
	tp    *sdktrace.TracerProvider
	spans *tracetest.SpanRecorder
	logs  *logRecords
}

func openObserved(t *testing.T, s *fakespanner.Server, props ...string) *observed {
	t.Helper()
	return openObservedDSN(t, fakeDSN(s, props...))
}

// openObservedDSN is openObserved on any server.
func openObservedDSN(t *testing.T, dsnString string) *observed {
	t.Helper()
	o := &observed{spans: tracetest.NewSpanRecorder(), logs: &logRecords{}}
	o.tp = sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(o.spans))
	t.Cleanup(func() { _ = o.tp.Shutdown(context.Background()) })
	cfg, err := dsn.Parse(dsnString)
	if err != nil {
		t.Fatal(err)
	}
	c, err := sfdriver.NewConnector(cfg, sfdriver.WithTracerProvider(o.tp), sfdriver.WithLogger(slog.New(o.logs)))
	if err != nil {
		t.Fatal(err)
	}
	o.db = sql.OpenDB(c)
	t.Cleanup(func() { o.db.Close() })
	return o
}

// root starts the application's span; the test ends it before reading the
// recorder.
func (o *observed) root() (context.Context, trace.Span) { return o.rootIn(context.Background()) }

// rootIn is root in ctx.
func (o *observed) rootIn(ctx context.Context) (context.Context, trace.Span) {
	return o.tp.Tracer("app").Start(ctx, "app")
}

// within reports whether the span sc names is root or a descendant of it
// among the ended spans.
func (o *observed) within(sc trace.SpanContext, root trace.Span) bool {
	parents := map[trace.SpanID]trace.SpanID{}
	for _, s := range o.spans.Ended() {
		parents[s.SpanContext().SpanID()] = s.Parent().SpanID()
	}
	for id := sc.SpanID(); id.IsValid(); id = parents[id] {
		if id == root.SpanContext().SpanID() {
			return true
		}
	}
	return false
}

// events returns the span events named name on every ended span, oldest
// first.
func (o *observed) events(name string) []report {
	type timed struct {
		r  report
		at int64
	}
	var all []timed
	for _, s := range o.spans.Ended() {
		for _, e := range s.Events() {
			if e.Name == name {
				all = append(all, timed{report{name: e.Name, attrs: attrMap(e.Attributes)}, e.Time.UnixNano()})
			}
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].at < all[j].at })
	out := make([]report, len(all))
	for i, a := range all {
		out[i] = a.r
	}
	return out
}

// spansNamed returns the ended spans named cloud.google.com/go/spanner.<op>.
func (o *observed) spansNamed(op string) []sdktrace.ReadOnlySpan {
	var out []sdktrace.ReadOnlySpan
	for _, s := range o.spans.Ended() {
		if s.Name() == "cloud.google.com/go/spanner."+op {
			out = append(out, s)
		}
	}
	return out
}

func attrMap(kvs []attribute.KeyValue) map[string]any {
	m := map[string]any{}
	for _, kv := range kvs {
		m[string(kv.Key)] = kv.Value.AsInterface()
	}
	return m
}

// checkReports compares the span events and the log records of one kind
// with want (the attributes each must have, in order) and the level of
// the records.
func checkReports(t *testing.T, o *observed, event string, level slog.Level, want ...map[string]any) {
	t.Helper()
	events, logs := o.events(event), o.logs.withEvent(event)
	if len(events) != len(want) || len(logs) != len(want) {
		t.Fatalf("%q: %d span events and %d log records, want %d of each\nevents %v\nlogs %v", event, len(events), len(logs), len(want), events, logs)
	}
	for i, w := range want {
		if logs[i].level != level {
			t.Errorf("%q record %d at %v, want %v", event, i, logs[i].level, level)
		}
		for k, v := range w {
			if events[i].attrs[k] != v || logs[i].attrs[k] != v {
				t.Errorf("%q %d: %s = %v (event), %v (log); want %v", event, i, k, events[i].attrs[k], logs[i].attrs[k], v)
			}
		}
	}
}

// TestFakeRetryReports: a unary call that fails twice with UNAVAILABLE is
// reported as two "retry" events and two Debug records, attempts 1 and 2,
// with the method and the code.
func TestFakeRetryReports(t *testing.T) {
	s := fakespanner.Start(t)
	s.AddResult(txnUpdate, fakespanner.DML(3))
	o := openObserved(t, s)
	s.AddMethodFault("ExecuteSql", fakespanner.Fault{Err: fakespanner.ErrUnavailable, Times: 2})
	ctx, span := o.root()
	if _, err := o.db.ExecContext(ctx, txnUpdate); err != nil {
		t.Fatal(err)
	}
	span.End()
	unavailable := int64(codes.Unavailable)
	checkReports(t, o, "retry", slog.LevelDebug,
		map[string]any{"spanner.attempt": int64(1), "rpc.method": "ExecuteSql", "rpc.grpc.status_code": unavailable, "error.type": "Unavailable"},
		map[string]any{"spanner.attempt": int64(2), "rpc.method": "ExecuteSql", "rpc.grpc.status_code": unavailable, "error.type": "Unavailable"})
}

// TestFakeResumeReports: a query that fails before its first message and
// again after its first resume token is reported as two "resume" events
// and Debug records: attempt 1 starting over (no token), attempt 2 after
// the token.
func TestFakeResumeReports(t *testing.T) {
	s := fakespanner.Start(t)
	s.AddResult(txnQuery, &fakespanner.Result{ResultSet: stringRows("a", "b", "c"), Split: fakespanner.SplitOptions{MaxValues: 1},
		Faults: []fakespanner.Fault{{AfterMessage: 0, Err: fakespanner.ErrRSTStream}, {AfterMessage: 1, Err: fakespanner.ErrUnavailable}}})
	o := openObserved(t, s)
	ctx, span := o.root()
	rows, err := o.db.QueryContext(ctx, txnQuery)
	if err != nil {
		t.Fatal(err)
	}
	if got := readStrings(t, rows); len(got) != 3 {
		t.Fatalf("rows %v", got)
	}
	span.End()
	checkReports(t, o, "resume", slog.LevelDebug,
		map[string]any{"spanner.attempt": int64(1), "rpc.method": "ExecuteStreamingSql", "error.type": "Internal", "spanner.resume_token": ""},
		map[string]any{"spanner.attempt": int64(2), "error.type": "Unavailable", "spanner.resume_token": hex.EncodeToString(fakespanner.ResumeToken(0))})
}

// TestFakeAbortReplayReports: an abort at commit is an "abort" event and
// Info record (attempt 1, action replay); the replay that follows is a
// "replay" event at its start (Debug, with the statements it runs again)
// and at its outcome (Info): succeeded, or data_changed when the data
// changed (the commit then fails with
// ErrAbortedDueToConcurrentModification).
func TestFakeAbortReplayReports(t *testing.T) {
	for _, changed := range []bool{false, true} {
		s, _ := startTxnFake(t)
		o := openObserved(t, s)
		s.AddMethodFault("Commit", fakespanner.Fault{Err: fakespanner.WithRetryDelay(codes.Aborted, "aborted", 0)})
		ctx, span := o.root()
		tx, err := o.db.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		readStrings(t, mustQuery(t, tx, txnQuery))
		if _, err := tx.ExecContext(ctx, txnUpdate); err != nil {
			t.Fatal(err)
		}
		outcome := "succeeded"
		if changed {
			s.AddResult(txnQuery, &fakespanner.Result{ResultSet: stringRows("a", "c")})
			outcome = "data_changed"
		}
		err = tx.Commit()
		if changed != (err != nil) {
			t.Fatalf("changed %v: Commit = %v", changed, err)
		}
		span.End()
		checkReports(t, o, "abort", slog.LevelInfo,
			map[string]any{"spanner.attempt": int64(1), "error.type": "Aborted", "rpc.grpc.status_code": int64(codes.Aborted), "spanner.abort.action": "replay"})
		events, logs := o.events("replay"), o.logs.withEvent("replay")
		if len(events) != 2 || len(logs) != 2 {
			t.Fatalf("%d replay events, %d records; want 2 and 2", len(events), len(logs))
		}
		for i, w := range []struct {
			outcome string
			level   slog.Level
		}{{"started", slog.LevelDebug}, {outcome, slog.LevelInfo}} {
			for _, r := range []report{events[i], logs[i]} {
				if r.attrs["spanner.replay.outcome"] != w.outcome || r.attrs["spanner.attempt"] != int64(1) || r.attrs["spanner.replay.statements"] != int64(2) {
					t.Errorf("replay report %d: %v, want outcome %s, attempt 1, 2 statements", i, r.attrs, w.outcome)
				}
			}
			if logs[i].level != w.level {
				t.Errorf("replay record %d at %v, want %v", i, logs[i].level, w.level)
			}
		}
	}
}

// TestFakeAbortWithoutReplayReports: with retry_aborts_internally off the
// abort goes to the application (action return); autocommit DML aborted at
// commit is run again whole (action retry), each abort numbered.
func TestFakeAbortWithoutReplayReports(t *testing.T) {
	s, _ := startTxnFake(t)
	o := openObserved(t, s, "retry_aborts_internally=false")
	s.AddMethodFault("Commit", fakespanner.Fault{Err: fakespanner.WithRetryDelay(codes.Aborted, "aborted", 0)})
	ctx, span := o.root()
	tx, err := o.db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.ExecContext(ctx, txnUpdate); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); status.Code(err) != codes.Aborted {
		t.Fatalf("Commit = %v, want ABORTED", err)
	}
	s.AddMethodFault("Commit", fakespanner.Fault{Err: fakespanner.WithRetryDelay(codes.Aborted, "aborted", 0), Times: 2})
	if _, err := o.db.ExecContext(ctx, txnUpdate); err != nil {
		t.Fatal(err)
	}
	span.End()
	checkReports(t, o, "abort", slog.LevelInfo,
		map[string]any{"spanner.attempt": int64(1), "spanner.abort.action": "return"},
		map[string]any{"spanner.attempt": int64(1), "spanner.abort.action": "retry"},
		map[string]any{"spanner.attempt": int64(2), "spanner.abort.action": "retry"})
	if n := len(o.logs.withEvent("replay")); n != 0 {
		t.Errorf("%d replay records without replays", n)
	}
}

// TestFakeSessionReports: the multiplexed session is created in a
// CreateSession span, child of the work that needed it, and logged at
// Debug; after Spanner lost it, the new one is logged at Info as made
// again (reason not_found).
func TestFakeSessionReports(t *testing.T) {
	s := fakespanner.Start(t)
	o := openObserved(t, s)
	s.AddMethodFault("CreateSession", fakespanner.Fault{Err: fakespanner.ErrUnavailable})
	ctx, span := o.root()
	var one int64
	if err := o.db.QueryRowContext(ctx, "SELECT 1").Scan(&one); err != nil {
		t.Fatal(err)
	}
	if !s.DropSession(s.Sessions()[0].Name) {
		t.Fatal("session not dropped")
	}
	if err := o.db.QueryRowContext(ctx, "SELECT 1").Scan(&one); err != nil {
		t.Fatal(err)
	}
	span.End()
	recs := o.logs.withEvent("session")
	if len(recs) != 2 {
		t.Fatalf("%d session records, want 2: %v", len(recs), recs)
	}
	for i, w := range []struct {
		level  slog.Level
		reason string
	}{{slog.LevelDebug, "first"}, {slog.LevelInfo, "not_found"}} {
		r := recs[i]
		if r.level != w.level || r.attrs["spanner.session.reason"] != w.reason || r.attrs["spanner.session.multiplexed"] != true || r.attrs["spanner.session"] != s.Sessions()[0].Name && i == 1 {
			t.Errorf("session record %d: %v %v, want %v reason %s", i, r.level, r.attrs, w.level, w.reason)
		}
	}
	created := o.spansNamed("CreateSession")
	if len(created) != 2 {
		t.Fatalf("%d CreateSession spans, want 2", len(created))
	}
	if !o.within(created[0].Parent(), span) {
		t.Errorf("the first CreateSession span is not under the application's span")
	}
	// Its transient failure is a retry event on it.
	var retries []report
	for _, e := range created[0].Events() {
		if e.Name == "retry" {
			retries = append(retries, report{attrs: attrMap(e.Attributes)})
		}
	}
	if len(retries) != 1 || retries[0].attrs["rpc.method"] != "CreateSession" || retries[0].attrs["spanner.attempt"] != int64(1) {
		t.Errorf("retry events on the CreateSession span: %v, want one, attempt 1", retries)
	}
}

// TestFakePartitionSpans: a partitioned read is a PartitionQuery span and a
// Partition span per partition (its index and the rows it read), all
// children of the span of the read's context; a partition resumed after a
// transient failure has its "resume" event on its own span.
func TestFakePartitionSpans(t *testing.T) {
	sizes := []int{3, 0, 5}
	s := fakespanner.Start(t)
	addParts(s, sizes, map[int][]fakespanner.Fault{2: {{AfterMessage: 1, Err: fakespanner.ErrUnavailable}}})
	o := openObserved(t, s, "max_partitioned_parallelism=2")
	ctx, span := o.root()
	rows, err := o.db.QueryContext(ctx, "RUN PARTITIONED QUERY "+partSQL)
	if err != nil {
		t.Fatal(err)
	}
	checkEveryRowOnce(t, readParts(t, rows), sizes)
	span.End()
	pq := o.spansNamed("PartitionQuery")
	if len(pq) != 1 {
		t.Fatalf("%d PartitionQuery spans, want 1", len(pq))
	}
	if a := attrMap(pq[0].Attributes()); a["spanner.partition.count"] != int64(len(sizes)) || a["db.query.text"] != partSQL {
		t.Errorf("PartitionQuery attributes %v", a)
	}
	parent := pq[0].Parent()
	if parent.TraceID() != span.SpanContext().TraceID() {
		t.Fatalf("PartitionQuery span outside the application's trace")
	}
	parts := o.spansNamed("Partition")
	if len(parts) != len(sizes) {
		t.Fatalf("%d Partition spans, want %d", len(parts), len(sizes))
	}
	seen := map[int64]bool{}
	for _, p := range parts {
		a := attrMap(p.Attributes())
		i, _ := a["spanner.partition.index"].(int64)
		seen[i] = true
		if p.Parent().SpanID() != parent.SpanID() {
			t.Errorf("partition %d: parent %v, want the PartitionQuery span's parent %v", i, p.Parent().SpanID(), parent.SpanID())
		}
		if a["db.query.text"] != partSQL {
			t.Errorf("partition %d: db.query.text %v", i, a["db.query.text"])
		}
		if want := int64(sizes[i]); want > 0 && a["db.response.returned_rows"] != want {
			t.Errorf("partition %d: returned_rows %v, want %d", i, a["db.response.returned_rows"], want)
		}
		// The stream's resumption is an event of the partition's query:
		// the Query span, a child of the Partition span.
		resumes := 0
		for _, q := range o.spansNamed("Query") {
			if q.Parent().SpanID() != p.SpanContext().SpanID() {
				continue
			}
			for _, e := range q.Events() {
				if e.Name == "resume" {
					resumes++
				}
			}
		}
		if want := map[bool]int{true: 1, false: 0}[i == 2]; resumes != want {
			t.Errorf("partition %d: %d resume events, want %d", i, resumes, want)
		}
	}
	if len(seen) != len(sizes) {
		t.Errorf("partition indexes %v, want 0..%d", seen, len(sizes)-1)
	}
}
