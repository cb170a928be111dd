//go:build !nospannerfast

package main

import (
	"context"
	"fmt"
	"math"
	"slices"

	"gorm.io/gorm"
	"gorm.io/gorm/logger"

	"github.com/spannerfast/spannerfast/cmd/spannerfast-bench/internal/gormwork"
	"github.com/spannerfast/spannerfast/cmd/spannerfast-bench/internal/scan"
	"github.com/spannerfast/spannerfast/cmd/spannerfast-bench/internal/workload"
	"github.com/spannerfast/spannerfast/spannergorm"
)

func init() {
	register(armSpec{id: armGorm, title: "spannerfast-gorm", order: 70, available: true, verify: true,
		applies: func(w *workload.Workload) bool { return w.GormTable != "" },
		open:    openGorm})
}

// gormColumns are the workload columns gormwork.Row maps.
var gormColumns = []workload.Column{
	{Name: "id", Kind: workload.Int64},
	{Name: "name", Kind: workload.String},
	{Name: "email", Kind: workload.String},
	{Name: "balance", Kind: workload.Float64},
	{Name: "active", Kind: workload.Bool},
	{Name: "created_at", Kind: workload.Timestamp},
	{Name: "updated_at", Kind: workload.Timestamp},
}

// gormRowSum is the checksum of the row, the same as dests.sum of its
// columns.
func gormRowSum(r *gormwork.Row) uint64 {
	vals := [...]uint64{uint64(r.ID), scan.SumString(r.Name), scan.SumString(r.Email), math.Float64bits(r.Balance),
		scan.SumBool(r.Active), uint64(r.CreatedAt.UnixNano()), uint64(r.UpdatedAt.UnixNano())}
	var total uint64
	for i, v := range vals {
		total += v * uint64(2*i+1)
	}
	return total
}

type gormArm struct{ db *gorm.DB }

func openGorm(_ context.Context, e *env) (arm, error) {
	for _, w := range e.workloads {
		if w.GormTable != "" && !sameColumns(w.Columns) {
			return nil, fmt.Errorf("workload %s: columns %v do not match the GORM model", w.Name, w.Columns)
		}
	}
	db, err := gorm.Open(spannergorm.New(spannergorm.Config{DSN: spannerfastDSN(e.addr, e.database, false)}),
		&gorm.Config{Logger: logger.Discard, SkipDefaultTransaction: true})
	if err != nil {
		return nil, fmt.Errorf("gorm.Open: %w", err)
	}
	// spannergorm sends LIMIT as a parameter, as users get it; the server
	// binds parameters into the text to find the result stored under the
	// literal text the other arms send (benchserver's resultKey).
	return &gormArm{db: db}, nil
}

func sameColumns(cols []workload.Column) bool {
	return slices.EqualFunc(cols, gormColumns, func(a, b workload.Column) bool {
		return a.Name == b.Name && a.Kind == b.Kind
	})
}

// run reads each query's rows with Find into a new slice of structs, as an
// application would.
func (a *gormArm) run(ctx context.Context, w *workload.Workload, hs *heapSampler) (uint64, error) {
	if w.GormTable == "" {
		// The connection check (SELECT 1) has no model: it goes through
		// the pool GORM uses.
		sqlDB, err := a.db.DB()
		if err != nil {
			return 0, err
		}
		return runSQL(ctx, sqlDB, w, scan.NewDests(w, false), hs)
	}
	var total uint64
	for q := 0; q < w.Queries; q++ {
		var rows []gormwork.Row
		if err := a.db.WithContext(ctx).Table(w.GormTable).Limit(w.Rows).Find(&rows).Error; err != nil {
			return 0, fmt.Errorf("query %d: %w", q, err)
		}
		if len(rows) != w.Rows {
			return 0, fmt.Errorf("query %d: Find returned %d rows, want %d", q, len(rows), w.Rows)
		}
		for i := range rows {
			total += gormRowSum(&rows[i])
			if hs != nil {
				hs.tick()
			}
		}
	}
	return total, nil
}

func (a *gormArm) close() error {
	sqlDB, err := a.db.DB()
	if err != nil {
		return err
	}
	return sqlDB.Close()
}
