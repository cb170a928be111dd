package spannergorm_test

import (
	"testing"

	"gorm.io/gorm"
	"gorm.io/gorm/logger"

	"github.com/spannerfast/spannerfast/internal/emulatortest"
	"github.com/spannerfast/spannerfast/spannergorm"
	"github.com/spannerfast/spannerfast/spannergorm/internal/upserttest"
)

// TestEmulatorAssociationSaves: GORM's default association saves
// (has-one, has-many, many2many, belongs-to), with and without
// FullSaveAssociations, explicit DoUpdates upserts, and a failure that
// leaves nothing, on a GoogleSQL database (upserttest.Run).
func TestEmulatorAssociationSaves(t *testing.T) {
	t.Parallel()
	upserttest.Run(t, func(t *testing.T) *gorm.DB {
		edb := emulatortest.NewDatabase(t)
		db, err := gorm.Open(spannergorm.New(spannergorm.Config{DSN: edb.DSN()}), &gorm.Config{Logger: logger.Discard})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if sqlDB, err := db.DB(); err == nil {
				_ = sqlDB.Close()
			}
		})
		if err := db.AutoMigrate(upserttest.Models()...); err != nil {
			t.Fatalf("AutoMigrate: %v", err)
		}
		return db
	})
}
