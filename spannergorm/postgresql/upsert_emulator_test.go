package spannerpg_test

import (
	"testing"

	"gorm.io/gorm"

	"github.com/spannerfast/spannerfast/spannergorm/internal/dialecttest"
)

// TestEmulatorAssociationSaves: GORM's default association saves
// (has-one, has-many, many2many, belongs-to), with and without
// FullSaveAssociations, explicit DoUpdates upserts, and a failure that
// leaves nothing, on a PostgreSQL-dialect database (dialecttest.Run).
func TestEmulatorAssociationSaves(t *testing.T) {
	t.Parallel()
	dialecttest.Run(t, func(t *testing.T) *gorm.DB {
		return migratedEmulator(t, dialecttest.Models()...)
	})
}
