package main

import (
	"fmt"
	"io"
	"math"
	"strings"
)

// The Markdown report: number formatting, tables and the targets section.

func joinNote(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// ---- Markdown ----

func fmtNum(v float64) string {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return "—"
	case v == 0:
		return "0"
	case math.Abs(v) >= 100:
		return fmt.Sprintf("%.0f", v)
	case math.Abs(v) >= 10:
		return fmt.Sprintf("%.1f", v)
	default:
		return fmt.Sprintf("%.2f", v)
	}
}

// fmtRate formats a rate with a k or M suffix.
func fmtRate(v float64) string {
	switch {
	case v >= 1e6:
		return fmtNum(v/1e6) + " M"
	case v >= 1e3:
		return fmtNum(v/1e3) + " k"
	default:
		return fmtNum(v)
	}
}

func fmtRatio(p *float64) string {
	if p == nil {
		return "—"
	}
	return fmtNum(*p) + "x"
}

type mdTable struct {
	b strings.Builder
}

func (t *mdTable) row(cells ...string) {
	t.b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
}

func (t *mdTable) header(cells ...string) {
	t.row(cells...)
	seps := make([]string, len(cells))
	for i := range seps {
		seps[i] = "---"
	}
	t.row(seps...)
}

// metricTable renders one value per workload and arm.
func (rep *report) metricTable(title, note string, cell func(w *workloadInfo, r *resultRow) string, unit func(w *workloadInfo) string) string {
	return rep.metricTableOf(title, note, func(*workloadInfo) bool { return true }, cell, unit)
}

// metricTableOf is metricTable for the workloads keep selects.
func (rep *report) metricTableOf(title, note string, keep func(w *workloadInfo) bool, cell func(w *workloadInfo, r *resultRow) string, unit func(w *workloadInfo) string) string {
	var arms []armInfo
	for _, a := range rep.ranArms() {
		for i := range rep.Workloads {
			if keep(&rep.Workloads[i]) && rep.find(a.ID, rep.Workloads[i].Name) != nil {
				arms = append(arms, a)
				break
			}
		}
	}
	var t mdTable
	t.b.WriteString("### " + title + "\n\n")
	if note != "" {
		t.b.WriteString(note + "\n\n")
	}
	head := []string{"workload", "unit"}
	for _, a := range arms {
		head = append(head, a.Title)
	}
	t.header(head...)
	for i := range rep.Workloads {
		w := &rep.Workloads[i]
		if !keep(w) {
			continue
		}
		cells := []string{w.Name, unit(w)}
		for _, a := range arms {
			r := rep.find(a.ID, w.Name)
			switch {
			case r == nil:
				cells = append(cells, "—")
			case r.Unavailable != "":
				cells = append(cells, "unavailable")
			case r.Error != "":
				cells = append(cells, "FAILED")
			default:
				cells = append(cells, cell(w, r))
			}
		}
		t.row(cells...)
	}
	t.b.WriteString("\n")
	return t.b.String()
}

// find returns the result of arm on workload, failed or not.
func (rep *report) find(armID, wl string) *resultRow {
	for _, r := range rep.Results {
		if r.Arm == armID && r.Workload == wl {
			return r
		}
	}
	return nil
}

// perUnit is the unit of a figure: the per-row form for row workloads,
// per-query otherwise with "query" replaced by "op" for writes.
func perUnit(w *workloadInfo, row, query string) string {
	if !w.PerQuery {
		return row
	}
	if w.per() == "op" {
		return strings.NewReplacer("queries", "ops", "query", "op").Replace(query)
	}
	return query
}

func (rep *report) has(keep func(*workloadInfo) bool) bool {
	for i := range rep.Workloads {
		if keep(&rep.Workloads[i]) {
			return true
		}
	}
	return false
}

// isRead selects the single-stream reads; the partitioned and
// latency-bound ones have their own sections.
func isRead(w *workloadInfo) bool  { return !w.Write && !isPartitioned(w) }
func isWrite(w *workloadInfo) bool { return w.Write }

