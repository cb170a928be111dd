package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/spannerfast/spannerfast/cmd/spannerfast-bench/internal/workload"
)

// TestRunPartitioned reads narrow and the partitioned workloads with the
// client and, when built in, both spannerfast arms: every partitioned read
// must return the narrow rows (the server only serves them per partition
// token, so every partition was read), and the report must compare each
// partition count with the single stream and with the client.
func TestRunPartitioned(t *testing.T) {
	arms := []string{armClient, armTransport}
	if spannerfastBuilt {
		arms = append(arms, armFastSafe, armFastRaw)
	}
	cfg := config{workloads: "narrow," + workload.GroupPartitioned, arms: strings.Join(arms, ","), scale: 0.02, rounds: 1,
		inProcess: true, warmups: 2}
	var stdout, stderr bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	rep, err := run(ctx, cfg, &stdout, &stderr)
	if err != nil {
		t.Fatalf("run: %v\nstderr:\n%s", err, stderr.String())
	}
	if want := applicablePairs(t, arms, cfg.workloads, cfg.scale); len(rep.Results) != want {
		t.Errorf("%d results, want %d", len(rep.Results), want)
	}
	for _, r := range rep.Results {
		if r.Error != "" || r.Unavailable != "" || len(r.Rounds) != 1 {
			t.Errorf("%s on %s: %d rounds, error %q %q", r.Arm, r.Workload, len(r.Rounds), r.Error, r.Unavailable)
		}
	}
	// The floor reads narrow only.
	if rep.find(armTransport, "partitioned-2") != nil || rep.get(armTransport, "narrow") == nil {
		t.Error("the transport floor ran a partitioned read, or not narrow")
	}
	ranParts := len(arms) - 1 // all but the floor
	if len(rep.Partitioned) != ranParts*len(workload.PartitionCounts) {
		t.Errorf("%d partitioned results, want %d", len(rep.Partitioned), ranParts*len(workload.PartitionCounts))
	}
	for _, p := range rep.Partitioned {
		if p.RowsPerSec <= 0 || p.CPUPerRowNs <= 0 || p.VsSingleStream == nil || p.CPUVsClient == nil {
			t.Errorf("partitioned result incomplete: %+v", p)
		}
	}
	md := stdout.String()
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
