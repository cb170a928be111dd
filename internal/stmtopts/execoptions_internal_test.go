package stmtopts

import (
	"testing"
	"time"

	"cloud.google.com/go/spanner"

	"github.com/spannerfast/spannerfast/dsn"
	"github.com/spannerfast/spannerfast/internal/connstate"
)

func TestStalenessOfTimestampBound(t *testing.T) {
	ts := time.Date(2024, 1, 2, 3, 4, 5, 123456789, time.FixedZone("X", 3600))
	for _, c := range []struct {
		tb   spanner.TimestampBound
		want dsn.Staleness
		now  bool // want a read timestamp, whatever it is
	}{
		{tb: spanner.TimestampBound{}, want: dsn.StrongRead()},
		{tb: spanner.StrongRead(), want: dsn.StrongRead()},
		{tb: spanner.ExactStaleness(1500 * time.Millisecond), want: dsn.ExactStaleness(1500 * time.Millisecond)},
		{tb: spanner.MaxStaleness(time.Minute), want: dsn.MaxStaleness(time.Minute)},
		{tb: spanner.ReadTimestamp(ts), want: dsn.ReadTimestamp(ts)},
		{tb: spanner.ReadTimestamp(time.Now()), now: true},
		{tb: spanner.MinReadTimestamp(ts), want: dsn.MinReadTimestamp(ts)},
	} {
		got, err := StalenessOf(c.tb)
		if err != nil {
			t.Fatalf("%v: %v", c.tb, err)
		}
		if c.now {
			if got.Kind != dsn.StalenessReadTimestamp {
				t.Errorf("%v: got %v", c.tb, got)
			}
			continue
		}
		if !got.Equal(c.want) {
			t.Errorf("%v: got %v, want %v", c.tb, got, c.want)
		}
	}
}

// overlay puts back what it laid over the settings, except what the
// statement changed meanwhile (a one-shot tag it used, a SET it ran).
func TestOverlayRestore(t *testing.T) {
	cfg := &dsn.Config{}
	cfg.TransactionTag, cfg.StatementTag, cfg.RPCPriority = "conn-txn", "conn-stmt", dsn.PriorityHigh
	state := connstate.New(cfg) // a connection's properties
	q := QueryOptions{RequestTag: "s", Priority: dsn.PriorityLow, Txn: &TxnOptions{Tag: "t"}, NativeArrays: new(bool)}
	*q.NativeArrays = true
	restore := state.Overlay(q.SetOn)
	if v := state.Values(); v.StatementTag != "s" || v.TransactionTag != "t" || v.RPCPriority != dsn.PriorityLow || !v.DecodeToNativeArrays {
		t.Fatalf("overlaid settings %+v", v)
	}
	state.TakeStatementTag()                                    // the statement used its tag
	if err := state.Set("rpc_priority", "MEDIUM"); err != nil { // and ran SET RPC_PRIORITY
		t.Fatal(err)
	}
	restore()
	if v := state.Values(); v.StatementTag != "" || v.TransactionTag != "conn-txn" || v.RPCPriority != dsn.PriorityMedium || v.DecodeToNativeArrays {
		t.Fatalf("restored settings: tag %q, txn tag %q, priority %q, native arrays %v",
			v.StatementTag, v.TransactionTag, v.RPCPriority, v.DecodeToNativeArrays)
	}
}

// TestTimestampBoundRoundTrip: TimestampBoundOf is StalenessOf's inverse
// for every kind of staleness (SpannerConn's ReadOnlyStaleness reads back
// what SetReadOnlyStaleness set).
func TestTimestampBoundRoundTrip(t *testing.T) {
	ts := time.Date(2024, 1, 2, 3, 4, 5, 123456789, time.UTC)
	for _, s := range []dsn.Staleness{
		dsn.StrongRead(),
		dsn.ExactStaleness(1500 * time.Millisecond),
		dsn.MaxStaleness(time.Minute),
		dsn.ReadTimestamp(ts),
		dsn.MinReadTimestamp(ts),
	} {
		got, err := StalenessOf(TimestampBoundOf(s))
		if err != nil || !got.Equal(s) {
			t.Errorf("%v: round trip gives %v, %v", s, got, err)
		}
	}
}
