package dialecttest

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"gorm.io/gorm"
)

// Singer and Album are the models of the PrepareStmt scenario: a has-many
// pair with IDENTITY keys and a foreign key; SingerV2 adds a column.
type Singer struct {
	ID     int64
	Name   string `gorm:"size:100"`
	Active bool
	Albums []Album
}

type Album struct {
	ID       int64
	SingerID int64 `gorm:"not null"`
	Title    string
}

// SingerV2 is Singer with one more field, on the same table.
type SingerV2 struct {
	Singer
	Country string `gorm:"size:2"`
}

func (SingerV2) TableName() string { return "singers" }

// PrepareStmt runs, with PrepareStmt in gorm.Config and in a Session (each
// on a database of its own, in parallel), AutoMigrate twice (the second
// adds a column, a third has nothing to send), then CRUD, a transaction
// committed and one rolled back, a nested transaction rolled back to its
// savepoint, RunTransaction and a DML batch in it.
// cfg is the base configuration (its Logger).
func PrepareStmt(t *testing.T, d Dialect, cfg gorm.Config) {
	for _, c := range []struct {
		name    string
		config  bool
		session bool
	}{{"Config", true, false}, {"Session", false, true}} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			cfg := cfg
			cfg.PrepareStmt = c.config
			db := d.Open(t, &cfg)
			if c.session {
				db = db.Session(&gorm.Session{PrepareStmt: true})
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
			if rest, err := d.Statements(db, &SingerV2{}, &Album{}); err != nil || len(rest) != 0 {
				t.Fatalf("third migration = %q, %v; want none", rest, err)
			}
			preparedCRUD(t, d, db)
		})
	}
}

func preparedCRUD(t *testing.T, d Dialect, db *gorm.DB) {
	alice := SingerV2{Singer: Singer{Name: "Alice"}, Country: "NL"}
	if err := db.Create(&alice).Error; err != nil || alice.ID <= 0 {
		t.Fatalf("Create: id %d, %v", alice.ID, err)
	}
	var album Album
	must(t, db.Transaction(func(tx *gorm.DB) error {
		album = Album{SingerID: alice.ID, Title: "First"}
		if err := tx.Create(&album).Error; err != nil {
			return err
		}
		return tx.Model(&alice).Update("active", true).Error
	}))
	stop := errors.New("stop")
	if err := db.Transaction(func(tx *gorm.DB) error {
		if err := tx.Create(&Album{SingerID: alice.ID, Title: "Gone"}).Error; err != nil {
			return err
		}
		return stop
	}); !errors.Is(err, stop) {
		t.Fatalf("Transaction = %v, want the function's error", err)
	}
	// A nested transaction: GORM sets the savepoint on the transaction
	// under its prepared-statement wrapper. The inner one is rolled back
	// (its album is gone: the titles at the end are none), the outer
	// update stays.
	must(t, db.Transaction(func(tx *gorm.DB) error {
		if err := tx.Model(&album).Update("title", "Outer").Error; err != nil {
			return err
		}
		if err := tx.Transaction(func(tx2 *gorm.DB) error {
			if err := tx2.Create(&Album{SingerID: alice.ID, Title: "Inner"}).Error; err != nil {
				return err
			}
			return stop
		}); !errors.Is(err, stop) {
			return fmt.Errorf("nested Transaction = %w, want the function's error", err)
		}
		return nil
	}))
	if err := d.RunTransaction(context.Background(), db, func(tx *gorm.DB) error {
		return tx.Model(&album).Update("title", "Renamed").Error
	}); err != nil {
		t.Fatalf("RunTransaction: %v", err)
	}
	if err := d.RunTransaction(context.Background(), db, func(tx *gorm.DB) error {
		if err := tx.Exec("START BATCH DML").Error; err != nil {
			return err
		}
		if err := tx.Model(&alice).Update("name", "Alicia").Error; err != nil {
			return err
		}
		if err := tx.Model(&album).Update("title", "Batched").Error; err != nil {
			return err
		}
		return tx.Exec("RUN BATCH").Error
	}); err != nil {
		t.Fatalf("DML batch: %v", err)
	}
	var got SingerV2
	if err := db.Preload("Albums").First(&got, alice.ID).Error; err != nil || !got.Active || got.Country != "NL" ||
		got.Name != "Alicia" || len(got.Albums) != 1 || got.Albums[0].Title != "Batched" {
		t.Fatalf("First = %+v, %v", got, err)
	}
	if res := db.Delete(&Album{}, album.ID); res.Error != nil || res.RowsAffected != 1 {
		t.Fatalf("Delete: %v, %d rows", res.Error, res.RowsAffected)
	}
	var titles []string
	if err := db.Model(&Album{}).Pluck("title", &titles).Error; err != nil || len(titles) != 0 {
		t.Fatalf("titles after Delete = %q, %v", titles, err)
	}
}
