package main

import (
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/spannerfast/spannerfast/cmd/spannerfast-bench/internal/workload"
)

// report is the result of a run; it is also the JSON file's schema.
type report struct {
	Meta      reportMeta     `json:"meta"`
	Workloads []workloadInfo `json:"workloads"`
	Arms      []armInfo      `json:"arms"`
	Results   []*resultRow   `json:"results"`
	Targets   []targetResult `json:"targets"`
	// Checksum is the cost of the abort-replay checksum per spannerfast
	// arm (the txread workloads).
	Checksum []checksumCost `json:"checksum_cost,omitempty"`
	// Partitioned is the partitioned reads against the single stream
	// (report_partitioned.go).
	Partitioned []partitionedResult `json:"partitioned,omitempty"`
	// PerCall is the per-call table: each operation against the bare gRPC
	// call and the official client (report_percall.go).
	PerCall []perCallRow `json:"per_call,omitempty"`
}

type reportMeta struct {
	Time             string  `json:"time"`
	GoVersion        string  `json:"go_version"`
	Platform         string  `json:"platform"`
	NumCPU           int     `json:"num_cpu"`
	GOMAXPROCS       int     `json:"gomaxprocs"`
	Scale            float64 `json:"scale"`
	Rounds           int     `json:"rounds"`
	Server           string  `json:"server"`
	BorrowBuilt      bool    `json:"client_borrow_built"`
	SpannerfastBuilt bool    `json:"spannerfast_built"`
	// Baseline is the arm the ratios are relative to: client-borrow, or
	// client when client-borrow did not run.
	Baseline     string `json:"baseline"`
	BaselineNote string `json:"baseline_note,omitempty"`
}

type workloadInfo struct {
	Name         string   `json:"name"`
	Description  string   `json:"description"`
	SQL          string   `json:"sql"`
	Columns      int      `json:"columns"`
	Types        []string `json:"types"`
	RowsPerQuery int      `json:"rows_per_query"`
	Queries      int      `json:"queries"`
	PerQuery     bool     `json:"per_query"`
	Chunked      bool     `json:"chunked"`
	PeakHeap     bool     `json:"peak_heap"`
	// Op is what one operation does ("query" for the reads); for a write
	// workload, Queries counts operations and the per-query figures are
	// per operation.
	Op          string `json:"op"`
	Write       bool   `json:"write"`
	Statements  int    `json:"statements_per_op,omitempty"`
	RetryAborts bool   `json:"retry_aborts_internally,omitempty"`
	// Baseline is the arm cpu_vs_baseline compares with: the report's
	// baseline for reads, client for writes. The client keeps no checksum,
	// so a checksummed transaction read compares with its reading of the
	// same rows without one (BaselineWorkload).
	Baseline         string `json:"baseline"`
	BaselineWorkload string `json:"baseline_workload"`
	// Partitions is the partition count of a partitioned read.
	Partitions int `json:"partitions,omitempty"`
	// MessageDelayNs and MessageRows describe a latency-bound read: the
	// server's wait before each message and the rows of a message.
	MessageDelayNs int64 `json:"message_delay_ns,omitempty"`
	MessageRows    int   `json:"message_rows,omitempty"`
	// PerCall puts the workload in the per-call table.
	PerCall bool `json:"per_call,omitempty"`
}

// per is what the workload's figures are per: row, query or op.
func (w *workloadInfo) per() string {
	switch {
	case !w.PerQuery:
		return "row"
	case w.Write:
		return "op"
	}
	return "query"
}

// perWhat names the unit of a per-operation workload of op.
func perWhat(op workload.Op) string {
	if op.Write() {
		return "op"
	}
	return "query"
}

type armInfo struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	Ran   bool   `json:"ran"`
	Note  string `json:"note,omitempty"`
}

