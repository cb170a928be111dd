package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spannerfast/spannerfast/cmd/spannerfast-bench/internal/workload"
)

// TestRunTiny runs the whole tool at a tiny scale with an in-process server
// for the arms that do not need the spannerfast driver, and checks the three
// outputs.
func TestRunTiny(t *testing.T) {
	dir := t.TempDir()
	arms := []string{armTransport, armSQLFloor, armClient}
	if borrowBuilt {
		arms = append(arms, armBorrow)
	}
	cfg := config{
		workloads:      "all",
		arms:           strings.Join(arms, ","),
		scale:          0.002,
		rounds:         2,
		jsonPath:       filepath.Join(dir, "r.json"),
		chartPath:      filepath.Join(dir, "c.png"),
		cpuProfileArm:  armSQLFloor,
		cpuProfilePath: filepath.Join(dir, "cpu.pprof"),
		memProfilePath: filepath.Join(dir, "mem.pprof"),
		inProcess:      true,
		warmups:        2,
	}
	rep, stdout, stderr := runTool(t, cfg)

	// Every arm read every workload, and the decoding arms read the right
	// values (run compares their checksums).
	for _, r := range rep.Results {
		if r.Error != "" {
			t.Errorf("%s on %s: %s", r.Arm, r.Workload, r.Error)
		}
		if r.Unavailable != "" && !spannerfastBuilt && r.Arm == armTransport {
			continue // the bare arm's writes replay the driver's requests
		}
		if len(r.Rounds) != cfg.rounds {
			t.Errorf("%s on %s: %d rounds", r.Arm, r.Workload, len(r.Rounds))
		}
	}
	if want := applicablePairs(t, arms, "all", cfg.scale); len(rep.Results) != want {
		t.Errorf("%d results, want %d", len(rep.Results), want)
	}

	// Markdown: a column per arm, every workload, the targets.
	md := stdout
	var header string
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(line, "| workload | unit |") {
			header = line
			break
		}
	}
	for _, a := range allArms() {
		ran := false
		for _, id := range arms {
			ran = ran || id == a.id
		}
		if ran && !strings.Contains(header, "| "+a.title+" |") && !strings.HasSuffix(header, "| "+a.title+" |") {
			t.Errorf("Markdown header %q lacks arm %s", header, a.title)
		}
	}
	for _, w := range workload.Names() {
		// A single stream of the partitioned sections is "(one stream)".
		if !strings.Contains(md, "| "+w+" |") && !strings.Contains(md, "| "+w+" (one stream) |") {
			t.Errorf("Markdown lacks workload %s", w)
		}
	}
	for _, s := range []string{"### CPU time", "### Allocations", "### Peak heap", "### Targets", "N/A",
		"## Writes and transactions", "| insert | µs CPU/op |", "| apply1000 | ops/s |",
		"### CPU relative to the per-row floor", "## Per call"} {
		if !strings.Contains(md, s) {
			t.Errorf("Markdown lacks %q", s)
		}
	}
	if !borrowBuilt && !strings.Contains(md, "client-borrow unavailable") {
		t.Error("Markdown does not say that client-borrow is unavailable")
	}

	// Progress on stderr names rounds, workloads and arms.
	if !strings.Contains(stderr, "round 2/2 narrow") || !strings.Contains(stderr, armClient) {
		t.Errorf("progress lines missing:\n%s", stderr)
	}

	// JSON parses back into the report.
	b, err := os.ReadFile(cfg.jsonPath)
	if err != nil {
		t.Fatal(err)
	}
	var back report
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatalf("JSON does not parse: %v", err)
	}
	if len(back.Results) != len(rep.Results) || back.Meta.Rounds != 2 || back.Meta.Scale != 0.002 {
		t.Errorf("JSON meta %+v, %d results", back.Meta, len(back.Results))
	}
	r := back.find(armClient, "narrow")
	if r == nil || r.CPUPerRowNs <= 0 || r.AllocsPerRow <= 0 || r.VsTransportFloor == nil || r.VsFloorSum == nil || r.Rows != 400 {
		t.Errorf("client narrow result incomplete: %+v", r)
	}
	if r := back.find(armSQLFloor, "narrow5m"); r == nil || r.PeakHeapBytes == 0 || r.PeakLiveHeapBytes == 0 {
		t.Errorf("narrow5m has no peak heap: %+v", r)
	}
	if len(back.PerCall) == 0 || back.PerCall[0].Workload != "point" || back.PerCall[0].Bare == nil {
		t.Errorf("JSON per-call table: %+v", back.PerCall)
	}
	if len(back.Targets) == 0 {
		t.Error("no targets in JSON")
	}
	if r := back.find(armClient, "txn10"); r == nil || r.CPUPerQueryUs <= 0 || r.AllocsPerQuery <= 0 || r.VsBaseline == nil || *r.VsBaseline != 1 {
		t.Errorf("client txn10 result incomplete: %+v", r)
	}
	if back.find(armTransport, "txn10") != nil || back.find(armClient, "txread-checksum") != nil {
		t.Error("results for workloads the arm does not run")
	}

	// The chart is a PNG, and the profile exists.
	png, err := os.ReadFile(cfg.chartPath)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")) {
		t.Errorf("chart is not a PNG (starts %q)", png[:min(8, len(png))])
	}
	if st, err := os.Stat(cfg.cpuProfilePath); err != nil || st.Size() == 0 {
		t.Errorf("CPU profile: %v", err)
	}
	if st, err := os.Stat(cfg.memProfilePath); err != nil || st.Size() == 0 {
		t.Errorf("allocation profile: %v", err)
	}
}

