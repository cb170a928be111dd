package spannergorm

import (
	"cloud.google.com/go/spanner"

	"github.com/spannerfast/spannerfast/spannergorm/internal/gormcore"
)

// SpannerMigrator is the migrator's Spanner-specific API under
// go-gorm-spanner's name, so that code written for it compiles:
// db.Migrator().(spannergorm.SpannerMigrator).AutoMigrateDryRun(models...).
type SpannerMigrator = gormcore.SpannerMigrator

var _ SpannerMigrator = Migrator{}

// AutoMigrateDryRun returns the DDL statements that AutoMigrate would send
// for the models, without sending them: MigrationStatements in
// go-gorm-spanner's form.
func (m Migrator) AutoMigrateDryRun(values ...any) ([]spanner.Statement, error) {
	return gormcore.DryRunStatements(MigrationStatements(m.DB, values...))
}
