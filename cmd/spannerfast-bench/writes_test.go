package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/spannerfast/spannerfast/cmd/spannerfast-bench/internal/scan"
	"github.com/spannerfast/spannerfast/cmd/spannerfast-bench/internal/workload"
)

// TestRunWrites runs the write workloads with the official client and,
// when built in, both spannerfast arms. Every arm must read and write the
// right values, except that spannerfast may report the DML batch and Apply
// unavailable while the driver lacks them.
func TestRunWrites(t *testing.T) {
	arms := []string{armClient}
	if spannerfastBuilt {
		arms = append(arms, armFastSafe, armFastRaw)
	}
	// The floors run no writes but the bare gRPC arm (the transport
	// floor) runs those of the per-call table; the database/sql floor is
	// not started.
	arms = append(arms, armTransport, armSQLFloor)
	cfg := config{workloads: workload.GroupWrites, arms: strings.Join(arms, ","), scale: 0.002, rounds: 1,
		inProcess: true, warmups: 2}
	rep, md, stderr := runTool(t, cfg)
	if want := applicablePairs(t, arms, workload.GroupWrites, cfg.scale); len(rep.Results) != want {
		t.Errorf("%d results, want %d", len(rep.Results), want)
	}
	mayBeUnavailable := map[string]bool{"batchdml100": true, "apply1000": true}
	for _, r := range rep.Results {
		switch {
		case r.Unavailable != "" && r.Arm == armTransport && !spannerfastBuilt:
			// The bare arm replays the driver's requests.
		case r.Unavailable != "" && (r.Arm != armFastSafe || !mayBeUnavailable[r.Workload]):
			t.Errorf("%s on %s unavailable: %s", r.Arm, r.Workload, r.Unavailable)
		case r.Unavailable != "":
			t.Logf("%s on %s unavailable: %s", r.Arm, r.Workload, r.Unavailable)
		case r.Error != "" || len(r.Rounds) != 1:
			t.Errorf("%s on %s: %d rounds, error %s", r.Arm, r.Workload, len(r.Rounds), r.Error)
		}
	}
	if rep.ran(armSQLFloor) || !strings.Contains(stderr, "arms sql-floor run none of the selected workloads") {
		t.Error("the database/sql floor was started for writes")
	}
	for _, r := range rep.Results {
		if w := rep.workload(r.Workload); r.Arm == armTransport && (w == nil || !w.PerCall) {
			t.Errorf("the bare arm ran %s, which is not in the per-call table", r.Workload)
		}
	}
	if strings.Contains(md, "### CPU relative to the floors") || strings.Contains(md, "per-row floor") {
		t.Error("a writes-only report has the read tables")
	}
	for _, tr := range rep.Targets {
		if w := rep.workload(tr.Workload); w == nil || !w.Write {
			t.Errorf("a writes-only report has the target of %s", tr.Workload)
		}
	}
	if !spannerfastBuilt {
		return
	}
	if len(rep.Checksum) != 2 || !strings.Contains(md, "### Abort-replay checksum") {
		t.Errorf("checksum cost: %+v", rep.Checksum)
	}
	// The client keeps no checksum: the checksummed read compares with
	// its reading of the same rows.
	if r := rep.get(armFastSafe, "txread-checksum"); r == nil || r.VsBaseline == nil {
		t.Errorf("txread-checksum has no ratio to the client: %+v", r)
	}
	for _, c := range rep.Checksum {
		if c.CPUPerRowNs <= 0 || c.CPUPerRowNsOff <= 0 || c.ClientCPUPerRowNs == nil {
			t.Errorf("checksum cost of %s incomplete: %+v", c.Arm, c)
		}
	}
}

// stubArm fails every run of one workload as unavailable.
type stubArm struct {
	unavailable string
	runs        map[string]int
}

func (a *stubArm) run(_ context.Context, w *workload.Workload, _ *heapSampler) (uint64, error) {
	a.runs[w.Name]++
	if w.Name == a.unavailable || w.Name == a.unavailable+"-warmup" {
		return 0, &unavailableError{reason: "no such API"}
	}
	return scan.Expected(w), nil
}

func (a *stubArm) close() error { return nil }

// TestUnavailableWorkload checks that an arm's unavailable workload is
// tried once, reported as unavailable (not failed), and that the arm's
// other workloads still run every round.
func TestUnavailableWorkload(t *testing.T) {
	ws, err := workload.Select("insert,apply1000", 0.01)
	if err != nil {
		t.Fatal(err)
	}
	stub := &stubArm{unavailable: "apply1000", runs: map[string]int{}}
	spec := armSpec{id: armFastSafe, title: "stub", verify: true, applies: func(*workload.Workload) bool { return true }}
	st := &runState{cfg: config{rounds: 3, scale: 0.01}, stderr: &bytes.Buffer{}, workloads: ws, arms: []armSpec{spec},
		open: map[string]arm{spec.id: stub}, openErr: map[string]error{}, expected: map[string]uint64{},
		warm: map[string]*workload.Workload{}, results: map[string]map[string]*armResult{}}
	for _, w := range ws {
		st.expected[w.Name] = scan.Expected(w)
		st.warm[w.Name] = w.WarmUp()
	}
	if err := st.rounds(context.Background()); err != nil {
		t.Fatal(err)
	}
	if stub.runs["apply1000-warmup"] != 1 || stub.runs["apply1000"] != 0 || stub.runs["insert"] != 3 {
		t.Errorf("runs: %v", stub.runs)
	}
	rep := st.report()
	var md bytes.Buffer
	if err := writeMarkdown(&md, rep); err != nil {
		t.Fatal(err)
	}
	r := rep.find(armFastSafe, "apply1000")
	if r == nil || r.Unavailable != "no such API" || r.Error != "" || rep.get(armFastSafe, "apply1000") != nil {
		t.Errorf("apply1000 result: %+v", r)
	}
	if !strings.Contains(md.String(), "| apply1000 | µs CPU/op | unavailable |") || strings.Contains(md.String(), "FAILED") ||
		!strings.Contains(md.String(), armFastSafe+" on apply1000: unavailable: no such API") {
		t.Errorf("Markdown:\n%s", md.String())
	}
}
