package e2e

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	sfdriver "github.com/spannerfast/spannerfast/driver"
	"github.com/spannerfast/spannerfast/dsn"
	"github.com/spannerfast/spannerfast/internal/fakespanner"
	"github.com/spannerfast/spannerfast/internal/telemetry"
	txnengine "github.com/spannerfast/spannerfast/internal/txn"
)

// Metrics on the fake server: each test opens a connector with its own
// meter provider (an SDK one with a manual reader) and reads back what a
// query, a transaction with an abort, a batch recorded.

// meteredDB opens a handle on dsnString whose connector records its
// metrics to a manual reader.
func meteredDB(t *testing.T, dsnString string) (*sql.DB, *sdkmetric.ManualReader) {
	t.Helper()
	cfg, err := dsn.Parse(dsnString)
	if err != nil {
		t.Fatal(err)
	}
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	c, err := sfdriver.NewConnector(cfg, sfdriver.WithMeterProvider(mp))
	if err != nil {
		t.Fatal(err)
	}
	db := sql.OpenDB(c)
	t.Cleanup(func() {
		db.Close()
		_ = mp.Shutdown(context.Background())
	})
	return db, reader
}

// metricPoints is what a reader collected: metric name → one entry per
// data point, its attributes and its value (a histogram's count; its sum
// in sums).
type metricPoints map[string][]metricPoint

type metricPoint struct {
	attrs attribute.Set
	value int64
	sum   float64 // histograms
}

func collectMetrics(t *testing.T, r *sdkmetric.ManualReader) metricPoints {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := r.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	out := metricPoints{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			switch d := m.Data.(type) {
			case metricdata.Sum[int64]:
				for _, p := range d.DataPoints {
					out[m.Name] = append(out[m.Name], metricPoint{attrs: p.Attributes, value: p.Value})
				}
			case metricdata.Histogram[float64]:
				for _, p := range d.DataPoints {
					out[m.Name] = append(out[m.Name], metricPoint{attrs: p.Attributes, value: int64(p.Count), sum: p.Sum})
				}
			case metricdata.Histogram[int64]:
				for _, p := range d.DataPoints {
					out[m.Name] = append(out[m.Name], metricPoint{attrs: p.Attributes, value: int64(p.Count), sum: float64(p.Sum)})
				}
			default:
				t.Fatalf("%s: unexpected data %T", m.Name, m.Data)
			}
		}
	}
	return out
}

