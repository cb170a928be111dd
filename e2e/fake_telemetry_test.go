package e2e

import (
	"context"
	"database/sql"
	"testing"

	"cloud.google.com/go/spanner"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	sfdriver "github.com/spannerfast/spannerfast/driver"
	"github.com/spannerfast/spannerfast/dsn"
	"github.com/spannerfast/spannerfast/internal/fakespanner"
)

// Spans and the operation-duration metric of what an application does, on
// the scripted fake server (docs/observability.md).

// telemetrySinks are an in-memory span recorder and metric reader.
type telemetrySinks struct {
	spans  *tracetest.SpanRecorder
	reader *sdkmetric.ManualReader
}

// openTraced opens a database/sql handle on s whose connector records to
// new in-memory sinks.
func openTraced(t *testing.T, s *fakespanner.Server, props ...string) (*sql.DB, *telemetrySinks) {
	t.Helper()
	return openTracedWith(t, s, nil, props...)
}

// openTracedWith is openTraced with more connector options (a logger).
func openTracedWith(t *testing.T, s *fakespanner.Server, opts []sfdriver.ConnectorOption, props ...string) (*sql.DB, *telemetrySinks) {
	t.Helper()
	k := &telemetrySinks{spans: tracetest.NewSpanRecorder(), reader: sdkmetric.NewManualReader()}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(k.spans))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(k.reader))
	cfg, err := dsn.Parse(fakeDSN(s, append([]string{"database_dialect=GOOGLE_STANDARD_SQL"}, props...)...))
	if err != nil {
		t.Fatal(err)
	}
	opts = append([]sfdriver.ConnectorOption{sfdriver.WithTracerProvider(tp), sfdriver.WithMeterProvider(mp)}, opts...)
	c, err := sfdriver.NewConnector(cfg, opts...)
	if err != nil {
		t.Fatal(err)
	}
	db := sql.OpenDB(c)
	t.Cleanup(func() {
		db.Close()
		_ = tp.Shutdown(context.Background())
		_ = mp.Shutdown(context.Background())
	})
	return db, k
}

// named returns the ended spans called name (the short form: "Query").
func (k *telemetrySinks) named(name string) []sdktrace.ReadOnlySpan {
	var out []sdktrace.ReadOnlySpan
	for _, s := range k.spans.Ended() {
		if s.Name() == "cloud.google.com/go/spanner."+name {
			out = append(out, s)
		}
	}
	return out
}

// one returns the one ended span called name, failing the test otherwise.
func (k *telemetrySinks) one(t *testing.T, name string) sdktrace.ReadOnlySpan {
	t.Helper()
	s := k.named(name)
	if len(s) != 1 {
		t.Fatalf("%d %s spans, want 1 (ended: %v)", len(s), name, spanNames(k.spans.Ended()))
	}
	return s[0]
}

func spanNames(spans []sdktrace.ReadOnlySpan) []string {
	var out []string
	for _, s := range spans {
		out = append(out, s.Name())
	}
	return out
}

// attr returns the value of key on s (an invalid Value if absent).
func attr(s sdktrace.ReadOnlySpan, key string) attribute.Value {
	for _, kv := range s.Attributes() {
		if string(kv.Key) == key {
			return kv.Value
		}
	}
	return attribute.Value{}
}

func childOf(child, parent sdktrace.ReadOnlySpan) bool {
	return child.Parent().SpanID() == parent.SpanContext().SpanID() &&
		child.SpanContext().TraceID() == parent.SpanContext().TraceID()
}

// durations counts the db.client.operation.duration measurements per
// db.operation.name.
func (k *telemetrySinks) durations(t *testing.T) map[string]uint64 {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := k.reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	out := map[string]uint64{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name != "db.client.operation.duration" {
				continue
			}
			for _, p := range m.Data.(metricdata.Histogram[float64]).DataPoints {
				op, _ := p.Attributes.Value("db.operation.name")
				out[op.AsString()] += p.Count
			}
		}
	}
	return out
}

