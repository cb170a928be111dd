package main

import (
	"fmt"
	"strconv"
	"strings"
)

// The partitioned reads are reported against the single stream: the same
// rows read by the same arm as the narrow workload (one plain query), and
// against the official client reading the same partitions.

// singleStream is the workload the partitioned reads are compared with.
const singleStream = "narrow"

// partitionedResult is one arm on one partitioned workload.
type partitionedResult struct {
	Workload    string  `json:"workload"`
	Partitions  int     `json:"partitions"`
	Arm         string  `json:"arm"`
	RowsPerSec  float64 `json:"rows_per_sec"`
	CPUPerRowNs float64 `json:"cpu_per_row_ns"`
	// VsSingleStream is RowsPerSec relative to the arm's rows/s on narrow
	// (nil when narrow did not run).
	VsSingleStream *float64 `json:"rows_per_sec_vs_single_stream,omitempty"`
	// CPUVsClient is CPU/row relative to the client's on the same workload.
	CPUVsClient *float64 `json:"cpu_vs_client,omitempty"`
}

func isPartitioned(w *workloadInfo) bool { return w.Partitions > 0 }

// partitionedArms lists the arms with a result on a partitioned workload.
func (rep *report) partitionedArms() []armInfo {
	var out []armInfo
	for _, a := range rep.ranArms() {
		for _, w := range rep.Workloads {
			if w.Partitions > 0 && rep.find(a.ID, w.Name) != nil {
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
			if s := rep.get(a.ID, singleStream); s != nil && s.RowsPerSec > 0 {
				v := r.RowsPerSec / s.RowsPerSec
				pr.VsSingleStream = &v
			}
			out = append(out, pr)
		}
	}
	return out
}

// writePartitioned renders the partitioned section: rows/s and CPU/row per
// arm and partition count, with the single stream as the first row.
func writePartitioned(b *strings.Builder, rep *report) {
	if !rep.has(isPartitioned) {
		return
	}
	arms := rep.partitionedArms()
	m := rep.Meta
	b.WriteString("## Partitioned reads\n\n")
	fmt.Fprintf(b, "The narrow rows read in a batch read-only transaction, split into N partitions read in parallel "+
		"(client: BatchReadOnlyTransaction, PartitionQuery, one goroutine per partition's Execute; spannerfast: "+
		"AutoPartition with MaxParallelism N, into one *sql.Rows). %s is the same rows in one plain stream. "+
		"Rows/s is wall clock: %d CPUs (GOMAXPROCS %d), shared with the fake server process.\n\n",
		singleStream, m.NumCPU, m.GOMAXPROCS)
	b.WriteString(rep.partitionedTable("Throughput (wall clock)", "rows/s (x the arm's single stream)", arms,
		func(p *partitionedResult, r *resultRow) string {
			if p == nil {
				return fmtRate(r.RowsPerSec)
			}
			return fmtRate(p.RowsPerSec) + " (" + fmtRatio(p.VsSingleStream) + ")"
		}))
	b.WriteString(rep.partitionedTable("CPU time", "ns CPU/row (x client)", arms,
		func(p *partitionedResult, r *resultRow) string {
			if p == nil {
				return fmtNum(r.CPUPerRowNs)
			}
			return fmtNum(p.CPUPerRowNs) + " (" + fmtRatio(p.CPUVsClient) + ")"
		}))
}

// partitionedTable has one row for the single stream and one per
// partitioned workload; cell gets the partitioned result (nil on the
// single-stream row) and the arm's result row.
func (rep *report) partitionedTable(title, unit string, arms []armInfo, cell func(p *partitionedResult, r *resultRow) string) string {
	var t mdTable
	t.b.WriteString("### " + title + ": " + unit + "\n\n")
	head := []string{"reading", "partitions"}
	for _, a := range arms {
		head = append(head, a.Title)
	}
	t.header(head...)
	if rep.workload(singleStream) != nil {
		cells := []string{singleStream + " (one stream)", "—"}
		for _, a := range arms {
			cells = append(cells, rep.partitionedCell(a.ID, singleStream, func(r *resultRow) string { return cell(nil, r) }))
		}
		t.row(cells...)
	}
	for _, w := range rep.Workloads {
		if w.Partitions == 0 {
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
