package workload

import (
	"slices"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"
)

// TestPartitionsCoverNarrow checks that the partitions of every partitioned
// workload hold, in order, exactly the rows of narrow, each partition a
// well-formed result of its own (metadata first, resume tokens from 1,
// last on its final message).
func TestPartitionsCoverNarrow(t *testing.T) {
	ws, err := Select("narrow,"+GroupPartitioned, 0.2) // 40,000 rows: narrow takes 3 messages
	if err != nil {
		t.Fatal(err)
	}
	narrow := ws[0]
	if got := len(ws) - 1; got != len(PartitionCounts) {
		t.Fatalf("group %s selected %d workloads, want %d", GroupPartitioned, got, len(PartitionCounts))
	}
	nmsgs, err := narrow.Encode()
	if err != nil {
		t.Fatal(err)
	}
	want, _ := decodeAll(t, narrow, nmsgs)
	for i, w := range ws[1:] {
		if w.Partitions != PartitionCounts[i] || w.Rows != narrow.Rows || w.SQL == narrow.SQL {
			t.Fatalf("%s: %d partitions, %d rows, SQL %q", w.Name, w.Partitions, w.Rows, w.SQL)
		}
		checkPartitionsCover(t, w, want)
	}
}

// checkPartitionsCover checks that the partitions of w hold, in order,
// exactly the values want.
func checkPartitionsCover(t *testing.T, w *Workload, want []*structpb.Value) {
	t.Helper()
	var got []*structpb.Value
	for k := range w.Partitions {
		msgs, err := w.EncodePartition(k)
		if err != nil {
			t.Fatal(err)
		}
		vals, _ := decodeAll(t, w, msgs)
		from, to := w.PartitionRange(k)
		if len(vals) != (to-from)*len(w.Columns) {
			t.Fatalf("%s partition %d: %d values, want %d", w.Name, k, len(vals), (to-from)*len(w.Columns))
		}
		got = append(got, vals...)
	}
	if len(got) != len(want) {
		t.Fatalf("%s: %d values over all partitions, want %d", w.Name, len(got), len(want))
	}
	for j := range want {
		if !proto.Equal(want[j], got[j]) {
			t.Fatalf("%s: value %d differs from narrow's", w.Name, j)
		}
	}
}

func TestPartitionTokens(t *testing.T) {
	for _, k := range []int{0, 7, 123} {
		if got, err := PartitionIndex(PartitionToken(k)); err != nil || got != k {
			t.Errorf("PartitionIndex(PartitionToken(%d)) = %d, %v", k, got, err)
		}
	}
	for _, bad := range []string{"", "bench-partition-", "bench-partition--1", "bench-partition-x", "other-1"} {
		if _, err := PartitionIndex([]byte(bad)); err == nil {
			t.Errorf("PartitionIndex(%q) accepted", bad)
		}
	}
	ws, _ := Select("narrow,partitioned-4", 0.01)
	if _, err := ws[0].EncodePartition(0); err == nil {
		t.Error("EncodePartition of an unpartitioned workload accepted")
	}
	for _, k := range []int{-1, 4} {
		if _, err := ws[1].EncodePartition(k); err == nil {
			t.Errorf("EncodePartition(%d) of 4 partitions accepted", k)
		}
	}
	if !slices.Contains(Names(), "partitioned-8") {
		t.Errorf("Names() lacks partitioned-8: %v", Names())
	}
}

// TestLatencyWorkloads checks the latency-bound group: narrow-latency is
// narrow's values in messages of LatencyMessageRows rows with the delay
// set, every partitioned-latency-N covers narrow's values too, and the
// group partitioned keeps to the CPU-bound reads.
func TestLatencyWorkloads(t *testing.T) {
	ws, err := Select("narrow,"+GroupPartitionedLatency, 0.02) // 4,000 rows
	if err != nil {
		t.Fatal(err)
	}
	if len(ws) != 2+len(PartitionCounts) || ws[1].Name != NarrowLatency {
		t.Fatalf("selected %d workloads, second %s", len(ws), ws[1].Name)
	}
	nmsgs, err := ws[0].Encode()
	if err != nil {
		t.Fatal(err)
	}
	want, _ := decodeAll(t, ws[0], nmsgs)
	single := ws[1]
	msgs, err := single.Encode()
	if err != nil {
		t.Fatal(err)
	}
	got, counts := decodeAll(t, single, msgs)
	if len(msgs) != 4 || single.MessageDelay != LatencyMessageDelay || single.Partitions != 0 {
		t.Fatalf("%s: %d messages, delay %v, %d partitions", single.Name, len(msgs), single.MessageDelay, single.Partitions)
	}
	for i, n := range counts {
		if n != LatencyMessageRows*len(single.Columns) {
			t.Errorf("message %d holds %d values, want %d", i, n, LatencyMessageRows*len(single.Columns))
		}
	}
	if !slices.EqualFunc(want, got, func(a, b *structpb.Value) bool { return proto.Equal(a, b) }) {
		t.Error("narrow-latency's values differ from narrow's")
	}
	for i, w := range ws[2:] {
		if w.Partitions != PartitionCounts[i] || w.MessageDelay != LatencyMessageDelay || SingleStream(w.MessageDelay) != NarrowLatency {
			t.Fatalf("%s: %d partitions, delay %v", w.Name, w.Partitions, w.MessageDelay)
		}
		checkPartitionsCover(t, w, want)
	}
	cpu, err := Select(GroupPartitioned, 0.02)
	if err != nil || len(cpu) != len(PartitionCounts) || cpu[0].MessageDelay != 0 {
		t.Errorf("group %s: %d workloads, %v", GroupPartitioned, len(cpu), err)
	}
}