// resultRow is one arm on one workload: every round, and the best figures
// (CPU and wall time: the fastest round; allocations and heap: the lowest
// round).
type resultRow struct {
	Arm         string        `json:"arm"`
	Workload    string        `json:"workload"`
	Error       string        `json:"error,omitempty"`
	Unavailable string        `json:"unavailable,omitempty"`
	Rounds      []measurement `json:"rounds"`

	Rows    int `json:"rows"` // per measurement (all queries)
	Queries int `json:"queries"`

	CPUPerRowNs    float64 `json:"cpu_per_row_ns"`
	CPUPerQueryUs  float64 `json:"cpu_per_query_us"`
	AllocsPerRow   float64 `json:"allocs_per_row"`
	BytesPerRow    float64 `json:"bytes_per_row"`
	AllocsPerQuery float64 `json:"allocs_per_query"`
	BytesPerQuery  float64 `json:"bytes_per_query"`
	RowsPerSec     float64 `json:"rows_per_sec"`
	QueriesPerSec  float64 `json:"queries_per_sec"`
	WallSeconds    float64 `json:"wall_seconds"`

	PeakHeapBytes     uint64 `json:"peak_heap_bytes,omitempty"`
	PeakLiveHeapBytes uint64 `json:"peak_live_heap_bytes,omitempty"`

	// CPU ratios (per row; per query is the same ratio).
	VsBaseline       *float64 `json:"cpu_vs_baseline,omitempty"`
	VsTransportFloor *float64 `json:"cpu_vs_transport_floor,omitempty"`
	VsSQLFloor       *float64 `json:"cpu_vs_sql_floor,omitempty"`
	// VsFloorSum is CPU relative to the sum of the two floors' (the bare
	// stream's bytes plus database/sql's own Next and Scan of ready
	// values): what a database/sql driver cannot go much below.
	VsFloorSum *float64 `json:"cpu_vs_floor_sum,omitempty"`
}

func (st *runState) report() *report {
	ver, plat, ncpu, procs := goInfo()
	rep := &report{Meta: reportMeta{
		Time: time.Now().UTC().Format(time.RFC3339), GoVersion: ver, Platform: plat,
		NumCPU: ncpu, GOMAXPROCS: procs, Scale: st.cfg.scale, Rounds: st.cfg.rounds,
		Server: st.server, BorrowBuilt: borrowBuilt, SpannerfastBuilt: spannerfastBuilt,
	}}
	for _, w := range st.workloads {
		rep.Workloads = append(rep.Workloads, workloadInfo{
			Name: w.Name, Description: w.Description, SQL: w.SQL, Columns: len(w.Columns),
			Types: w.Kinds(), RowsPerQuery: w.Rows, Queries: w.Queries,
			PerQuery: w.PerQuery, Chunked: w.Chunked, PeakHeap: w.PeakHeap,
			Op: w.Op.String(), Write: w.Op.Write(), Statements: w.Statements, RetryAborts: w.RetryAborts,
			Partitions: w.Partitions, MessageDelayNs: w.MessageDelay.Nanoseconds(), MessageRows: w.MessageRows,
			PerCall: w.PerCall,
		})
	}
	for _, s := range st.arms {
		_, ran := st.open[s.id]
		note := ""
		if err := st.openErr[s.id]; err != nil {
			note = "failed to start: " + err.Error()
		}
		rep.Arms = append(rep.Arms, armInfo{ID: s.id, Title: s.title, Ran: ran, Note: note})
	}
	for _, s := range st.skipped {
		rep.Arms = append(rep.Arms, armInfo{ID: s.id, Title: s.title, Note: "not run: " + s.note})
	}
	if !spannerfastBuilt {
		rep.Arms = append(rep.Arms,
			armInfo{ID: armFastSafe, Title: armFastSafe, Note: "not run: built with -tags nospannerfast"},
			armInfo{ID: armFastRaw, Title: armFastRaw, Note: "not run: built with -tags nospannerfast"})
	}
	for _, s := range st.arms {
		if _, ok := st.open[s.id]; !ok {
			continue
		}
		for _, w := range st.workloads {
			if s.runs(w) {
				rep.Results = append(rep.Results, summarize(s.id, w, st.result(s.id, w.Name)))
			}
		}
	}
	rep.Meta.Baseline = armBorrow
	if !rep.ran(armBorrow) {
		rep.Meta.Baseline = armClient
		if borrowBuilt {
			rep.Meta.BaselineNote = "client-borrow did not run; ratios are relative to client"
		} else {
			rep.Meta.BaselineNote = "client-borrow unavailable (build with -tags spanner_vtproto); ratios are relative to client"
		}
	}
	for i := range rep.Workloads {
		w := &rep.Workloads[i]
		w.Baseline, w.BaselineWorkload = rep.Meta.Baseline, w.Name
		if w.Write || isPartitioned(w) { // client-borrow runs none of them
			w.Baseline = armClient
		}
	}
	if on, off := rep.txReadPair(); on != nil && off != nil {
		on.BaselineWorkload = off.Name
	}
	for _, r := range rep.Results {
		w := rep.workload(r.Workload)
		if r.Error != "" || r.Unavailable != "" || w == nil {
			continue
		}
		r.VsBaseline = rep.ratioTo(r, w.Baseline, w.BaselineWorkload)
		r.VsTransportFloor = rep.ratio(r, armTransport)
		r.VsSQLFloor = rep.ratio(r, armSQLFloor)
		if sum := rep.floorSum(r.Workload); sum > 0 {
			v := r.CPUPerQueryUs / sum
			r.VsFloorSum = &v
		}
	}
	rep.PerCall = st.perCallRows(rep)
	rep.Targets = evaluateTargets(rep)
	rep.Checksum = checksumCosts(rep)
	rep.Partitioned = partitionedResults(rep)
	return rep
}