// perOp is the per-row or per-query value of a result.
func perOp(w *workloadInfo, row, query float64) string {
	if w.PerQuery {
		return fmtNum(query)
	}
	return fmtNum(row)
}

// figureTables renders the CPU, ratio, allocation, byte and throughput
// tables of the workloads keep selects.
func (rep *report) figureTables(b *strings.Builder, keep func(*workloadInfo) bool, baseline string, floors bool) {
	b.WriteString(rep.metricTableOf("CPU time", "", keep,
		func(w *workloadInfo, r *resultRow) string { return perOp(w, r.CPUPerRowNs, r.CPUPerQueryUs) },
		func(w *workloadInfo) string { return perUnit(w, "ns CPU/row", "µs CPU/query") }))
	b.WriteString(rep.metricTableOf("CPU relative to "+baseline, "", keep,
		func(_ *workloadInfo, r *resultRow) string { return fmtRatio(r.VsBaseline) },
		func(*workloadInfo) string { return "x " + baseline }))
	if floors {
		b.WriteString(rep.metricTableOf("CPU relative to the floors", "transport floor / database/sql floor; a database/sql driver can come no lower than about the sum of the two floors.", keep,
			func(_ *workloadInfo, r *resultRow) string {
				return fmtRatio(r.VsTransportFloor) + " / " + fmtRatio(r.VsSQLFloor)
			},
			func(*workloadInfo) string { return "x transport / x sql" }))
	}
	if floors {
		b.WriteString(rep.floorSumTable(keep))
	}
	b.WriteString(rep.metricTableOf("Allocations", "", keep,
		func(w *workloadInfo, r *resultRow) string { return perOp(w, r.AllocsPerRow, r.AllocsPerQuery) },
		func(w *workloadInfo) string { return perUnit(w, "allocs/row", "allocs/query") }))
	b.WriteString(rep.metricTableOf("Bytes allocated", "", keep,
		func(w *workloadInfo, r *resultRow) string { return perOp(w, r.BytesPerRow, r.BytesPerQuery) },
		func(w *workloadInfo) string { return perUnit(w, "B/row", "B/query") }))
	b.WriteString(rep.metricTableOf("Throughput (wall clock)", "", keep,
		func(w *workloadInfo, r *resultRow) string {
			if w.PerQuery {
				return fmtRate(r.QueriesPerSec)
			}
			return fmtRate(r.RowsPerSec)
		},
		func(w *workloadInfo) string { return perUnit(w, "rows/s", "queries/s") }))
}

func writeMarkdown(out io.Writer, rep *report) error {
	var b strings.Builder
	m := rep.Meta
	b.WriteString("## spannerfast-bench results\n\n")
	fmt.Fprintf(&b, "%s, %s, %d CPUs (GOMAXPROCS %d); scale %g; best of %d interleaved rounds; fake server: %s.\n\n",
		m.GoVersion, m.Platform, m.NumCPU, m.GOMAXPROCS, m.Scale, m.Rounds, m.Server)
	reads, writes := rep.has(isRead), rep.has(isWrite)
	if reads {
		fmt.Fprintf(&b, "Ratios of the reads are relative to **%s**.", m.Baseline)
		if m.BaselineNote != "" {
			fmt.Fprintf(&b, " Note: %s.", m.BaselineNote)
		}
		b.WriteString(" ")
	}
	if writes {
		b.WriteString("Ratios of the writes are relative to **client**. ")
	}
	b.WriteString("CPU is client-process CPU time (user+system, all threads); lower is better.\n\n")
	for _, a := range rep.Arms {
		if !a.Ran {
			fmt.Fprintf(&b, "- %s: %s\n", a.ID, a.Note)
		}
	}
	b.WriteString("\n")

	if reads {
		rep.figureTables(&b, isRead, m.Baseline, true)
	}
	heap := false
	for _, w := range rep.Workloads {
		heap = heap || w.PeakHeap
	}
	if heap {
		b.WriteString(rep.metricTableOf("Peak heap",
			"Peak HeapInuse (sampled every 4% of the rows, before a forced GC) / peak live heap (right after that GC). The CPU figures of this workload include the forced GCs.",
			func(w *workloadInfo) bool { return w.PeakHeap },
			func(_ *workloadInfo, r *resultRow) string {
				return fmt.Sprintf("%.1f / %.1f", float64(r.PeakHeapBytes)/(1<<20), float64(r.PeakLiveHeapBytes)/(1<<20))
			},
			func(*workloadInfo) string { return "MiB in use / live" }))
	}
	if writes {
		b.WriteString("## Writes and transactions\n\n" +
			"One op is one committed read-write transaction (rotxn: a read-only one; see the workload list); txread-* are per row read.\n\n")
		rep.figureTables(&b, isWrite, armClient, false)
		writeChecksumTable(&b, rep.Checksum)
	}
	writePerCall(&b, rep.PerCall)
	writePartitioned(&b, rep)

	var errs []string
	for _, r := range rep.Results {
		switch {
		case r.Error != "":
			errs = append(errs, fmt.Sprintf("- %s on %s: %s", r.Arm, r.Workload, r.Error))
		case r.Unavailable != "":
			errs = append(errs, fmt.Sprintf("- %s on %s: unavailable: %s", r.Arm, r.Workload, r.Unavailable))
		}
	}
	if len(errs) > 0 {
		b.WriteString("### Failures and unavailable workloads\n\n" + strings.Join(errs, "\n") + "\n\n")
	}

	if reads || len(rep.Targets) > 0 {
		writeTargets(&b, rep.Targets)
	}
	_, err := io.WriteString(out, b.String())
	return err
}

