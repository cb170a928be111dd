//go:build !nospannerfast

package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/logger"

	"github.com/spannerfast/spannerfast/cmd/spannerfast-bench/internal/benchserver"
	"github.com/spannerfast/spannerfast/cmd/spannerfast-bench/internal/gormwork"
	"github.com/spannerfast/spannerfast/cmd/spannerfast-bench/internal/workload"
	"github.com/spannerfast/spannerfast/spannergorm"
)

// TestRunGorm reads the GORM workload with GORM, database/sql and the
// official client: GORM sends LIMIT as a parameter, the others the same
// limit in the text, and every arm must report the generator's checksum.
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

// TestGormOps runs every operation of the GORM comparison (gormpeer) with
// spannergorm on spannerfast, with PrepareStmt off and on, against the
// bench server: the reads must return the generator's rows (checksum) and
// every create must succeed, so the comparison's spannerfast arms work
// whenever CI passes (gormpeer itself is a module of its own, outside CI).
func TestGormOps(t *testing.T) {
	ws, err := workload.Select(gormwork.ServerWorkloads, 0.01)
	if err != nil {
		t.Fatal(err)
	}
	ops, err := gormwork.Ops(ws)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := benchserver.New(ws)
	if err != nil {
		t.Fatal(err)
	}
	addr, err := srv.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
	for _, prepare := range []bool{false, true} {
		db, err := gorm.Open(spannergorm.New(spannergorm.Config{DSN: spannerfastDSN(addr, databasePath, false)}),
			&gorm.Config{Logger: logger.Discard, PrepareStmt: prepare})
		if err != nil {
			t.Fatal(err)
		}
		for _, op := range ops {
			for i := range 2 {
				sum, err := op.Run(t.Context(), db, i)
				if err != nil || sum != op.Want {
					t.Errorf("PrepareStmt %v, %s #%d: checksum %d (want %d), %v", prepare, op.Name, i, sum, op.Want, err)
				}
			}
		}
		sqlDB, _ := db.DB()
		sqlDB.Close()
	}
	// Each create commits one transaction, four times (2 runs x PrepareStmt
	// off and on): the singer's INSERT (1 statement); with the default
	// association save also the albums' UPDATE of singer_id and INSERT OR
	// IGNORE (3); with FullSaveAssociations an INSERT OR UPDATE (2).
	if st := srv.Stats(); st.Commits != 3*4 || st.DML != (1+3+2)*4 {
		t.Errorf("server stats %+v: want %d commits and %d DML statements", st, 3*4, (1+3+2)*4)
	}
}