func summarize(armID string, w *workload.Workload, res *armResult) *resultRow {
	r := &resultRow{Arm: armID, Workload: w.Name, Rows: w.TotalRows(), Queries: w.Queries, Rounds: res.rounds}
	if res.unavailable != "" {
		r.Unavailable = res.unavailable
		return r
	}
	if res.err != nil {
		r.Error = res.err.Error()
		return r
	}
	if len(res.rounds) == 0 {
		r.Error = "no measurement"
		return r
	}
	best := res.rounds[0]
	for _, m := range res.rounds[1:] {
		best.CPU = min(best.CPU, m.CPU)
		best.Wall = min(best.Wall, m.Wall)
		best.Mallocs = min(best.Mallocs, m.Mallocs)
		best.Bytes = min(best.Bytes, m.Bytes)
		best.PeakHeap = min(best.PeakHeap, m.PeakHeap)
		best.PeakLive = min(best.PeakLive, m.PeakLive)
	}
	rows, qs := float64(w.TotalRows()), float64(w.Queries)
	cpu := float64(best.CPU.Nanoseconds())
	r.CPUPerQueryUs = cpu / qs / 1e3
	r.AllocsPerQuery = float64(best.Mallocs) / qs
	r.BytesPerQuery = float64(best.Bytes) / qs
	r.WallSeconds = best.Wall.Seconds()
	if best.Wall > 0 {
		r.QueriesPerSec = qs / best.Wall.Seconds()
	}
	if rows > 0 { // writes without a query read no rows
		r.CPUPerRowNs = cpu / rows
		r.AllocsPerRow = float64(best.Mallocs) / rows
		r.BytesPerRow = float64(best.Bytes) / rows
		if best.Wall > 0 {
			r.RowsPerSec = rows / best.Wall.Seconds()
		}
	}
	if w.PeakHeap {
		r.PeakHeapBytes, r.PeakLiveHeapBytes = best.PeakHeap, best.PeakLive
	}
	return r
}

// get returns the successful result of arm on workload, or nil.
func (rep *report) get(armID, wl string) *resultRow {
	for _, r := range rep.Results {
		if r.Arm == armID && r.Workload == wl {
			if r.Error != "" || r.Unavailable != "" {
				return nil
			}
			return r
		}
	}
	return nil
}

func (rep *report) ran(armID string) bool {
	for _, a := range rep.Arms {
		if a.ID == armID {
			return a.Ran
		}
	}
	return false
}

func (rep *report) workload(name string) *workloadInfo {
	for i := range rep.Workloads {
		if rep.Workloads[i].Name == name {
			return &rep.Workloads[i]
		}
	}
	return nil
}

func (rep *report) ratio(r *resultRow, refArm string) *float64 {
	return rep.ratioTo(r, refArm, r.Workload)
}