// settled collects what r holds once every request s received is
// measured: a stream whose last message came is read to its end by a
// goroutine of its own, so its attempt may end just after the rows did.
// (The server does not record the dialect queries among its requests.)
func settled(t *testing.T, s *fakespanner.Server, r *sdkmetric.ManualReader) metricPoints {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		m := collectMetrics(t, r)
		got, want := m.total(telemetry.MetricAttemptDuration), int64(len(s.Requests())+s.DialectQueries())
		if got == want {
			return m
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d attempts measured, the server received %d requests", got, want)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// since returns mp less before (point by point), for what happened in
// between: the reader's sums and counts are cumulative.
func (mp metricPoints) since(before metricPoints) metricPoints {
	out := metricPoints{}
	for name, ps := range mp {
		for _, p := range ps {
			for _, b := range before[name] {
				if b.attrs.Equals(&p.attrs) {
					p.value -= b.value
					p.sum -= b.sum
				}
			}
			out[name] = append(out[name], p)
		}
	}
	return out
}

// total adds the values of name's points whose attributes include want.
func (mp metricPoints) total(name string, want ...attribute.KeyValue) int64 {
	var n int64
	for _, p := range mp[name] {
		if hasAttrs(p.attrs, want) {
			n += p.value
		}
	}
	return n
}

// sum adds the sums of name's histogram points whose attributes include
// want.
func (mp metricPoints) sum(name string, want ...attribute.KeyValue) float64 {
	var n float64
	for _, p := range mp[name] {
		if hasAttrs(p.attrs, want) {
			n += p.sum
		}
	}
	return n
}

func hasAttrs(set attribute.Set, want []attribute.KeyValue) bool {
	for _, kv := range want {
		if v, ok := set.Value(kv.Key); !ok || v != kv.Value {
			return false
		}
	}
	return true
}

// Attributes of the native metrics.
func nativeMethod(m string) attribute.KeyValue {
	return telemetry.KeyNativeMethod.String("Spanner." + m)
}
func nativeStatus(c codes.Code) attribute.KeyValue {
	return telemetry.KeyNativeStatus.String(c.String())
}
func rpcMethod(m string) attribute.KeyValue {
	return telemetry.KeyRPCMethod.String(m)
}

// TestFakeMetricsQuery: a query read to its end is one ExecuteStreamingSql
// attempt and operation, returns its rows, decodes bytes and leaves no
// result open; a connection counts as open until the pool closes it. A
// query whose stream breaks once with a transient error and resumes is
// one operation of two attempts and one retry.
func TestFakeMetricsQuery(t *testing.T) {
	ctx := context.Background()
	s, _ := startTxnFake(t)
	const broken = "SELECT s FROM t WHERE broken"
	s.AddResult(broken, &fakespanner.Result{ResultSet: stringRows("a", "b", "c"), Split: fakespanner.SplitOptions{MaxValues: 1},
		Faults: []fakespanner.Fault{{AfterMessage: 2, Err: fakespanner.ErrUnavailable}}})
	db, reader := meteredDB(t, fakeDSN(s))
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// The connection has opened its session and learnt the database's
	// dialect (a query): what follows is counted from here.
	start := settled(t, s, reader)
	if got := start.total(telemetry.MetricNativeOperationCount, nativeMethod("CreateSession"), nativeStatus(codes.OK)); got != 1 {
		t.Errorf("%s CreateSession = %d, want 1", telemetry.MetricNativeOperationCount, got)
	}
	if got := start.total(telemetry.MetricOpenConnections); got != 1 {
		t.Errorf("with a connection: %s = %d, want 1", telemetry.MetricOpenConnections, got)
	}
	if got := readStrings(t, mustQuery(t, c, txnQuery)); len(got) != 2 {
		t.Fatalf("rows %v", got)
	}
	m := settled(t, s, reader).since(start)
	for _, c := range []struct {
		name  string
		attrs []attribute.KeyValue
		want  int64
	}{
		{telemetry.MetricNativeOperationCount, []attribute.KeyValue{nativeMethod("ExecuteStreamingSql"), nativeStatus(codes.OK)}, 1},
		{telemetry.MetricNativeAttemptCount, []attribute.KeyValue{nativeMethod("ExecuteStreamingSql"), nativeStatus(codes.OK)}, 1},
		{telemetry.MetricNativeAttemptLatencies, []attribute.KeyValue{nativeMethod("ExecuteStreamingSql")}, 1},
		{telemetry.MetricNativeOperationLatencies, []attribute.KeyValue{nativeMethod("ExecuteStreamingSql")}, 1},
		{telemetry.MetricAttemptDuration, []attribute.KeyValue{rpcMethod("ExecuteStreamingSql"), telemetry.KeyRPCGRPCStatus.Int64(0)}, 1},
		{telemetry.MetricReturnedRows, nil, 1},
		{telemetry.MetricOpenRows, nil, 0},
		{telemetry.MetricRetries, nil, 0},
	} {
		if got := m.total(c.name, c.attrs...); got != c.want {
			t.Errorf("after a query: %s %v = %d, want %d", c.name, c.attrs, got, c.want)
		}
	}
	if got := m.sum(telemetry.MetricReturnedRows); got != 2 {
		t.Errorf("after a query: %s sum %v, want 2", telemetry.MetricReturnedRows, got)
	}
	if got := m.total(telemetry.MetricDecodedBytes); got <= 0 {
		t.Errorf("after a query: %s = %d, want > 0", telemetry.MetricDecodedBytes, got)
	}

	// An open result counts until it is closed.
	rows := mustQuery(t, c, txnQuery)
	if got := collectMetrics(t, reader).total(telemetry.MetricOpenRows); got != 1 {
		t.Errorf("with a result open: %s = %d, want 1", telemetry.MetricOpenRows, got)
	}
	rows.Close()

	// The broken stream resumes: two attempts, one operation, one retry.
	start = settled(t, s, reader)
	if got := readStrings(t, mustQuery(t, c, broken)); len(got) != 3 {
		t.Fatalf("rows %v", got)
	}
	m = settled(t, s, reader).since(start)
	for _, c := range []struct {
		name  string
		attrs []attribute.KeyValue
		want  int64
	}{
		{telemetry.MetricNativeAttemptCount, []attribute.KeyValue{nativeMethod("ExecuteStreamingSql"), nativeStatus(codes.Unavailable)}, 1},
		{telemetry.MetricNativeAttemptCount, []attribute.KeyValue{nativeMethod("ExecuteStreamingSql"), nativeStatus(codes.OK)}, 1},
		{telemetry.MetricNativeOperationCount, []attribute.KeyValue{nativeMethod("ExecuteStreamingSql"), nativeStatus(codes.OK)}, 1},
		{telemetry.MetricNativeOperationCount, []attribute.KeyValue{nativeMethod("ExecuteStreamingSql"), nativeStatus(codes.Unavailable)}, 0},
		{telemetry.MetricRetries, []attribute.KeyValue{rpcMethod("ExecuteStreamingSql"), telemetry.KeyRetryOutcome.String(telemetry.OutcomeSucceeded)}, 1},
		{telemetry.MetricOpenRows, nil, 0},
	} {
		if got := m.total(c.name, c.attrs...); got != c.want {
			t.Errorf("after a resumed query: %s %v = %d, want %d", c.name, c.attrs, got, c.want)
		}
	}

	c.Close()
	db.Close()
	if got := collectMetrics(t, reader).total(telemetry.MetricOpenConnections); got != 0 {
		t.Errorf("after db.Close: %s = %d, want 0", telemetry.MetricOpenConnections, got)
	}
}

// TestFakeMetricsAbortReplay: a commit aborted once is replayed: one abort
// (replayed), one successful replay, and Commit's attempts and operations
// by status.
func TestFakeMetricsAbortReplay(t *testing.T) {
	ctx := context.Background()
	s, _ := startTxnFake(t)
	s.AddMethodFault("Commit", fakespanner.Fault{Err: fakespanner.WithRetryDelay(codes.Aborted, "aborted", time.Millisecond)})
	db, reader := meteredDB(t, fakeDSN(s))
	if err := db.PingContext(ctx); err != nil {
		t.Fatal(err)
	}
	start := settled(t, s, reader)
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	readStrings(t, mustQuery(t, tx, txnQuery))
	if _, err := tx.ExecContext(ctx, txnUpdate); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	m := settled(t, s, reader).since(start)
	for _, c := range []struct {
		name  string
		attrs []attribute.KeyValue
		want  int64
	}{
		{telemetry.MetricAborts, []attribute.KeyValue{telemetry.KeyAbortAction.String(telemetry.AbortReplay)}, 1},
		{telemetry.MetricAborts, nil, 1},
		{telemetry.MetricReplays, []attribute.KeyValue{telemetry.KeyReplayOutcome.String(string(telemetry.ReplaySucceeded))}, 1},
		{telemetry.MetricReplays, nil, 1},
		{telemetry.MetricNativeAttemptCount, []attribute.KeyValue{nativeMethod("Commit"), nativeStatus(codes.Aborted)}, 1},
		{telemetry.MetricNativeAttemptCount, []attribute.KeyValue{nativeMethod("Commit"), nativeStatus(codes.OK)}, 1},
		{telemetry.MetricNativeOperationCount, []attribute.KeyValue{nativeMethod("Commit")}, 2},
		// The replay ran the query and the update again. Only the OK
		// queries count: Ping's query, closed after its row, ends its
		// operation Canceled on the stream's goroutine, which may record
		// it after settled saw Ping's attempt.
		{telemetry.MetricNativeOperationCount, []attribute.KeyValue{nativeMethod("ExecuteStreamingSql"), nativeStatus(codes.OK)}, 2},
		{telemetry.MetricNativeOperationCount, []attribute.KeyValue{nativeMethod("ExecuteSql")}, 2},
		{telemetry.MetricRetries, nil, 0},
	} {
		if got := m.total(c.name, c.attrs...); got != c.want {
			t.Errorf("%s %v = %d, want %d", c.name, c.attrs, got, c.want)
		}
	}
}

// TestFakeMetricsAbortsGivenUp: autocommit DML whose commit Spanner
// aborts every time is run again whole MaxAbortReplays times, then the
// abort goes to the application: that many aborts counted "retry", one
// "return".
func TestFakeMetricsAbortsGivenUp(t *testing.T) {
	ctx := context.Background()
	s, _ := startTxnFake(t)
	db, reader := meteredDB(t, fakeDSN(s))
	if err := db.PingContext(ctx); err != nil {
		t.Fatal(err)
	}
	s.AddMethodFault("Commit", fakespanner.Fault{Err: fakespanner.WithRetryDelay(codes.Aborted, "aborted", time.Microsecond), Times: -1})
	if _, err := db.ExecContext(ctx, txnUpdate); status.Code(err) != codes.Aborted {
		t.Fatalf("ExecContext = %v, want ABORTED", err)
	}
	m := settled(t, s, reader)
	if got := m.total(telemetry.MetricAborts, telemetry.KeyAbortAction.String(telemetry.AbortRetry)); got != txnengine.MaxAbortReplays {
		t.Errorf("%s retry = %d, want %d", telemetry.MetricAborts, got, txnengine.MaxAbortReplays)
	}
	if got := m.total(telemetry.MetricAborts, telemetry.KeyAbortAction.String(telemetry.AbortReturn)); got != 1 {
		t.Errorf("%s return = %d, want 1", telemetry.MetricAborts, got)
	}
}

// TestFakeMetricsBatch: a DML batch whose first attempt fails with a
// transient error is one ExecuteBatchDml operation of two attempts and one
// retry; with disable_native_metrics the official client's metrics are
// not recorded and the driver's own are.
func TestFakeMetricsBatch(t *testing.T) {
	ctx := context.Background()
	for _, native := range []bool{true, false} {
		s, _ := startTxnFake(t)
		// The batch's first attempt fails with a transient error.
		s.AddMethodFault("ExecuteBatchDml", fakespanner.Fault{Err: fakespanner.ErrUnavailable})
		d := fakeDSN(s)
		if !native {
			d = fakeDSN(s, "disable_native_metrics=true")
		}
		db, reader := meteredDB(t, d)
		c, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		start := settled(t, s, reader)
		mustExec(t, c, "START BATCH DML")
		mustExec(t, c, txnUpdate)
		mustExec(t, c, txnInsert)
		mustExec(t, c, "RUN BATCH")
		c.Close()
		m := settled(t, s, reader).since(start)
		want := int64(1)
		if !native {
			want = 0
			for name := range m {
				if len(name) > len(telemetry.NativeMetricPrefix) && name[:len(telemetry.NativeMetricPrefix)] == telemetry.NativeMetricPrefix {
					t.Errorf("disable_native_metrics: %s recorded", name)
				}
			}
		}
		if got := m.total(telemetry.MetricNativeOperationCount, nativeMethod("ExecuteBatchDml"), nativeStatus(codes.OK)); got != want {
			t.Errorf("native=%v: %s ExecuteBatchDml = %d, want %d", native, telemetry.MetricNativeOperationCount, got, want)
		}
		if got := m.total(telemetry.MetricNativeAttemptCount, nativeMethod("ExecuteBatchDml")); got != 2*want {
			t.Errorf("native=%v: %s ExecuteBatchDml = %d, want %d", native, telemetry.MetricNativeAttemptCount, got, 2*want)
		}
		if got := m.total(telemetry.MetricAttemptDuration, rpcMethod("ExecuteBatchDml")); got != 2 {
			t.Errorf("native=%v: %s ExecuteBatchDml = %d, want 2", native, telemetry.MetricAttemptDuration, got)
		}
		if got := m.total(telemetry.MetricRetries, rpcMethod("ExecuteBatchDml"), telemetry.KeyRetryOutcome.String(telemetry.OutcomeSucceeded)); got != 1 {
			t.Errorf("native=%v: %s ExecuteBatchDml = %d, want 1", native, telemetry.MetricRetries, got)
		}
	}
}
