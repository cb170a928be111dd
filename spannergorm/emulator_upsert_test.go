package spannergorm_test

import (
	"testing"

	"gorm.io/gorm"
	"gorm.io/gorm/logger"

	"github.com/spannerfast/spannerfast/internal/emulatortest"
	"github.com/spannerfast/spannerfast/spannergorm"
	"github.com/spannerfast/spannerfast/spannergorm/internal/dialecttest"
)

// TestEmulatorAssociationSaves: GORM's default association saves
// (has-one, has-many, many2many, belongs-to), with and without
// FullSaveAssociations, explicit DoUpdates upserts, and a failure that
// leaves nothing, on a GoogleSQL database (dialecttest.Run).
func TestEmulatorAssociationSaves(t *testing.T) {
	t.Parallel()
	dialecttest.Run(t, func(t *testing.T) *gorm.DB { return openUpsertDB(t, "") })
}

// TestEmulatorAssociationSavesAutoBatchDML: the same scenario with
// auto_batch_dml, where a Create's UPDATE and INSERTs reach Spanner as one
// ExecuteBatchDml (TestFakeAssociationSaveCost counts it).
func TestEmulatorAssociationSavesAutoBatchDML(t *testing.T) {
	t.Parallel()
	dialecttest.Run(t, func(t *testing.T) *gorm.DB {
		return openUpsertDB(t, ";auto_batch_dml=true;auto_batch_dml_update_count_verification=false")
	})
}

func openUpsertDB(t *testing.T, options string) *gorm.DB {
	t.Helper()
	edb := emulatortest.NewDatabase(t)
	db, err := gorm.Open(spannergorm.New(spannergorm.Config{DSN: edb.DSN() + options}), &gorm.Config{Logger: logger.Discard})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if sqlDB, err := db.DB(); err == nil {
			_ = sqlDB.Close()
		}
	})
	if err := db.AutoMigrate(dialecttest.Models()...); err != nil {
		t.Fatalf("AutoMigrate: %v", err)
	}
	return db
}