// ratioTo is r's CPU relative to refArm's on workload refWorkload.
func (rep *report) ratioTo(r *resultRow, refArm, refWorkload string) *float64 {
	ref := rep.get(refArm, refWorkload)
	// Per query is the same ratio as per row, and defined for writes that
	// read no rows.
	if ref == nil || ref.CPUPerQueryUs <= 0 {
		return nil
	}
	v := r.CPUPerQueryUs / ref.CPUPerQueryUs
	return &v
}

// floorSum is the CPU per query of the transport floor plus the
// database/sql floor on workload wl (the per-row floor, per query), or 0
// when either has no result.
func (rep *report) floorSum(wl string) float64 {
	t, q := rep.get(armTransport, wl), rep.get(armSQLFloor, wl)
	if t == nil || q == nil {
		return 0
	}
	return t.CPUPerQueryUs + q.CPUPerQueryUs
}

// ranArms lists the arms with results, in report order.
func (rep *report) ranArms() []armInfo {
	var out []armInfo
	for _, a := range rep.Arms {
		if a.Ran {
			out = append(out, a)
		}
	}
	return out
}

// ---- targets ----

type targetResult struct {
	Workload string  `json:"workload"`
	Arm      string  `json:"arm"`
	Check    string  `json:"check"`
	Limit    float64 `json:"limit"`
	Measured float64 `json:"measured"`
	Unit     string  `json:"unit"`
	Status   string  `json:"status"` // MET, MISSED or N/A
	Note     string  `json:"note,omitempty"`
}

type targetMetric int

const (
	cpuVsBaseline targetMetric = iota
	allocsPerRow
	cpuVsTransport
	allocsVsClient
	allocsOverTransport // allocations per query beyond the transport floor's
	peakHeapMiB
	cpuVsFloorSum // CPU relative to the transport floor plus the database/sql floor
	cpuVsClient
)

type targetSpec struct {
	workload string
	metric   targetMetric
	raw      float64 // limit for spannerfast-raw (noTarget: none)
	safe     float64 // limit for spannerfast-safe
}

// noTarget marks an arm a target does not apply to.
const noTarget = -1

// targets are the goals of the spannerfast driver (see doc.go). The
// per-call ones (CPU against the bare gRPC call, which is the transport
// floor arm, and CPU and allocations against the client) are for
// spannerfast-safe; of them raw, which changes reads only, has the bare
// call's on the reads.
var targets = []targetSpec{
	{"narrow", cpuVsBaseline, 0.7, 1.0},
	{"narrow", cpuVsFloorSum, 1.15, 1.35},
	{"narrow", allocsPerRow, 0.01, 0.1},
	{"wide", cpuVsBaseline, 0.35, 0.40},
	{"strings800", cpuVsBaseline, 0.65, 0.85},
	{"point", cpuVsTransport, 1.0, 1.0},
	{"point", allocsOverTransport, 12, 12},
	{"point", cpuVsClient, noTarget, 0.5},
	{"point", allocsVsClient, noTarget, 0.33},
	{"manycols", cpuVsTransport, 1.1, 1.1},
	{"manycols", allocsVsClient, 0.25, 0.25},
	{"manycols", cpuVsClient, noTarget, 0.5}, // allocations: the 0.25x above
	{"concurrent-point", cpuVsTransport, 1.1, 1.1},
	{"concurrent-point", cpuVsClient, noTarget, 0.5},
	{"concurrent-point", allocsVsClient, noTarget, 0.33},
	{"insert", cpuVsTransport, noTarget, 1.0},
	{"insert", cpuVsClient, noTarget, 0.5},
	{"insert", allocsVsClient, noTarget, 0.33},
	{"rwtxn", cpuVsTransport, noTarget, 1.0},
	{"rwtxn", cpuVsClient, noTarget, 0.5},
	{"rwtxn", allocsVsClient, noTarget, 0.33},
	{"concurrent-rwtxn", cpuVsTransport, noTarget, 1.1},
	{"concurrent-rwtxn", cpuVsClient, noTarget, 0.5},
	{"concurrent-rwtxn", allocsVsClient, noTarget, 0.33},
	{"rotxn", cpuVsClient, noTarget, 0.5},
	{"rotxn", allocsVsClient, noTarget, 0.33},
	{"batchdml10", cpuVsClient, noTarget, 0.5},
	{"batchdml10", allocsVsClient, noTarget, 0.33},
	{"narrow5m", peakHeapMiB, 48, 48},
}