// runTool runs the tool with cfg (within two minutes) and returns the
// report, the Markdown and the progress lines.
func runTool(t *testing.T, cfg config) (rep *report, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	rep, err := run(ctx, cfg, &out, &errOut)
	if err != nil {
		t.Fatalf("run: %v\nstderr:\n%s", err, errOut.String())
	}
	return rep, out.String(), errOut.String()
}

// applicablePairs counts the (arm, workload) pairs that run.
func applicablePairs(t *testing.T, arms []string, workloads string, scale float64) int {
	t.Helper()
	ws, err := workload.Select(workloads, scale)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, s := range allArms() {
		for _, w := range ws {
			if slices.Contains(arms, s.id) && s.runs(w) {
				n++
			}
		}
	}
	return n
}

func TestParseFlags(t *testing.T) {
	cfg, err := parseFlags([]string{"-quick"}, io.Discard)
	if err != nil || cfg.scale != quickScale || cfg.rounds != quickRounds {
		t.Errorf("-quick: %+v, %v", cfg, err)
	}
	cfg, err = parseFlags([]string{"-quick", "-scale", "0.5", "-rounds", "5", "-arms", "client"}, io.Discard)
	if err != nil || cfg.scale != 0.5 || cfg.rounds != 5 || cfg.arms != "client" {
		t.Errorf("-quick with -scale: %+v, %v", cfg, err)
	}
	for _, args := range [][]string{{"-scale", "0"}, {"-scale", "-1"}, {"-rounds", "0"}, {"stray"}, {"-nope"}} {
		if _, err := parseFlags(args, io.Discard); err == nil {
			t.Errorf("%q accepted", args)
		}
	}
}

func TestSelectArms(t *testing.T) {
	sel, _, err := selectArms("client, transport-floor")
	if err != nil || len(sel) != 2 || sel[0].id != armTransport {
		t.Errorf("selectArms = %v, %v", sel, err)
	}
	if _, _, err := selectArms("nope"); err == nil || !strings.Contains(err.Error(), "unknown arm") {
		t.Errorf("unknown arm: %v", err)
	}
	if !borrowBuilt {
		if _, _, err := selectArms(armBorrow); err == nil || !strings.Contains(err.Error(), "spanner_vtproto") {
			t.Errorf("client-borrow without the tag: %v", err)
		}
	}
	if !spannerfastBuilt {
		if _, _, err := selectArms(armFastRaw); err == nil || !strings.Contains(err.Error(), "nospannerfast") {
			t.Errorf("spannerfast-raw without the driver: %v", err)
		}
	}
}

// TestServeMain checks the server process protocol: the address line, and
// exiting when stdin closes.
func TestServeMain(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- serveMain([]string{"-scale", "0.001", "-workloads", "point"}, inR, outW)
		outW.Close()
	}()
	line, err := bufio.NewReader(outR).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, addrPrefix) {
		t.Fatalf("address line %q, %v", line, err)
	}
	addr := strings.TrimSpace(strings.TrimPrefix(line, addrPrefix))
	ws, _ := workload.Select("point", 0.001)
	ctx := context.Background()
	a, err := openTransport(ctx, &env{addr: addr, database: databasePath, workloads: ws})
	if err != nil {
		t.Fatal(err)
	}
	if n, err := a.run(ctx, ws[0], nil); err != nil || n == 0 {
		t.Errorf("transport run: %d bytes, %v", n, err)
	}
	a.close()
	inW.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("server did not exit after stdin closed")
	}
}