// floorSumTable renders the per-row floor, the transport floor plus the
// database/sql floor, and every other arm's CPU relative to it.
func (rep *report) floorSumTable(keep func(*workloadInfo) bool) string {
	var arms []armInfo
	for _, a := range rep.ranArms() {
		if a.ID != armTransport && a.ID != armSQLFloor {
			arms = append(arms, a)
		}
	}
	var t mdTable
	head := []string{"workload", "floor sum"}
	for _, a := range arms {
		head = append(head, a.Title)
	}
	t.header(head...)
	n := 0
	for i := range rep.Workloads {
		w := &rep.Workloads[i]
		sum := rep.floorSum(w.Name)
		if !keep(w) || sum == 0 {
			continue
		}
		n++
		cells := []string{w.Name, perOp(w, sum*1e3*float64(w.Queries)/float64(max(1, w.RowsPerQuery*w.Queries)), sum) + " " + perUnit(w, "ns CPU/row", "µs CPU/query")}
		for _, a := range arms {
			r := rep.get(a.ID, w.Name)
			if r == nil {
				cells = append(cells, "—")
				continue
			}
			cells = append(cells, fmtRatio(r.VsFloorSum))
		}
		t.row(cells...)
	}
	if n == 0 {
		return ""
	}
	return "### CPU relative to the per-row floor\n\n" +
		"The per-row floor is the bare stream's bytes plus database/sql's own Next and Scan of ready values: " +
		"the transport floor's CPU plus the database/sql floor's. Each arm's CPU relative to that sum.\n\n" +
		t.b.String() + "\n"
}

func writeTargets(b *strings.Builder, targets []targetResult) {
	b.WriteString("### Targets\n\n")
	if len(targets) == 0 {
		b.WriteString("No target workload was selected.\n")
		return
	}
	var t mdTable
	t.header("workload", "arm", "check", "limit", "measured", "result", "note")
	for _, tr := range targets {
		meas := "—"
		if tr.Status != "N/A" {
			meas = fmtTarget(tr.Measured, tr.Unit)
		}
		t.row(tr.Workload, tr.Arm, tr.Check, "≤ "+fmtTarget(tr.Limit, tr.Unit), meas, tr.Status, tr.Note)
	}
	b.WriteString(t.b.String())
}

func fmtTarget(v float64, unit string) string {
	switch unit {
	case "x":
		return fmt.Sprintf("%.2fx", v)
	case "MiB":
		return fmt.Sprintf("%.1f MiB", v)
	default:
		return fmt.Sprintf("%.3f %s", v, unit)
	}
}
