package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/spannerfast/spannerfast/cmd/spannerfast-bench/internal/workload"
)

// perCallRPCs are the RPCs of one operation of each per-call workload.
var perCallRPCs = map[string][]string{
	"point":            {"ExecuteStreamingSql"},
	"manycols":         {"ExecuteStreamingSql"},
	"concurrent-point": {"ExecuteStreamingSql"},
	"insert":           {"ExecuteSql", "Commit"},
	"rwtxn":            {"ExecuteStreamingSql", "ExecuteSql", "Commit"},
	"concurrent-rwtxn": {"ExecuteStreamingSql", "ExecuteSql", "Commit"},
	// A read-only transaction begins inline with its first query and
	// ends without a call.
	"rotxn":      {"ExecuteStreamingSql", "ExecuteStreamingSql"},
	"batchdml10": {"ExecuteBatchDml", "Commit"},
}

// TestRunPerCall runs the per-call workloads with the bare gRPC arm, the
// client and spannerfast-safe at a tiny scale: every arm runs every
// operation against the fake server, the bare arm makes the RPCs the
// driver makes, and the report has the per-call table and its targets.
func TestRunPerCall(t *testing.T) {
	if !spannerfastBuilt {
		t.Skip("the bare arm replays the spannerfast driver's requests")
	}
	arms := []string{armTransport, armClient, armFastSafe}
	cfg := config{workloads: workload.GroupPerCall, arms: strings.Join(arms, ","), scale: 0.002, rounds: 1,
		inProcess: true, warmups: 2}
	rep, md, _ := runTool(t, cfg)
	if want := applicablePairs(t, arms, workload.GroupPerCall, cfg.scale); len(rep.Results) != want || want != 3*len(perCallRPCs) {
		t.Errorf("%d results, want %d (3 arms x %d operations)", len(rep.Results), want, len(perCallRPCs))
	}
	for _, r := range rep.Results {
		if r.Error != "" || r.Unavailable != "" || len(r.Rounds) != 1 {
			t.Errorf("%s on %s: %d rounds, error %q, unavailable %q", r.Arm, r.Workload, len(r.Rounds), r.Error, r.Unavailable)
		}
	}
	if len(rep.PerCall) != len(perCallRPCs) {
		t.Fatalf("per-call table has %d rows, want %d", len(rep.PerCall), len(perCallRPCs))
	}
	for _, row := range rep.PerCall {
		if want := perCallRPCs[row.Workload]; !slices.Equal(row.RPCs, want) {
			t.Errorf("%s: the bare arm makes %v, want %v", row.Workload, row.RPCs, want)
		}
		if row.Bare == nil || row.Safe == nil || row.Client == nil || row.CPUVsBare == nil || row.AllocsVsBare == nil ||
			row.CPUVsClient == nil || row.AllocsVsClient == nil {
			t.Errorf("%s: per-call row incomplete: %+v", row.Workload, row)
		}
		if !strings.Contains(md, "| "+row.Workload+" | "+strings.Join(perCallRPCs[row.Workload], " + ")+" | ") {
			t.Errorf("Markdown lacks the per-call row of %s", row.Workload)
		}
	}
	if !strings.Contains(md, "## Per call") || !strings.Contains(md, "lower bound") {
		t.Errorf("Markdown lacks the per-call section:\n%s", md)
	}
	// Every operation has the targets against the client; point, insert
	// and rwtxn against the bare call at 1.0x, the concurrent ones at
	// 1.1x.
	limits := map[string]float64{}
	for _, tr := range rep.Targets {
		if tr.Arm == armFastSafe && tr.Status != "N/A" {
			limits[tr.Workload+" "+tr.Check] = tr.Limit
		}
	}
	for name := range perCallRPCs {
		w := rep.workload(name)
		if limits[name+" CPU/"+w.per()+" vs client"] != 0.5 {
			t.Errorf("%s: no CPU target against the client (targets: %v)", name, limits)
		}
		if a := limits[name+" allocs/"+w.per()+" vs client"]; a != 0.33 && !(name == "manycols" && a == 0.25) {
			t.Errorf("%s: no allocation target against the client (targets: %v)", name, limits)
		}
	}
	for name, limit := range map[string]float64{"point": 1.0, "insert": 1.0, "rwtxn": 1.0,
		"manycols": 1.1, "concurrent-point": 1.1, "concurrent-rwtxn": 1.1} {
		w := rep.workload(name)
		if got := limits[name+" CPU/"+w.per()+" vs bare gRPC (transport floor)"]; got != limit {
			t.Errorf("%s: CPU target against the bare call %v, want %v", name, got, limit)
		}
	}
}
