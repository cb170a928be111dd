package spannerpg_test

import (
	"testing"

	"gorm.io/gorm"

	"github.com/spannerfast/spannerfast/spannergorm/internal/upserttest"
)

// TestEmulatorAssociationSaves: GORM's default association saves
// (has-one, has-many, many2many, belongs-to), with and without
// FullSaveAssociations, explicit DoUpdates upserts, and a failure that
// leaves nothing, on a PostgreSQL-dialect database (upserttest.Run).
func TestEmulatorAssociationSaves(t *testing.T) {
	t.Parallel()
	upserttest.Run(t, func(t *testing.T) *gorm.DB {
		return migratedEmulator(t, upserttest.Models()...)
	})
}
