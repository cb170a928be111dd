package workload

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Partitioned reads: the narrow rows read through a batch read-only
// transaction, split into PartitionCounts partitions that are read in
// parallel. Each partition count is its own workload (partitioned-N, own
// SQL text) with the narrow workload's rows and values, so the checksums
// agree with narrow's and the single-stream narrow read is the reference.
// The fake server answers PartitionQuery for the SQL with N partition
// tokens (PartitionToken) and serves partition k, on ExecuteStreamingSql
// with that token, as the encoded messages of PartitionRange(k).

// PartitionCounts are the partition counts of the partitioned workloads.
var PartitionCounts = []int{1, 2, 4, 8}

// PartitionedPrefix starts the name of every partitioned workload.
const PartitionedPrefix = "partitioned-"

// partitionedCatalog returns one workload per partition count over the
// narrow columns (seed 1, as narrow).
func partitionedCatalog(scale float64, narrow []Column) []*Workload {
	rows := scaled(narrowRows, scale)
	var out []*Workload
	for _, n := range PartitionCounts {
		out = append(out, &Workload{
			Name:        PartitionedPrefix + strconv.Itoa(n),
			Description: fmt.Sprintf("narrow rows in a batch read-only transaction, %d partition(s) read in parallel", n),
			Columns:     narrow, Rows: rows, Queries: 1, Partitions: n, seed: 1,
			SQL: fmt.Sprintf("SELECT id, name, score FROM bench_partitioned_%d LIMIT %d", n, rows),
		})
	}
	return out
}

// PartitionRange is the rows [from, to) of partition k: the rows split in
// Partitions nearly equal consecutive slices.
func (w *Workload) PartitionRange(k int) (from, to int) {
	return k * w.Rows / w.Partitions, (k + 1) * w.Rows / w.Partitions
}

// EncodePartition returns the messages that answer partition k of a
// partitioned workload: its rows, whole-row messages as Encode makes them,
// metadata on the first, resume tokens counted from the partition's first
// message.
func (w *Workload) EncodePartition(k int) ([]Message, error) {
	if w.Partitions <= 0 || k < 0 || k >= w.Partitions {
		return nil, fmt.Errorf("workload %s has no partition %d (it has %d)", w.Name, k, w.Partitions)
	}
	if w.Chunked || w.Cycle {
		return nil, fmt.Errorf("workload %s: partitions of chunked or cyclic results are not supported", w.Name)
	}
	meta, err := w.MetadataField(nil)
	if err != nil {
		return nil, err
	}
	from, to := w.PartitionRange(k)
	return messages(w.encodeRows(meta, from, to)), nil
}

// partitionTokenPrefix starts every partition token; the partition index
// follows in decimal.
const partitionTokenPrefix = "bench-partition-"

// PartitionToken is the partition token of partition k.
func PartitionToken(k int) []byte { return []byte(partitionTokenPrefix + strconv.Itoa(k)) }

// PartitionIndex returns the partition a token names.
func PartitionIndex(tok []byte) (int, error) {
	s, ok := strings.CutPrefix(string(tok), partitionTokenPrefix)
	k, err := strconv.Atoi(s)
	if !ok || err != nil || k < 0 {
		return 0, fmt.Errorf("partition token %q names no partition", tok)
	}
	return k, nil
}

// Latency-bound reads: the same narrow rows, served in small messages with
// a fixed wait before each one, so that a stream is bound by the server
// and the network (as real Spanner streams are) rather than by the
// client's CPU. NarrowLatency is their single stream (one plain query);
// PartitionedLatencyPrefix+N reads them as N partitions in parallel. Each
// partition's stream waits on its own, so N partitions can deliver up to N
// times the rows of one stream until the client's CPU runs out: at
// LatencyMessageRows rows per LatencyMessageDelay, one stream carries at
// most 100,000 rows/s and 8 of them 800,000 rows/s, which the official
// client decodes with about one of two cores (the most CPU per row of the
// arms, about 1.3 µs a row with these small messages).
const (
	NarrowLatency            = "narrow-latency"
	PartitionedLatencyPrefix = "partitioned-latency-"
	LatencyMessageRows       = 1_000
	LatencyMessageDelay      = 10 * time.Millisecond
)

// latencyCatalog returns narrow-latency and one latency-bound partitioned
// workload per partition count (seed 1, as narrow).
func latencyCatalog(scale float64, narrow []Column) []*Workload {
	rows := scaled(narrowRows, scale)
	out := []*Workload{{Name: NarrowLatency,
		Description: fmt.Sprintf("narrow rows in one stream of %d-row messages, each sent after %v", LatencyMessageRows, LatencyMessageDelay),
		Columns:     narrow, Rows: rows, Queries: 1, seed: 1,
		MessageRows: LatencyMessageRows, MessageDelay: LatencyMessageDelay}}
	for _, n := range PartitionCounts {
		out = append(out, &Workload{
			Name:        PartitionedLatencyPrefix + strconv.Itoa(n),
			Description: fmt.Sprintf("narrow-latency in a batch read-only transaction, %d partition(s) read in parallel", n),
			Columns:     narrow, Rows: rows, Queries: 1, Partitions: n, seed: 1,
			MessageRows: LatencyMessageRows, MessageDelay: LatencyMessageDelay,
			SQL: fmt.Sprintf("SELECT id, name, score FROM bench_partitioned_latency_%d LIMIT %d", n, rows),
		})
	}
	return out
}

// SingleStream is the name of the single-stream workload a partitioned
// workload is compared with: narrow, or narrow-latency for the
// latency-bound ones.
func SingleStream(delay time.Duration) string {
	if delay > 0 {
		return NarrowLatency
	}
	return "narrow"
}