func TestTargetsEvaluate(t *testing.T) {
	one := func(v float64) *float64 { return &v }
	rep := &report{
		Meta: reportMeta{Baseline: armBorrow},
		Workloads: []workloadInfo{{Name: "narrow"}, {Name: "point", PerQuery: true, PerCall: true},
			{Name: "insert", PerQuery: true, Write: true, PerCall: true}},
		Arms: []armInfo{{ID: armBorrow, Ran: true}, {ID: armFastRaw, Ran: true}, {ID: armFastSafe, Ran: true},
			{ID: armTransport, Ran: true}, {ID: armSQLFloor, Ran: true}, {ID: armClient, Ran: true}},
		Results: []*resultRow{
			{Arm: armBorrow, Workload: "narrow", CPUPerRowNs: 200, CPUPerQueryUs: 200, AllocsPerRow: 0},
			{Arm: armTransport, Workload: "narrow", CPUPerRowNs: 20, CPUPerQueryUs: 20},
			{Arm: armSQLFloor, Workload: "narrow", CPUPerRowNs: 80, CPUPerQueryUs: 80},
			{Arm: armFastRaw, Workload: "narrow", CPUPerRowNs: 110, CPUPerQueryUs: 110, AllocsPerRow: 0.01, VsBaseline: one(0.55)},
			{Arm: armFastSafe, Workload: "narrow", CPUPerRowNs: 300, CPUPerQueryUs: 300, AllocsPerRow: 1, VsBaseline: one(1.5)},
			{Arm: armTransport, Workload: "point", CPUPerQueryUs: 100, AllocsPerQuery: 88},
			{Arm: armClient, Workload: "point", CPUPerQueryUs: 200, AllocsPerQuery: 300},
			{Arm: armFastRaw, Workload: "point", CPUPerQueryUs: 100, AllocsPerQuery: 100},
			{Arm: armFastSafe, Workload: "point", CPUPerQueryUs: 120, AllocsPerQuery: 101},
			{Arm: armTransport, Workload: "insert", CPUPerQueryUs: 100, AllocsPerQuery: 150},
			{Arm: armClient, Workload: "insert", CPUPerQueryUs: 300, AllocsPerQuery: 500},
			{Arm: armFastSafe, Workload: "insert", CPUPerQueryUs: 100, AllocsPerQuery: 160},
		},
	}
	got := map[string]string{}
	for _, tr := range evaluateTargets(rep) {
		got[tr.Workload+" "+tr.Arm+" "+tr.Check] = tr.Status
	}
	want := map[string]string{
		"narrow " + armFastRaw + " CPU/row vs client-borrow":                    "MET",
		"narrow " + armFastSafe + " CPU/row vs client-borrow":                   "MISSED",
		"narrow " + armFastRaw + " CPU/row vs transport + database/sql floors":  "MET",    // 1.10x <= 1.15x
		"narrow " + armFastSafe + " CPU/row vs transport + database/sql floors": "MISSED", // 3x > 1.35x
		"narrow " + armFastRaw + " allocs/row":                                  "MET",
		"narrow " + armFastSafe + " allocs/row":                                 "MISSED",
		"point " + armFastRaw + " CPU/query vs bare gRPC (transport floor)":     "MET",
		"point " + armFastSafe + " CPU/query vs bare gRPC (transport floor)":    "MISSED",
		"point " + armFastRaw + " allocs/query above transport floor":           "MET",
		"point " + armFastSafe + " allocs/query above transport floor":          "MISSED",
		"point " + armFastSafe + " CPU/query vs client":                         "MISSED", // 0.6x > 0.5x
		"point " + armFastSafe + " allocs/query vs client":                      "MISSED", // 0.337x > 0.33x
		"insert " + armFastSafe + " CPU/op vs bare gRPC (transport floor)":      "MET",
		"insert " + armFastSafe + " CPU/op vs client":                           "MET",
		"insert " + armFastSafe + " allocs/op vs client":                        "MET",
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %q, want %s (all: %v)", k, got[k], v, got)
		}
	}
	// The per-call targets are spannerfast-safe's: raw has none on writes
	// and none against the client.
	for k := range got {
		if strings.HasPrefix(k, "insert "+armFastRaw) || strings.HasPrefix(k, "point "+armFastRaw+" CPU/query vs client") {
			t.Errorf("target %s for raw", k)
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d targets, want %d: %v", len(got), len(want), got)
	}
}
