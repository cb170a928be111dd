package spannerpg_test

import (
	"context"
	"errors"
	"testing"

	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"

	"github.com/spannerfast/spannerfast/internal/emulatortest"
	"github.com/spannerfast/spannerfast/spannergorm"
	spannerpg "github.com/spannerfast/spannerfast/spannergorm/postgresql"
)

// TestEmulatorPrepareStmt: with PrepareStmt, in gorm.Config or in a
// Session, AutoMigrate runs twice (the second adds a column) and CRUD,
// transactions (committed and rolled back) and RunTransaction work, on a
// PostgreSQL-dialect database.
func TestEmulatorPrepareStmt(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name    string
		cfg     gorm.Config
		session *gorm.Session
	}{
		{"Config", gorm.Config{PrepareStmt: true}, nil},
		{"Session", gorm.Config{}, &gorm.Session{PrepareStmt: true}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			edb := emulatortest.NewDatabase(t, emulatortest.WithDialect(emulatortest.PostgreSQL))
			c.cfg.Logger = logger.Discard
			db, err := gorm.Open(spannerpg.New(postgres.Config{DSN: edb.DSN()}), &c.cfg)
			if err != nil {
				t.Fatal(err)
			}
			sqlDB, _ := db.DB()
			t.Cleanup(func() { _ = sqlDB.Close() })
			if c.session != nil {
				db = db.Session(c.session)
			}
			if err := db.AutoMigrate(&Singer{}, &Album{}); err != nil {
				t.Fatalf("first AutoMigrate: %v", err)
			}
			if err := db.AutoMigrate(&SingerV2{}, &Album{}); err != nil {
				t.Fatalf("second AutoMigrate: %v", err)
			}
			if !db.Migrator().HasColumn(&SingerV2{}, "Country") {
				t.Fatal("country was not added")
			}
			if rest, err := spannerpg.MigrationStatements(db, &SingerV2{}, &Album{}); err != nil || len(rest) != 0 {
				t.Fatalf("third migration = %q, %v; want none", rest, err)
			}

			alice := SingerV2{Singer: Singer{Name: "Alice", Email: "a@x"}, Country: "NL"}
			if err := db.Create(&alice).Error; err != nil || alice.ID <= 0 {
				t.Fatalf("Create: id %d, %v", alice.ID, err)
			}
			var album Album
			if err := db.Transaction(func(tx *gorm.DB) error {
				album = Album{SingerID: alice.ID, Title: "First"}
				if err := tx.Create(&album).Error; err != nil {
					return err
				}
				return tx.Model(&alice).Update("active", true).Error
			}); err != nil {
				t.Fatalf("Transaction: %v", err)
			}
			stop := errors.New("stop")
			if err := db.Transaction(func(tx *gorm.DB) error {
				if err := tx.Create(&Album{SingerID: alice.ID, Title: "Gone"}).Error; err != nil {
					return err
				}
				return stop
			}); !errors.Is(err, stop) {
				t.Fatalf("Transaction = %v, want the function's error", err)
			}
			if err := spannergorm.RunTransaction(context.Background(), db, func(tx *gorm.DB) error {
				return tx.Model(&album).Update("title", "Renamed").Error
			}); err != nil {
				t.Fatalf("RunTransaction: %v", err)
			}
			var got SingerV2
			if err := db.Preload("Albums").First(&got, alice.ID).Error; err != nil || !got.Active || got.Country != "NL" ||
				len(got.Albums) != 1 || got.Albums[0].Title != "Renamed" {
				t.Fatalf("First = %+v, %v", got, err)
			}
			if res := db.Delete(&Album{}, album.ID); res.Error != nil || res.RowsAffected != 1 {
				t.Fatalf("Delete: %v, %d rows", res.Error, res.RowsAffected)
			}
		})
	}
}
