package e2e

import (
	"testing"

	sfdriver "github.com/spannerfast/spannerfast/driver"
	"github.com/spannerfast/spannerfast/internal/emulatortest"
)

// TestEmulatorPartitionSpans: an auto-partitioned query on the emulator is
// one PartitionQuery span (with the number of partitions) and one
// Partition span per partition, together holding every row, all children
// of the span of the query's context, in the application's trace; the
// connections' own sessions are CreateSession spans and log records.
func TestEmulatorPartitionSpans(t *testing.T) {
	t.Parallel()
	ctx := emuCtx(t)
	edb := emulatortest.NewDatabase(t, emulatortest.WithDDL(emuSingersDDL...))
	// autoConfigEmulator: the driver knows it is on the emulator, where
	// each connection has a session of its own.
	o := openObservedDSN(t, edb.DSN("autoConfigEmulator=true"))
	emuExec(t, ctx, o.db, "INSERT INTO Singers (SingerId, Name) SELECT x, 'n' FROM UNNEST(GENERATE_ARRAY(1, 50)) AS x")
	actx, span := o.rootIn(ctx)
	got := emuInt64s(t, actx, o.db, "SELECT SingerId FROM Singers", sfdriver.AutoPartition(2))
	span.End()
	if len(got) != 50 {
		t.Fatalf("%d rows, want 50", len(got))
	}
	pq := o.spansNamed("PartitionQuery")
	if len(pq) != 1 {
		t.Fatalf("%d PartitionQuery spans, want 1", len(pq))
	}
	n, _ := attrMap(pq[0].Attributes())["spanner.partition.count"].(int64)
	parts := o.spansNamed("Partition")
	t.Logf("%d partitions", n)
	if n < 1 || len(parts) != int(n) {
		t.Fatalf("%d Partition spans for %d partitions", len(parts), n)
	}
	if !o.within(pq[0].Parent(), span) {
		t.Errorf("the PartitionQuery span's parent is not the application's span or below it")
	}
	var rows int64
	for _, p := range parts {
		if p.Parent().SpanID() != pq[0].Parent().SpanID() {
			t.Errorf("Partition span's parent %v, want the PartitionQuery span's parent %v", p.Parent().SpanID(), pq[0].Parent().SpanID())
		}
		r, _ := attrMap(p.Attributes())["db.response.returned_rows"].(int64)
		rows += r
	}
	if rows != 50 {
		t.Errorf("the Partition spans counted %d rows, want 50", rows)
	}
	// On the emulator each connection makes a session of its own: a
	// CreateSession span and a record of a session that is not
	// multiplexed.
	recs := o.logs.withEvent("session")
	if len(o.spansNamed("CreateSession")) == 0 || len(recs) == 0 || recs[0].attrs["spanner.session.multiplexed"] != false {
		t.Errorf("%d CreateSession spans, session records %v; want a connection's own session", len(o.spansNamed("CreateSession")), recs)
	}
}
