package main

import (
	"strings"
	"testing"

	"github.com/spannerfast/spannerfast/cmd/spannerfast-bench/internal/workload"
)

// TestRunPartitioned reads narrow, the partitioned workloads and the
// latency-bound ones with the client and, when built in, both spannerfast
// arms: every partitioned read must return the narrow rows (the server
// only serves them per partition token, so every partition was read), and
// the report must compare each partition count with its single stream
// (narrow, or narrow-latency) and with the client, in two sections.
func TestRunPartitioned(t *testing.T) {
	arms := []string{armClient, armTransport}
	if spannerfastBuilt {
		arms = append(arms, armFastSafe, armFastRaw)
	}
	cfg := config{workloads: "narrow," + workload.GroupPartitioned + "," + workload.GroupPartitionedLatency, arms: strings.Join(arms, ","), scale: 0.02, rounds: 1,
		inProcess: true, warmups: 2}
	rep, md, _ := runTool(t, cfg)
	if want := applicablePairs(t, arms, cfg.workloads, cfg.scale); len(rep.Results) != want {
		t.Errorf("%d results, want %d", len(rep.Results), want)
	}
	for _, r := range rep.Results {
		if r.Error != "" || r.Unavailable != "" || len(r.Rounds) != 1 {
			t.Errorf("%s on %s: %d rounds, error %q %q", r.Arm, r.Workload, len(r.Rounds), r.Error, r.Unavailable)
		}
	}
	// The floor reads narrow only.
	if rep.find(armTransport, "partitioned-2") != nil || rep.find(armTransport, workload.NarrowLatency) != nil ||
		rep.get(armTransport, "narrow") == nil {
		t.Error("the transport floor ran a partitioned or latency-bound read, or not narrow")
	}
	ranParts := len(arms) - 1 // all but the floor
	if want := 2 * ranParts * len(workload.PartitionCounts); len(rep.Partitioned) != want {
		t.Errorf("%d partitioned results, want %d", len(rep.Partitioned), want)
	}
	for _, p := range rep.Partitioned {
		if p.RowsPerSec <= 0 || p.CPUPerRowNs <= 0 || p.VsSingleStream == nil || p.CPUVsClient == nil {
			t.Errorf("partitioned result incomplete: %+v", p)
		}
		// Each is relative to its own single stream.
		single := rep.get(p.Arm, "narrow")
		if strings.HasPrefix(p.Workload, workload.PartitionedLatencyPrefix) {
			single = rep.get(p.Arm, workload.NarrowLatency)
		}
		if single == nil || *p.VsSingleStream != p.RowsPerSec/single.RowsPerSec {
			t.Errorf("%s on %s: x single stream %v, single %+v", p.Arm, p.Workload, *p.VsSingleStream, single)
		}
	}
	cpuBound, latency, ok := strings.Cut(md, "## Partitioned reads, latency-bound")
	if !ok {
		t.Fatalf("Markdown lacks the latency-bound section:\n%s", md)
	}
	for _, s := range []string{"| narrow-latency (one stream) | — |", "| partitioned-latency-8 | 8 |", "messages of 1000 rows",
		"### Throughput (wall clock): rows/s", "### CPU time: ns CPU/row (x client)"} {
		if !strings.Contains(latency, s) {
			t.Errorf("latency-bound section lacks %q:\n%s", s, latency)
		}
	}
	if strings.Contains(cpuBound, "latency") {
		t.Errorf("latency-bound workloads outside their section:\n%s", cpuBound)
	}
	for _, s := range []string{"## Partitioned reads", "| narrow (one stream) | — |", "| partitioned-8 | 8 |",
		"### Throughput (wall clock): rows/s", "### CPU time: ns CPU/row (x client)"} {
		if !strings.Contains(md, s) {
			t.Errorf("Markdown lacks %q:\n%s", s, md)
		}
	}
	// The single-stream tables keep to the single-stream reads.
	head, _, _ := strings.Cut(md, "## Partitioned reads")
	if strings.Contains(head, "partitioned-") {
		t.Errorf("partitioned workloads in the single-stream tables:\n%s", head)
	}
}
