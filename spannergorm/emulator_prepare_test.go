package spannergorm_test

import (
	"testing"

	"gorm.io/gorm"
	"gorm.io/gorm/logger"

	"github.com/spannerfast/spannerfast/internal/emulatortest"
	"github.com/spannerfast/spannerfast/spannergorm"
)

// TestEmulatorPrepareStmt: with PrepareStmt, in gorm.Config or in a
// Session, AutoMigrate runs twice on the emulator's GoogleSQL engine (the
// second adds a column, a third has nothing to do), and CRUD, transactions
// (committed and rolled back) and RunTransaction work.
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
			edb := emulatortest.NewDatabase(t)
			c.cfg.Logger = logger.Discard
			db, err := gorm.Open(spannergorm.New(spannergorm.Config{DSN: edb.DSN()}), &c.cfg)
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
			if rest, err := spannergorm.MigrationStatements(db, &SingerV2{}, &Album{}); err != nil || len(rest) != 0 {
				t.Fatalf("third migration = %q, %v; want none", rest, err)
			}
			checkCRUD(t, db)
		})
	}
}
