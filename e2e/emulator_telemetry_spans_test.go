package e2e

import (
	"context"
	"database/sql"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"testing"

	"cloud.google.com/go/spanner"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	grpccodes "google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	sfdriver "github.com/spannerfast/spannerfast/driver"
	"github.com/spannerfast/spannerfast/internal/emulatortest"
)

// The spans of what an application does, and their structure, on the
// emulator in both dialects (docs/observability.md): each step runs under
// an application span of its own, and the test checks that step's spans
// below it. One database per dialect keeps the run short.

// emuTelDialect is what differs between the dialects in these steps.
type emuTelDialect struct {
	name  string
	opts  []emulatortest.Option
	ddl   []string // the accounts table
	tx    emuTxDialect
	index string // a DDL statement
}

var emuTelDialects = []emuTelDialect{
	{name: "GoogleSQL", ddl: emuAccountsDDL, tx: emuGSQLTx, index: "CREATE INDEX AccountsByBalance ON Accounts (Balance)"},
	{name: "PostgreSQL", opts: []emulatortest.Option{emulatortest.WithDialect(emulatortest.PostgreSQL)}, ddl: emuPGAccountsDDL, tx: emuPGTx,
		index: "CREATE INDEX accounts_by_balance ON accounts (balance)"},
}

// emuTelStep is one step's application span and the spans recorded below
// it once it ended.
type emuTelStep struct {
	t    *testing.T
	o    *observed
	ctx  context.Context
	root trace.Span
}

func (o *observed) step(t *testing.T, ctx context.Context) *emuTelStep {
	actx, root := o.rootIn(ctx)
	return &emuTelStep{t: t, o: o, ctx: actx, root: root}
}

// below ends the step and returns its spans named op (all when op is
// ""), those directly under the application span first.
func (s *emuTelStep) below(op string) []sdktrace.ReadOnlySpan {
	s.root.End()
	var out []sdktrace.ReadOnlySpan
	for _, sp := range s.o.spans.Ended() {
		if sp.SpanContext().SpanID() == s.root.SpanContext().SpanID() || !s.o.within(sp.SpanContext(), s.root) {
			continue
		}
		if op == "" || sp.Name() == "cloud.google.com/go/spanner."+op {
			out = append(out, sp)
		}
	}
	return out
}

// one returns the one span named op under the step, failing otherwise.
func (s *emuTelStep) one(op string) sdktrace.ReadOnlySpan {
	s.t.Helper()
	got := s.below(op)
	if len(got) != 1 {
		s.t.Fatalf("%d %s spans in the step, want 1 (spans: %v)", len(got), op, spanNames(s.below("")))
	}
	return got[0]
}

// direct reports whether sp is a child of the step's application span.
func (s *emuTelStep) direct(sp sdktrace.ReadOnlySpan) bool {
	return sp.Parent().SpanID() == s.root.SpanContext().SpanID()
}

// TestEmulatorTelemetrySpans: on the emulator, in both dialects, a query's
// span lasts until its rows are closed and carries its text, rows,
// namespace and server; autocommit DML is an Update and a Commit; DML
// batches (SQL and API) are BatchUpdate spans; a read-write transaction
// aborted for real is replayed, with the abort and replay events on its
// span; RunTransaction's retry of an aborted attempt is an event and a log
// record; a read-only transaction has its query as child; DDL is one span
// with its long-running operation; partitioned DML is a PartitionedUpdate
// span; a failing statement has error status, the gRPC code and the
// request id of its error; request ids are unique.
func TestEmulatorTelemetrySpans(t *testing.T) {
	t.Parallel()
	for _, d := range emuTelDialects {
		t.Run(d.name, func(t *testing.T) {
			t.Parallel()
			emuTelemetrySpans(t, d)
		})
	}
}