// TestFakeTelemetryQuerySpan: a query's span lasts until its rows are
// closed, records the rows returned, the text, the tags and the database,
// is the child of the application's span, and is measured.
func TestFakeTelemetryQuerySpan(t *testing.T) {
	s, _ := startTxnFake(t)
	db, k := openTraced(t, s)
	app := sdktrace.NewTracerProvider().Tracer("app")
	ctx, appSpan := app.Start(context.Background(), "handler")
	defer appSpan.End()

	rows, err := db.QueryContext(ctx, txnQuery, sfdriver.ExecOptions{QueryOptions: spanner.QueryOptions{RequestTag: "req-tag"}})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(k.named("Query")); n != 0 {
		t.Fatalf("the query's span ended before its rows were read (%d)", n)
	}
	if got := readStrings(t, rows); len(got) != 2 {
		t.Fatalf("rows %v", got)
	}
	q := k.one(t, "Query")
	for key, want := range map[string]any{
		"db.system.name": "gcp.spanner", "db.namespace": fakeDB, "db.operation.name": "Query",
		"db.query.text": txnQuery, "db.response.returned_rows": int64(2), "spanner.request_tag": "req-tag",
	} {
		if got := attr(q, key).AsInterface(); got != want {
			t.Errorf("%s = %v, want %v", key, got, want)
		}
	}
	if attr(q, "spanner.read_timestamp").AsString() == "" {
		t.Error("no spanner.read_timestamp on a single-use read")
	}
	if q.Parent().SpanID() != appSpan.SpanContext().SpanID() {
		t.Error("the query's span is not a child of the application's span")
	}
	if q.Status().Code != codes.Unset {
		t.Errorf("status %v", q.Status())
	}
	if d := k.durations(t); d["Query"] != 1 {
		t.Errorf("durations %v, want one Query", d)
	}
}

// TestFakeTelemetryFailedStatement: a statement Spanner refuses has a span
// with error status and the gRPC code; so does its measurement.
func TestFakeTelemetryFailedStatement(t *testing.T) {
	s, _ := startTxnFake(t)
	db, k := openTraced(t, s)
	if _, err := db.QueryContext(context.Background(), "SELECT * FROM missing"); err == nil {
		t.Fatal("an unscripted query succeeded")
	}
	if _, err := db.ExecContext(context.Background(), "UPDATE missing SET x = 1 WHERE true"); err == nil {
		t.Fatal("an unscripted update succeeded")
	}
	for _, name := range []string{"Query", "Update"} {
		sp := k.one(t, name)
		if sp.Status().Code != codes.Error || sp.Status().Description == "" {
			t.Errorf("%s status %+v, want Error with the message", name, sp.Status())
		}
		if attr(sp, "error.type").AsString() != "InvalidArgument" || attr(sp, "rpc.grpc.status_code").AsInt64() != 3 {
			t.Errorf("%s error.type %v, rpc.grpc.status_code %v", name, attr(sp, "error.type"), attr(sp, "rpc.grpc.status_code"))
		}
	}
	if d := k.durations(t); d["Query"] != 1 || d["Update"] != 1 {
		t.Errorf("durations %v", d)
	}
}

// TestFakeTelemetryTransaction: a read-write transaction's span runs from
// BeginTx to Commit; its query, DML and commit are its children although
// database/sql gives them contexts without it; a rolled-back one ends with
// its Rollback child.
func TestFakeTelemetryTransaction(t *testing.T) {
	s, _ := startTxnFake(t)
	db, k := openTraced(t, s)
	ctx := context.Background()
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	mustExec(t, c, "SET TRANSACTION_TAG = 'tx-tag'")
	tx, err := c.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	readStrings(t, mustQuery(t, tx, txnQuery))
	mustExec(t, tx, txnUpdate)
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	txSpan := k.one(t, "ReadWriteTransaction")
	if attr(txSpan, "spanner.transaction_tag").AsString() != "tx-tag" || attr(txSpan, "spanner.transaction.end").AsString() != "commit" {
		t.Errorf("transaction attributes %v", txSpan.Attributes())
	}
	for _, name := range []string{"Query", "Update", "Commit"} {
		if sp := k.one(t, name); !childOf(sp, txSpan) {
			t.Errorf("%s is not a child of the transaction", name)
		}
	}
	if n := attr(k.one(t, "Update"), "spanner.rows_affected").AsInt64(); n != 3 {
		t.Errorf("rows affected %d, want 3", n)
	}
	if attr(k.one(t, "Commit"), "spanner.commit_timestamp").AsString() == "" {
		t.Error("no commit timestamp on the commit's span")
	}

	k.spans.Reset()
	tx, err = c.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	mustExec(t, tx, txnUpdate)
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	txSpan = k.one(t, "ReadWriteTransaction")
	if attr(txSpan, "spanner.transaction.end").AsString() != "rollback" || !childOf(k.one(t, "Rollback"), txSpan) {
		t.Errorf("rolled back transaction %v; spans %v", txSpan.Attributes(), spanNames(k.spans.Ended()))
	}
	if d := k.durations(t); d["ReadWriteTransaction"] != 2 || d["Commit"] != 1 || d["Rollback"] != 1 {
		t.Errorf("durations %v", d)
	}
}

