package e2e

import (
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"google.golang.org/grpc/codes"

	sfdriver "github.com/spannerfast/spannerfast/driver"
	"github.com/spannerfast/spannerfast/internal/emulatortest"
	"github.com/spannerfast/spannerfast/internal/telemetry"
)

// TestEmulatorMetrics: on the emulator, a read-write transaction (DML, a
// query, a commit) and a read are counted: the native operation counts by
// method, the rows a query returned, the bytes it decoded, the results and
// connections open; with disable_native_metrics the native set is absent
// and the driver's own metrics are not.
func TestEmulatorMetrics(t *testing.T) {
	t.Parallel()
	for _, native := range []bool{true, false} {
		ctx := emuCtx(t)
		edb := emulatortest.NewDatabase(t, emulatortest.WithDDL(emuSingersDDL...))
		d := edb.DSN()
		if !native {
			d = edb.DSN("disable_native_metrics=true")
		}
		db, reader := meteredDB(t, d)
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		emuExec(t, ctx, tx, "INSERT INTO Singers (SingerId, Name) VALUES (1, 'a'), (2, 'b'), (3, 'c')")
		if got := emuInt64s(t, ctx, tx, "SELECT SingerId FROM Singers ORDER BY SingerId"); len(got) != 3 {
			t.Fatalf("read %v in the transaction", got)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		if got := emuInt64s(t, ctx, db, "SELECT SingerId FROM Singers WHERE SingerId > 1"); len(got) != 2 {
			t.Fatalf("read %v", got)
		}
		// A stream read to its last message ends in a goroutine of its
		// own: wait for the second query's attempt.
		var m metricPoints
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			m = collectMetrics(t, reader)
			if m.total(telemetry.MetricAttemptDuration, rpcMethod("Commit")) == 1 &&
				m.total(telemetry.MetricAttemptDuration, rpcMethod("ExecuteStreamingSql")) >= 2 || time.Now().After(deadline) {
				break
			}
		}
		t.Logf("native=%v: %d attempts", native, m.total(telemetry.MetricAttemptDuration))
		want := func(n int64) int64 {
			if native {
				return n
			}
			return 0
		}
		for _, c := range []struct {
			name  string
			attrs []attribute.KeyValue
			want  int64
		}{
			{telemetry.MetricNativeOperationCount, []attribute.KeyValue{nativeMethod("Commit"), nativeStatus(codes.OK)}, want(1)},
			{telemetry.MetricNativeOperationCount, []attribute.KeyValue{nativeMethod("ExecuteSql"), nativeStatus(codes.OK)}, want(1)},
			{telemetry.MetricNativeAttemptCount, []attribute.KeyValue{nativeMethod("Commit"), nativeStatus(codes.OK)}, want(1)},
			{telemetry.MetricAttemptDuration, []attribute.KeyValue{rpcMethod("Commit"), telemetry.KeyRPCGRPCStatus.Int64(0)}, 1},
			{telemetry.MetricOpenRows, nil, 0},
			{telemetry.MetricAborts, nil, 0},
		} {
			if got := m.total(c.name, c.attrs...); got != c.want {
				t.Errorf("native=%v: %s %v = %d, want %d", native, c.name, c.attrs, got, c.want)
			}
		}
		// The two queries, and the connection's dialect query.
		if got := m.sum(telemetry.MetricReturnedRows); got < 5 {
			t.Errorf("native=%v: %s sum %v, want the 5 rows read and more", native, telemetry.MetricReturnedRows, got)
		}
		if got := m.total(telemetry.MetricDecodedBytes); got <= 0 {
			t.Errorf("native=%v: %s = %d, want > 0", native, telemetry.MetricDecodedBytes, got)
		}
		if got := m.total(telemetry.MetricOpenConnections); got < 1 {
			t.Errorf("native=%v: %s = %d, want the pool's connections", native, telemetry.MetricOpenConnections, got)
		}
		db.Close()
		if got := collectMetrics(t, reader).total(telemetry.MetricOpenConnections); got != 0 {
			t.Errorf("native=%v: after db.Close: %s = %d, want 0", native, telemetry.MetricOpenConnections, got)
		}
	}
}

// TestEmulatorMetricsBatchAndPartitions: on the emulator, a DML batch is
// one ExecuteBatchDml operation, and a partitioned query reads its
// partitions as results that are all closed at its end, with every row
// counted among the rows returned.
func TestEmulatorMetricsBatchAndPartitions(t *testing.T) {
	t.Parallel()
	ctx := emuCtx(t)
	edb := emulatortest.NewDatabase(t, emulatortest.WithDDL(emuSingersDDL...))
	db, reader := meteredDB(t, edb.DSN("autoConfigEmulator=true"))
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	emuExec(t, ctx, c, "START BATCH DML")
	emuExec(t, ctx, c, "INSERT INTO Singers (SingerId, Name) SELECT x, 'n' FROM UNNEST(GENERATE_ARRAY(1, 40)) AS x")
	emuExec(t, ctx, c, "INSERT INTO Singers (SingerId, Name) SELECT x, 'n' FROM UNNEST(GENERATE_ARRAY(41, 50)) AS x")
	emuExec(t, ctx, c, "RUN BATCH")
	c.Close()
	before := collectMetrics(t, reader)
	if got := before.total(telemetry.MetricNativeOperationCount, nativeMethod("ExecuteBatchDml"), nativeStatus(codes.OK)); got != 1 {
		t.Errorf("%s ExecuteBatchDml = %d, want 1", telemetry.MetricNativeOperationCount, got)
	}
	if got := emuInt64s(t, ctx, db, "SELECT SingerId FROM Singers", sfdriver.AutoPartition(2)); len(got) != 50 {
		t.Fatalf("%d rows, want 50", len(got))
	}
	m := collectMetrics(t, reader)
	if got := m.total(telemetry.MetricNativeOperationCount, nativeMethod("PartitionQuery"), nativeStatus(codes.OK)); got != 1 {
		t.Errorf("%s PartitionQuery = %d, want 1", telemetry.MetricNativeOperationCount, got)
	}
	if got := m.total(telemetry.MetricOpenRows); got != 0 {
		t.Errorf("after the partitioned query: %s = %d, want 0", telemetry.MetricOpenRows, got)
	}
	if got := m.since(before).sum(telemetry.MetricReturnedRows); got != 50 {
		t.Errorf("the partitions' %s add up to %v, want 50", telemetry.MetricReturnedRows, got)
	}
}