func emuTelemetrySpans(t *testing.T, d emuTelDialect) {
	ctx := emuCtx(t)
	edb := emulatortest.NewDatabase(t, append(d.opts, emulatortest.WithDDL(d.ddl...))...)
	o := openObservedDSN(t, edb.DSN())
	other := emuOpen(t, edb.DSN()) // its own sessions: the emulator tells its transactions apart
	emuExec(t, ctx, o.db, "INSERT INTO accounts (id, balance) VALUES (1, 10), (2, 20)")
	host, port, err := net.SplitHostPort(edb.Endpoint)
	if err != nil {
		t.Fatal(err)
	}

	t.Run("query", func(t *testing.T) {
		s := o.step(t, ctx)
		const q = "SELECT balance FROM accounts ORDER BY id"
		rows, err := o.db.QueryContext(s.ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		if !rows.Next() {
			t.Fatal(rows.Err())
		}
		for _, sp := range o.spans.Ended() {
			if attr(sp, "db.query.text").AsString() == q {
				t.Fatal("the query's span ended before its rows were closed")
			}
		}
		for rows.Next() {
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		rows.Close()
		sp := s.one("Query")
		want := map[string]any{
			"db.query.text": q, "db.response.returned_rows": int64(2), "db.namespace": edb.Path(),
			"db.system.name": "gcp.spanner", "db.operation.name": "Query", "server.address": host,
		}
		for k, v := range want {
			if got := attr(sp, k).AsInterface(); got != v {
				t.Errorf("%s = %v, want %v", k, got, v)
			}
		}
		if p := attr(sp, "server.port").AsInt64(); strconv.FormatInt(p, 10) != port {
			t.Errorf("server.port %d, want %s", p, port)
		}
		if !s.direct(sp) || sp.SpanKind() != trace.SpanKindClient || sp.Status().Code == codes.Error {
			t.Errorf("Query span: parent %v, kind %v, status %v", sp.Parent().SpanID(), sp.SpanKind(), sp.Status())
		}
		if attr(sp, "x_goog_spanner_request_id").AsString() == "" {
			t.Error("the Query span has no request id")
		}
	})

	t.Run("autocommit DML", func(t *testing.T) {
		s := o.step(t, ctx)
		const q = "UPDATE accounts SET balance = balance + 1 WHERE id = 1"
		emuExec(t, s.ctx, o.db, q)
		up, commit := s.one("Update"), s.one("Commit")
		if !s.direct(up) || !s.direct(commit) {
			t.Error("autocommit DML's Update and Commit are not children of the application's span")
		}
		if attr(up, "db.query.text").AsString() != q || attr(up, "spanner.rows_affected").AsInt64() != 1 {
			t.Errorf("Update span: %v", up.Attributes())
		}
		if attr(commit, "spanner.commit_timestamp").AsString() == "" {
			t.Error("the Commit span has no commit timestamp")
		}
	})

	t.Run("DML batch", func(t *testing.T) {
		c, err := o.db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		s := o.step(t, ctx)
		emuExec(t, s.ctx, c, "START BATCH DML")
		emuExec(t, s.ctx, c, "UPDATE accounts SET balance = balance + 1 WHERE id = 1")
		emuExec(t, s.ctx, c, "UPDATE accounts SET balance = balance + 1 WHERE id > 0")
		emuExec(t, s.ctx, c, "RUN BATCH")
		sqlSpan := s.one("BatchUpdate")
		api := o.step(t, ctx)
		if _, err := sfdriver.ExecuteBatchDml(api.ctx, o.db, func(ctx context.Context, b sfdriver.DmlBatch) error {
			return b.ExecContext(ctx, "UPDATE accounts SET balance = balance - 1 WHERE id = 2")
		}); err != nil {
			t.Fatal(err)
		}
		apiSpan := api.one("BatchUpdate")
		for _, c := range []struct {
			s        *emuTelStep
			sp       sdktrace.ReadOnlySpan
			size, n  int64
			textPart string
		}{{s, sqlSpan, 2, 3, "; UPDATE accounts SET balance = balance + 1 WHERE id > 0"}, {api, apiSpan, 1, 1, "balance - 1"}} {
			if !c.s.direct(c.sp) || attr(c.sp, "db.operation.batch.size").AsInt64() != c.size ||
				attr(c.sp, "spanner.rows_affected").AsInt64() != c.n || !strings.Contains(attr(c.sp, "db.query.text").AsString(), c.textPart) {
				t.Errorf("BatchUpdate span (batch of %d): %v", c.size, c.sp.Attributes())
			}
		}
		if len(s.below("Update")) != 0 {
			t.Error("a statement of the batch has an Update span of its own")
		}
	})

	t.Run("read-write transaction aborted and replayed", func(t *testing.T) {
		s := o.step(t, ctx)
		tx, err := o.db.BeginTx(s.ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		seen := emuInt64s(t, ctx, tx, "SELECT balance FROM accounts WHERE id = 2")[0]
		provokeAbort(t, ctx, other)
		if _, err := tx.ExecContext(ctx, d.tx.setBalance2, d.tx.param(seen+100)); err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		txSpan := s.one("ReadWriteTransaction")
		if !s.direct(txSpan) || txSpan.Status().Code == codes.Error || attr(txSpan, "spanner.transaction.end").AsString() != "commit" {
			t.Errorf("transaction span: parent %v, status %v, %v", txSpan.Parent().SpanID(), txSpan.Status(), txSpan.Attributes())
		}
		var aborts, replays []map[string]any
		for _, sp := range append(s.below(""), txSpan) {
			for _, e := range sp.Events() {
				switch e.Name {
				case "abort":
					aborts = append(aborts, attrMap(e.Attributes))
				case "replay":
					replays = append(replays, attrMap(e.Attributes))
				}
			}
		}
		onTx := map[string]int{}
		for _, e := range txSpan.Events() {
			onTx[e.Name]++
		}
		if len(aborts) == 0 || aborts[0]["spanner.abort.action"] != "replay" || aborts[0]["spanner.attempt"] != int64(1) ||
			aborts[0]["rpc.grpc.status_code"] != int64(grpccodes.Aborted) {
			t.Errorf("abort events %v, want the first with action replay, attempt 1, code ABORTED", aborts)
		}
		if n := len(replays); n < 2 || replays[0]["spanner.replay.outcome"] != "started" || replays[n-1]["spanner.replay.outcome"] != "succeeded" {
			t.Errorf("replay events %v, want started ... succeeded", replays)
		}
		if onTx["abort"]+onTx["replay"] == 0 {
			t.Errorf("no abort or replay event on the transaction's span (events on its children: %d aborts, %d replays)", len(aborts), len(replays))
		}
		children := map[string]int{}
		for _, sp := range s.below("") {
			if childOf(sp, txSpan) {
				children[strings.TrimPrefix(sp.Name(), "cloud.google.com/go/spanner.")]++
			}
		}
		if children["Query"] < 2 || children["Update"] < 1 || children["Commit"] != 1 {
			t.Errorf("transaction's children %v, want the query twice (run and replayed), the update and one commit", children)
		}
		if got := o.logs.withEvent("abort"); len(got) == 0 || got[0].level != slog.LevelInfo {
			t.Errorf("abort log records %v, want one at Info", got)
		}
	})

	t.Run("RunTransaction retried after an abort", func(t *testing.T) {
		before := len(o.logs.withEvent("abort"))
		s := o.step(t, ctx)
		attempts := 0
		err := sfdriver.RunTransaction(s.ctx, o.db, nil, func(fctx context.Context, tx *sql.Tx) error {
			attempts++
			b := emuInt64s(t, fctx, tx, "SELECT balance FROM accounts WHERE id = 1")[0]
			if attempts == 1 {
				provokeAbort(t, ctx, other) // outside the application's span
			}
			_, err := tx.ExecContext(fctx, d.tx.setBalance2, d.tx.param(b*10))
			return err
		})
		if err != nil || attempts != 2 {
			t.Fatalf("RunTransaction: %v after %d attempts, want success after 2", err, attempts)
		}
		txs := s.below("ReadWriteTransaction")
		if len(txs) != 2 {
			t.Fatalf("%d transaction spans, want 2", len(txs))
		}
		// The aborted attempt is rolled back: its transaction's span ends
		// with the rollback, and the statement Spanner aborted has the
		// error, with the abort that went back to RunTransaction as an
		// event on the transaction's span.
		ends := map[string]int{}
		aborted := 0
		for _, tx := range txs {
			ends[attr(tx, "spanner.transaction.end").AsString()]++
			for _, sp := range s.below("") {
				if childOf(sp, tx) && sp.Status().Code == codes.Error && attr(sp, "rpc.grpc.status_code").AsInt64() == int64(grpccodes.Aborted) {
					aborted++
				}
			}
			for _, e := range tx.Events() {
				if e.Name == "abort" && attrMap(e.Attributes)["spanner.abort.action"] != "return" {
					t.Errorf("abort event on a RunTransaction attempt's span %v, want action return", attrMap(e.Attributes))
				}
			}
		}
		if ends["commit"] != 1 || ends["rollback"] != 1 || aborted != 1 {
			t.Errorf("transactions ended %v with %d aborted statements, want one commit, one rollback, one aborted statement", ends, aborted)
		}
		s.root.End()
		var events []map[string]any
		for _, sp := range o.spans.Ended() {
			if sp.SpanContext().SpanID() == s.root.SpanContext().SpanID() {
				for _, e := range sp.Events() {
					if e.Name == "abort" {
						events = append(events, attrMap(e.Attributes))
					}
				}
			}
		}
		if len(events) != 1 || events[0]["spanner.abort.action"] != "retry" || events[0]["spanner.attempt"] != int64(1) {
			t.Errorf("abort events on the application's span %v, want one, action retry, attempt 1", events)
		}
		logs := o.logs.withEvent("abort")[before:]
		if len(logs) != 2 || logs[0].attrs["spanner.abort.action"] != "return" || logs[1].attrs["spanner.abort.action"] != "retry" ||
			logs[1].attrs["spanner.attempt"] != int64(1) || logs[1].level != slog.LevelInfo {
			t.Errorf("abort log records %v, want the abort returned by the attempt, then its retry (attempt 1, Info)", logs)
		}
	})

	t.Run("read-only transaction", func(t *testing.T) {
		s := o.step(t, ctx)
		ro, err := o.db.BeginTx(s.ctx, &sql.TxOptions{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		emuInt64s(t, ctx, ro, "SELECT id FROM accounts")
		if err := ro.Commit(); err != nil {
			t.Fatal(err)
		}
		txSpan, q := s.one("ReadOnlyTransaction"), s.one("Query")
		if !s.direct(txSpan) || !childOf(q, txSpan) || attr(txSpan, "spanner.read_timestamp").AsString() == "" {
			t.Errorf("read-only transaction: parent ok %v, query its child %v, %v", s.direct(txSpan), childOf(q, txSpan), txSpan.Attributes())
		}
		if len(s.below("Commit")) != 0 {
			t.Error("a read-only transaction has a Commit span")
		}
	})

	t.Run("DDL", func(t *testing.T) {
		s := o.step(t, ctx)
		emuExec(t, s.ctx, o.db, d.index)
		sp := s.one("UpdateDatabaseDdl")
		if !s.direct(sp) || attr(sp, "db.query.text").AsString() != d.index || attr(sp, "spanner.ddl.operation").AsString() == "" {
			t.Errorf("UpdateDatabaseDdl span: %v", sp.Attributes())
		}
	})

	t.Run("partitioned DML", func(t *testing.T) {
		s := o.step(t, ctx)
		const q = "UPDATE accounts SET balance = 0 WHERE id > 1"
		emuExec(t, s.ctx, o.db, q, sfdriver.ExecOptions{AutocommitDMLMode: sfdriver.PartitionedNonAtomic})
		sp := s.one("PartitionedUpdate")
		if !s.direct(sp) || attr(sp, "db.query.text").AsString() != q || attr(sp, "spanner.rows_affected").AsInt64() != 1 ||
			attr(sp, "db.operation.name").AsString() != "PartitionedUpdate" || attr(sp, "x_goog_spanner_request_id").AsString() == "" {
			t.Errorf("PartitionedUpdate span: %v", sp.Attributes())
		}
		if n := len(s.below("Query")); n != 0 {
			t.Errorf("partitioned DML made %d Query spans too", n)
		}
	})

	t.Run("Apply at least once", func(t *testing.T) {
		c, err := o.db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		s := o.step(t, ctx)
		err = c.Raw(func(dc any) error {
			_, err := dc.(sfdriver.SpannerConn).Apply(s.ctx, []*spanner.Mutation{
				spanner.InsertOrUpdate("accounts", []string{"id", "balance"}, []any{int64(3), int64(3)}),
			}, spanner.ApplyAtLeastOnce())
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		apply, commit := s.one("Apply"), s.one("Commit")
		if !s.direct(apply) || !childOf(commit, apply) || attr(apply, "spanner.mutation_count").AsInt64() != 1 {
			t.Errorf("Apply span %v (a direct child: %v), its Commit a child: %v", apply.Attributes(), s.direct(apply), childOf(commit, apply))
		}
	})

	t.Run("failing statement", func(t *testing.T) {
		s := o.step(t, ctx)
		_, err := o.db.ExecContext(s.ctx, "UPDATE no_such_table SET x = 1 WHERE true")
		if err == nil {
			t.Fatal("an update of a missing table succeeded")
		}
		sp := s.one("Update")
		id := sfdriver.RequestIDOf(err)
		if id == "" || attr(sp, "x_goog_spanner_request_id").AsString() != id {
			t.Errorf("span's request id %q, the error's %q", attr(sp, "x_goog_spanner_request_id").AsString(), id)
		}
		code := status.Code(err)
		if code == grpccodes.OK || code == grpccodes.Unknown || sp.Status().Code != codes.Error ||
			attr(sp, "rpc.grpc.status_code").AsInt64() != int64(code) || attr(sp, "error.type").AsString() != code.String() {
			t.Errorf("failed span: status %v, attributes %v; error %v (code %v)", sp.Status(), sp.Attributes(), err, code)
		}
	})

	// Every span's request id (that of its last RPC attempt) names a
	// different request.
	seen := map[string]string{}
	for _, sp := range o.spans.Ended() {
		id := attr(sp, "x_goog_spanner_request_id").AsString()
		if id == "" {
			continue
		}
		if prev, dup := seen[id]; dup {
			t.Errorf("request id %s on %s and %s", id, prev, sp.Name())
		}
		seen[id] = sp.Name()
	}
	if len(seen) < 10 {
		t.Errorf("only %d spans carry a request id", len(seen))
	}
}

// TestEmulatorTelemetryDatabaseStatements: CREATE DATABASE and DROP
// DATABASE are spans of their own, children of the application's span,
// with the statement's text.
func TestEmulatorTelemetryDatabaseStatements(t *testing.T) {
	t.Parallel()
	ctx := emuCtx(t)
	edb := emulatortest.NewDatabase(t)
	o := openObservedDSN(t, edb.DSN())
	name := "tel" + edb.ID[len(edb.ID)-8:]
	s := o.step(t, ctx)
	emuExec(t, s.ctx, o.db, "CREATE DATABASE "+name)
	emuExec(t, s.ctx, o.db, "DROP DATABASE "+name)
	for _, c := range []struct{ op, text string }{{"CreateDatabase", "CREATE DATABASE " + name}, {"DropDatabase", "DROP DATABASE " + name}} {
		sp := s.one(c.op)
		if !s.direct(sp) || attr(sp, "db.query.text").AsString() != c.text || sp.Status().Code == codes.Error {
			t.Errorf("%s span: status %v, %v", c.op, sp.Status(), sp.Attributes())
		}
	}
}
