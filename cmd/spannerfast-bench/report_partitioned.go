package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spannerfast/spannerfast/cmd/spannerfast-bench/internal/workload"
)

// The partitioned reads are reported against the single stream: the same
// rows read by the same arm as one plain query (narrow, or narrow-latency
// for the latency-bound reads), and against the official client reading
// the same partitions. The CPU-bound and the latency-bound reads get a
// section each.

// partitionedResult is one arm on one partitioned workload.
type partitionedResult struct {
	Workload    string  `json:"workload"`
	Partitions  int     `json:"partitions"`
	Arm         string  `json:"arm"`
	RowsPerSec  float64 `json:"rows_per_sec"`
	CPUPerRowNs float64 `json:"cpu_per_row_ns"`
	// VsSingleStream is RowsPerSec relative to the arm's rows/s on its
	// single stream, narrow or narrow-latency (nil when that did not run).
	VsSingleStream *float64 `json:"rows_per_sec_vs_single_stream,omitempty"`
	// CPUVsClient is CPU/row relative to the client's on the same workload.
	CPUVsClient *float64 `json:"cpu_vs_client,omitempty"`
}

// isPartitioned selects the workloads of the partitioned sections: the
// partitioned reads and the latency-bound single stream.
func isPartitioned(w *workloadInfo) bool { return w.Partitions > 0 || w.MessageDelayNs > 0 }

// delay is the server's wait before each message of w's result.
func (w *workloadInfo) delay() time.Duration { return time.Duration(w.MessageDelayNs) }

// partitionedArms lists the arms with a result on a partitioned workload.
func (rep *report) partitionedArms() []armInfo {
	var out []armInfo
	for _, a := range rep.ranArms() {
		for _, w := range rep.Workloads {
			if isPartitioned(&w) && rep.find(a.ID, w.Name) != nil {
				out = append(out, a)
				break
			}
		}
	}
	return out
}

func partitionedResults(rep *report) []partitionedResult {
	var out []partitionedResult
	for _, w := range rep.Workloads {
		if w.Partitions == 0 {
			continue
		}
		for _, a := range rep.partitionedArms() {
			r := rep.get(a.ID, w.Name)
			if r == nil {
				continue
			}
			pr := partitionedResult{Workload: w.Name, Partitions: w.Partitions, Arm: a.ID,
				RowsPerSec: r.RowsPerSec, CPUPerRowNs: r.CPUPerRowNs, CPUVsClient: r.VsBaseline}
			if s := rep.get(a.ID, workload.SingleStream(w.delay())); s != nil && s.RowsPerSec > 0 {
				v := r.RowsPerSec / s.RowsPerSec
				pr.VsSingleStream = &v
			}
			out = append(out, pr)
		}
	}
	return out
}

// writePartitioned renders the partitioned sections, CPU-bound then
// latency-bound: rows/s and CPU/row per arm and partition count, with the
// single stream as the first row.
func writePartitioned(b *strings.Builder, rep *report) {
	arms := rep.partitionedArms()
	m := rep.Meta
	for _, latency := range []bool{false, true} {
		in := func(w *workloadInfo) bool { return w.Partitions > 0 && (w.MessageDelayNs > 0) == latency }
		if !rep.has(in) {
			continue
		}
		var single string
		if latency {
			single = workload.NarrowLatency
			w := rep.firstWorkload(in)
			b.WriteString("## Partitioned reads, latency-bound\n\n")
			fmt.Fprintf(b, "The same readings of the same rows, served in messages of %d rows with the server waiting %v "+
				"before each message of every stream (each partition's stream waits on its own), so that a stream is bound "+
				"by the server and the network rather than by the client's CPU. %s is the same rows in one plain stream "+
				"with the same waits. Rows/s is wall clock.\n\n", w.MessageRows, w.delay(), single)
		} else {
			single = workload.SingleStream(0)
			b.WriteString("## Partitioned reads\n\n")
			fmt.Fprintf(b, "The narrow rows read in a batch read-only transaction, split into N partitions read in parallel "+
				"(client: BatchReadOnlyTransaction, PartitionQuery, one goroutine per partition's Execute; spannerfast: "+
				"AutoPartition with MaxParallelism N, into one *sql.Rows). %s is the same rows in one plain stream. "+
				"Rows/s is wall clock: %d CPUs (GOMAXPROCS %d), shared with the fake server process.\n\n",
				single, m.NumCPU, m.GOMAXPROCS)
		}
		b.WriteString(rep.partitionedTable("Throughput (wall clock)", "rows/s (x the arm's single stream)", single, in, arms,
			func(p *partitionedResult, r *resultRow) string {
				if p == nil {
					return fmtRate(r.RowsPerSec)
				}
				return fmtRate(p.RowsPerSec) + " (" + fmtRatio(p.VsSingleStream) + ")"
			}))
		b.WriteString(rep.partitionedTable("CPU time", "ns CPU/row (x client)", single, in, arms,
			func(p *partitionedResult, r *resultRow) string {
				if p == nil {
					return fmtNum(r.CPUPerRowNs)
				}
				return fmtNum(p.CPUPerRowNs) + " (" + fmtRatio(p.CPUVsClient) + ")"
			}))
	}
}

// firstWorkload is the first workload in selects.
func (rep *report) firstWorkload(selects func(w *workloadInfo) bool) *workloadInfo {
	for i := range rep.Workloads {
		if selects(&rep.Workloads[i]) {
			return &rep.Workloads[i]
		}
	}
	return nil
}

// partitionedTable has one row for the single stream and one per
// partitioned workload in selects; cell gets the partitioned result (nil
// on the single-stream row) and the arm's result row.
func (rep *report) partitionedTable(title, unit, single string, selects func(w *workloadInfo) bool, arms []armInfo,
	cell func(p *partitionedResult, r *resultRow) string) string {
	var t mdTable
	t.b.WriteString("### " + title + ": " + unit + "\n\n")
	head := []string{"reading", "partitions"}
	for _, a := range arms {
		head = append(head, a.Title)
	}
	t.header(head...)
	if rep.workload(single) != nil {
		cells := []string{single + " (one stream)", "—"}
		for _, a := range arms {
			cells = append(cells, rep.partitionedCell(a.ID, single, func(r *resultRow) string { return cell(nil, r) }))
		}
		t.row(cells...)
	}
	for i := range rep.Workloads {
		w := &rep.Workloads[i]
		if !selects(w) {
			continue
		}
		cells := []string{w.Name, strconv.Itoa(w.Partitions)}
		for _, a := range arms {
			cells = append(cells, rep.partitionedCell(a.ID, w.Name, func(r *resultRow) string {
				return cell(rep.partitionedOf(a.ID, w.Name), r)
			}))
		}
		t.row(cells...)
	}
	t.b.WriteString("\n")
	return t.b.String()
}

// partitionedCell is "—", "FAILED" or "unavailable" for a missing result,
// else ok's text.
func (rep *report) partitionedCell(armID, wl string, ok func(r *resultRow) string) string {
	r := rep.find(armID, wl)
	switch {
	case r == nil:
		return "—"
	case r.Unavailable != "":
		return "unavailable"
	case r.Error != "":
		return "FAILED"
	}
	return ok(r)
}

func (rep *report) partitionedOf(armID, wl string) *partitionedResult {
	for i := range rep.Partitioned {
		if p := &rep.Partitioned[i]; p.Arm == armID && p.Workload == wl {
			return p
		}
	}
	return nil
}
