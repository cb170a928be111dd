package workload

import (
	"fmt"
	"strconv"
	"strings"
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
