package spannerpg_test

import (
	"testing"

	"gorm.io/gorm"
	"gorm.io/gorm/logger"

	"github.com/spannerfast/spannerfast/spannergorm/internal/dialecttest"
)

// TestEmulatorPrepareStmt: with PrepareStmt, in gorm.Config or in a
// Session, AutoMigrate runs twice (the second adds a column) and CRUD,
// transactions (committed and rolled back), RunTransaction and a DML
// batch work, on a PostgreSQL-dialect database (dialecttest.PrepareStmt).
func TestEmulatorPrepareStmt(t *testing.T) {
	t.Parallel()
	dialecttest.PrepareStmt(t, postgreSQL(), gorm.Config{Logger: logger.Discard})
}
