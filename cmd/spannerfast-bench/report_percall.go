package main

import "strings"

// The per-call table: each operation of the group percall with the bare
// gRPC call (the transport floor arm, replaying the spannerfast driver's
// requests), spannerfast-safe and the official client (go-sql-spanner's
// lower bound: go-sql-spanner makes these client calls and adds its own
// work on top).

// perCallFigures are one arm's CPU and allocations per operation.
type perCallFigures struct {
	CPUUs  float64 `json:"cpu_us"`
	Allocs float64 `json:"allocs"`
}

// perCallRow is one operation of the per-call table.
type perCallRow struct {
	Workload    string `json:"workload"`
	Description string `json:"description"`
	// RPCs are the calls of one operation as the spannerfast driver made
	// them, which the bare arm makes too.
	RPCs   []string        `json:"rpcs,omitempty"`
	Bare   *perCallFigures `json:"bare,omitempty"`
	Safe   *perCallFigures `json:"spannerfast_safe,omitempty"`
	Client *perCallFigures `json:"client,omitempty"`
	// Ratios of spannerfast-safe to the bare call and to the client.
	CPUVsBare      *float64 `json:"cpu_vs_bare,omitempty"`
	AllocsVsBare   *float64 `json:"allocs_vs_bare,omitempty"`
	CPUVsClient    *float64 `json:"cpu_vs_client,omitempty"`
	AllocsVsClient *float64 `json:"allocs_vs_client,omitempty"`
}

// rpcLister is the bare arm's list of the RPCs of one operation.
type rpcLister interface {
	rpcs(workload string) []string
}

func (a *transportArm) rpcs(name string) []string {
	var out []string
	for _, c := range a.scripts[name] {
		out = append(out, strings.TrimPrefix(c.Method, "/google.spanner.v1.Spanner/"))
	}
	return out
}

func (rep *report) perCallFigures(armID, wl string) *perCallFigures {
	r := rep.get(armID, wl)
	if r == nil {
		return nil
	}
	return &perCallFigures{CPUUs: r.CPUPerQueryUs, Allocs: r.AllocsPerQuery}
}

func ratioOf(a, b *perCallFigures, f func(*perCallFigures) float64) *float64 {
	if a == nil || b == nil || f(b) <= 0 {
		return nil
	}
	v := f(a) / f(b)
	return &v
}

func cpuOf(f *perCallFigures) float64    { return f.CPUUs }
func allocsOf(f *perCallFigures) float64 { return f.Allocs }

// perCallRows builds the per-call table of the run.
func (st *runState) perCallRows(rep *report) []perCallRow {
	lister, _ := st.open[armTransport].(rpcLister)
	var out []perCallRow
	for _, w := range rep.Workloads {
		if !w.PerCall {
			continue
		}
		row := perCallRow{Workload: w.Name, Description: w.Description,
			Bare: rep.perCallFigures(armTransport, w.Name), Safe: rep.perCallFigures(armFastSafe, w.Name),
			Client: rep.perCallFigures(armClient, w.Name)}
		if lister != nil {
			row.RPCs = lister.rpcs(w.Name)
		}
		row.CPUVsBare, row.AllocsVsBare = ratioOf(row.Safe, row.Bare, cpuOf), ratioOf(row.Safe, row.Bare, allocsOf)
		row.CPUVsClient, row.AllocsVsClient = ratioOf(row.Safe, row.Client, cpuOf), ratioOf(row.Safe, row.Client, allocsOf)
		out = append(out, row)
	}
	return out
}

// writePerCall renders the per-call table.
func writePerCall(b *strings.Builder, rows []perCallRow) {
	if len(rows) == 0 {
		return
	}
	b.WriteString("## Per call\n\n" +
		"One operation (a query, or a transaction with its commit) with three arms: **bare**, grpc-go alone " +
		"(grpc.NewClient with default options, one connection) making the RPCs the spannerfast driver makes, " +
		"with the request bytes and headers it sends, captured from it, and counting the responses' bytes; " +
		"**spannerfast**, spannerfast-safe through database/sql; **client**, the official client called as " +
		"go-sql-spanner calls it, which makes it go-sql-spanner's lower bound (go-sql-spanner does its own work " +
		"on top). CPU in µs and allocations per operation (per query for the reads).\n\n")
	var t mdTable
	t.header("operation", "RPCs", "bare µs", "bare allocs", "spannerfast µs", "spannerfast allocs",
		"client µs", "client allocs", "spannerfast/bare CPU", "spannerfast/bare allocs",
		"spannerfast/client CPU", "spannerfast/client allocs")
	fig := func(f *perCallFigures) (string, string) {
		if f == nil {
			return "—", "—"
		}
		return fmtNum(f.CPUUs), fmtNum(f.Allocs)
	}
	for _, r := range rows {
		rpcs := "—"
		if len(r.RPCs) > 0 {
			rpcs = strings.Join(r.RPCs, " + ")
		}
		bc, ba := fig(r.Bare)
		sc, sa := fig(r.Safe)
		cc, ca := fig(r.Client)
		t.row(r.Workload, rpcs, bc, ba, sc, sa, cc, ca,
			fmtRatio(r.CPUVsBare), fmtRatio(r.AllocsVsBare), fmtRatio(r.CPUVsClient), fmtRatio(r.AllocsVsClient))
	}
	b.WriteString(t.b.String())
	b.WriteString("\n")
	b.WriteString("Targets (spannerfast-safe): CPU ≤ 1.0x bare for point, insert and rwtxn, ≤ 1.1x for manycols, " +
		"concurrent-point and concurrent-rwtxn; ≤ 0.5x the client's CPU and ≤ 0.33x its allocations on every operation " +
		"(see Targets).\n\n")
}
