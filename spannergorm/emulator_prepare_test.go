package spannergorm_test

import (
	"testing"

	"gorm.io/gorm"
	"gorm.io/gorm/logger"

	"github.com/spannerfast/spannerfast/spannergorm/internal/dialecttest"
)

// TestEmulatorPrepareStmt: with PrepareStmt, in gorm.Config or in a
// Session, AutoMigrate runs twice on the emulator's GoogleSQL engine (the
// second adds a column, a third has nothing to do), and CRUD, transactions
// (committed and rolled back), RunTransaction and a DML batch work
// (dialecttest.PrepareStmt).
func TestEmulatorPrepareStmt(t *testing.T) {
	t.Parallel()
	dialecttest.PrepareStmt(t, googleSQL(), gorm.Config{Logger: logger.Discard})
}
