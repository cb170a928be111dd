//go:build !nospannerfast

package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/spannerfast/spannerfast/cmd/spannerfast-bench/internal/workload"
)

// TestRunGorm reads the GORM workload with GORM, database/sql and the
// official client: the server answers only the SQL text GORM generates,
// and every arm must report the generator's checksum.
func TestRunGorm(t *testing.T) {
	arms := []string{armGorm, armFastSafe, armClient}
	cfg := config{workloads: "gorm10k", arms: strings.Join(arms, ","), scale: 0.002, rounds: 1,
		inProcess: true, warmups: 1}
	var stdout, stderr bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rep, err := run(ctx, cfg, &stdout, &stderr)
	if err != nil {
		t.Fatalf("run: %v\nstderr:\n%s", err, stderr.String())
	}
	if len(rep.Results) != len(arms) {
		t.Fatalf("%d results, want %d\n%s", len(rep.Results), len(arms), stderr.String())
	}
	for _, r := range rep.Results {
		if r.Error != "" || r.Unavailable != "" || len(r.Rounds) != 1 || r.Rows != 20 {
			t.Errorf("%s: rows %d, error %q, unavailable %q", r.Arm, r.Rows, r.Error, r.Unavailable)
		}
	}
	if !strings.Contains(stdout.String(), "| spannerfast-gorm |") {
		t.Errorf("Markdown lacks the GORM arm:\n%s", stdout.String())
	}
}

// TestGormWorkloadSQL pins the workload's SQL to GORM's rendering and the
// model to the workload's columns.
func TestGormWorkloadSQL(t *testing.T) {
	ws, err := workload.Select("gorm10k", 1)
	if err != nil {
		t.Fatal(err)
	}
	w := ws[0]
	if w.SQL != "SELECT * FROM `bench_gorm` LIMIT 10000" || w.Rows != 10_000 || !sameColumns(w.Columns) {
		t.Fatalf("gorm10k: %q, %d rows, columns %v", w.SQL, w.Rows, w.Columns)
	}
	if wu := w.WarmUp(); wu.SQL != workload.GormSQL("bench_gorm", wu.Rows) {
		t.Fatalf("warm-up SQL %q", wu.SQL)
	}
}
