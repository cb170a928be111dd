package spannerpg

import (
	"cloud.google.com/go/spanner"
	"gorm.io/gorm"
)

// SpannerMigrator is the migrator's Spanner-specific API under
// go-gorm-spanner's name (the same method set as spannergorm's), so that
// code written for it compiles:
// db.Migrator().(spannerpg.SpannerMigrator).AutoMigrateDryRun(models...).
type SpannerMigrator interface {
	gorm.Migrator

	AutoMigrateDryRun(values ...any) ([]spanner.Statement, error)
	StartBatchDDL() error
	RunBatch() error
	AbortBatch() error
}

var _ SpannerMigrator = Migrator{}

// AutoMigrateDryRun returns the DDL statements that AutoMigrate would send
// for the models, without sending them: MigrationStatements in
// go-gorm-spanner's form.
func (m Migrator) AutoMigrateDryRun(values ...any) ([]spanner.Statement, error) {
	stmts, err := MigrationStatements(m.DB, values...)
	if err != nil {
		return nil, err
	}
	out := make([]spanner.Statement, len(stmts))
	for i, s := range stmts {
		out[i] = spanner.Statement{SQL: s}
	}
	return out, nil
}