// TestFakeTelemetryReadOnlyTransaction: SET TRANSACTION READ ONLY makes the
// transaction's span a ReadOnlyTransaction.
func TestFakeTelemetryReadOnlyTransaction(t *testing.T) {
	s, _ := startTxnFake(t)
	db, k := openTraced(t, s)
	tx, err := db.BeginTx(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	mustExec(t, tx, "SET TRANSACTION READ ONLY")
	readStrings(t, mustQuery(t, tx, txnQuery))
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	ro := k.one(t, "ReadOnlyTransaction")
	if !childOf(k.one(t, "Query"), ro) || len(k.named("ReadWriteTransaction")) != 0 {
		t.Errorf("spans %v", spanNames(k.spans.Ended()))
	}
	if attr(ro, "db.operation.name").AsString() != "ReadOnlyTransaction" {
		t.Errorf("db.operation.name %v", attr(ro, "db.operation.name"))
	}
}

// TestFakeTelemetryBatchesDDLAndApply: a DML batch is one BatchUpdate span
// with its size and texts; DDL is one UpdateDatabaseDdl span until its
// operation ends, with the operation's name; Apply is a span with its
// commit as a child.
func TestFakeTelemetryBatchesDDLAndApply(t *testing.T) {
	s, _ := startTxnFake(t)
	db, k := openTraced(t, s)
	ctx := context.Background()
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	mustExec(t, c, "START BATCH DML")
	mustExec(t, c, txnUpdate)
	mustExec(t, c, txnInsert)
	mustExec(t, c, "RUN BATCH")
	b := k.one(t, "BatchUpdate")
	if attr(b, "db.operation.batch.size").AsInt64() != 2 || attr(b, "db.query.text").AsString() != txnUpdate+"; "+txnInsert ||
		attr(b, "spanner.rows_affected").AsInt64() != 4 {
		t.Errorf("batch attributes %v", b.Attributes())
	}

	mustExec(t, c, "CREATE TABLE t2 (k INT64) PRIMARY KEY (k)")
	ddl := k.one(t, "UpdateDatabaseDdl")
	if attr(ddl, "db.query.text").AsString() != "CREATE TABLE t2 (k INT64) PRIMARY KEY (k)" {
		t.Errorf("DDL attributes %v", ddl.Attributes())
	}
	if attr(ddl, "spanner.ddl.operation").AsString() == "" {
		t.Errorf("DDL span without its operation's name: %v", ddl.Attributes())
	}

	rawConn(t, c, func(sc sfdriver.SpannerConn) error {
		_, err := sc.Apply(ctx, []*spanner.Mutation{spanner.Insert("t", []string{"s"}, []any{"z"})})
		return err
	})
	apply := k.one(t, "Apply")
	var commit sdktrace.ReadOnlySpan
	for _, sp := range k.named("Commit") {
		if childOf(sp, apply) {
			commit = sp
		}
	}
	if commit == nil || attr(commit, "spanner.mutation_count").AsInt64() != 1 {
		t.Errorf("Apply's commit: %v", commit)
	}
}

// TestFakeTelemetrySwitches: disable_query_text_in_traces leaves the text
// out; disable_tracing makes no span but the metric is still recorded.
func TestFakeTelemetrySwitches(t *testing.T) {
	s, _ := startTxnFake(t)
	db, k := openTraced(t, s, "disable_query_text_in_traces=true")
	readStrings(t, mustQuery(t, db, txnQuery))
	mustExec(t, db, txnUpdate)
	for _, sp := range k.spans.Ended() {
		if attr(sp, "db.query.text").Type() != attribute.INVALID {
			t.Errorf("%s has db.query.text with disable_query_text_in_traces", sp.Name())
		}
	}
	if len(k.named("Query")) != 1 || len(k.named("Update")) != 1 {
		t.Errorf("spans %v", spanNames(k.spans.Ended()))
	}

	db, k = openTraced(t, s, "disable_tracing=true")
	readStrings(t, mustQuery(t, db, txnQuery))
	if n := len(k.spans.Ended()); n != 0 {
		t.Errorf("%d spans with disable_tracing", n)
	}
	if d := k.durations(t); d["Query"] != 1 {
		t.Errorf("durations %v with disable_tracing, want one Query", d)
	}
}