func evaluateTargets(rep *report) []targetResult {
	var out []targetResult
	for _, t := range targets {
		w := rep.workload(t.workload)
		if w == nil {
			continue // workload not selected
		}
		for _, armID := range []string{armFastRaw, armFastSafe} {
			limit := t.safe
			if armID == armFastRaw {
				limit = t.raw
			}
			if limit == noTarget {
				continue
			}
			tr := targetResult{Workload: t.workload, Arm: armID, Limit: limit, Status: "N/A"}
			r := rep.get(armID, t.workload)
			var ref *resultRow
			switch t.metric {
			case cpuVsBaseline:
				tr.Check, tr.Unit = "CPU/row vs "+rep.Meta.Baseline, "x"
				ref = rep.get(rep.Meta.Baseline, t.workload)
				if r != nil && ref != nil {
					tr.Measured = r.CPUPerRowNs / ref.CPUPerRowNs
				}
				if rep.Meta.Baseline != armBorrow {
					tr.Note = "client-borrow unavailable, compared with client"
				}
			case allocsPerRow:
				tr.Check, tr.Unit = "allocs/row", "allocs"
				ref = r
				if r != nil {
					tr.Measured = r.AllocsPerRow
				}
			case cpuVsTransport:
				tr.Check, tr.Unit = "CPU/"+w.per()+" vs bare gRPC (transport floor)", "x"
				ref = rep.get(armTransport, t.workload)
				if r != nil && ref != nil {
					tr.Measured = r.CPUPerQueryUs / ref.CPUPerQueryUs
				}
			case cpuVsFloorSum:
				tr.Check, tr.Unit = "CPU/row vs transport + database/sql floors", "x"
				ref = rep.get(armSQLFloor, t.workload) // and the transport floor: floorSum
				sum := rep.floorSum(t.workload)
				if sum == 0 {
					ref = nil
				}
				if r != nil && ref != nil {
					tr.Measured = r.CPUPerQueryUs / sum
				}
			case cpuVsClient:
				tr.Check, tr.Unit = "CPU/"+w.per()+" vs client", "x"
				ref = rep.get(armClient, t.workload)
				if r != nil && ref != nil && ref.CPUPerQueryUs > 0 {
					tr.Measured = r.CPUPerQueryUs / ref.CPUPerQueryUs
				}
			case allocsVsClient:
				tr.Check, tr.Unit = "allocs/"+w.per()+" vs client", "x"
				ref = rep.get(armClient, t.workload)
				if r != nil && ref != nil && ref.AllocsPerQuery > 0 {
					tr.Measured = r.AllocsPerQuery / ref.AllocsPerQuery
				}
			case allocsOverTransport:
				tr.Check, tr.Unit = "allocs/query above transport floor", "allocs"
				ref = rep.get(armTransport, t.workload)
				if r != nil && ref != nil {
					tr.Measured = r.AllocsPerQuery - ref.AllocsPerQuery
				}
			case peakHeapMiB:
				tr.Check, tr.Unit = "peak heap", "MiB"
				ref = r
				if r != nil {
					tr.Measured = float64(r.PeakHeapBytes) / (1 << 20)
				}
				if w.RowsPerQuery < 5_000_000 {
					tr.Note = fmt.Sprintf("scaled run: %d rows, conclusive only at 5,000,000", w.RowsPerQuery)
				}
			}
			switch {
			case r == nil:
				tr.Note = joinNote(tr.Note, armID+" has no result")
			case ref == nil:
				tr.Note = joinNote(tr.Note, "reference arm has no result")
			case tr.Measured <= limit:
				tr.Status = "MET"
			default:
				tr.Status = "MISSED"
			}
			out = append(out, tr)
		}
	}
	return out
}

func writeJSON(path string, rep *report) error {
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding the JSON results: %w", err)
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("writing the JSON results: %w", err)
	}
	return nil
}

func createFile(path string) (*os.File, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("creating %s: %w", path, err)
	}
	return f, nil
}
