package gormcore

import (
	"cloud.google.com/go/spanner"
	"gorm.io/gorm"
)

// SpannerMigrator is the migrator API both dialectors add to
// gorm.Migrator under go-gorm-spanner's name: a dry run of AutoMigrate
// and the DDL batch.
type SpannerMigrator interface {
	gorm.Migrator

	AutoMigrateDryRun(values ...any) ([]spanner.Statement, error)
	StartBatchDDL() error
	RunBatch() error
	AbortBatch() error
}

// DryRunStatements turns the DDL that MigrationStatements recorded into
// AutoMigrateDryRun's result.
func DryRunStatements(stmts []string, err error) ([]spanner.Statement, error) {
	if err != nil {
		return nil, err
	}
	out := make([]spanner.Statement, len(stmts))
	for i, s := range stmts {
		out[i] = spanner.Statement{SQL: s}
	}
	return out, nil
}
