package spannergorm_test

import (
	"context"
	"errors"
	"math/big"
	"slices"
	"testing"
	"time"

	"cloud.google.com/go/civil"
	"cloud.google.com/go/spanner"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"

	"github.com/spannerfast/spannerfast/spannerfasttest"
	"github.com/spannerfast/spannerfast/spannergorm"
)

// End to end over gRPC on the embedded server (spannerfasttest): the
// migrator's DDL batch and INFORMATION_SCHEMA queries, and GORM's DML, meet
// a server instead of sqlmock. Keys are explicit: the engine has no
// sequences or IDENTITY columns (the sqlmock tests cover those), and it
// stores no NUMERIC or JSON values, so Invoice is only migrated and
// inspected.

type Singer struct {
	ID        int64  `gorm:"primaryKey;autoIncrement:false"`
	Name      string `gorm:"size:100;not null;index"`
	Active    bool
	Tags      spannergorm.Array[string]
	Scores    spannergorm.Array[int64]
	CreatedAt time.Time
	UpdatedAt time.Time
	Albums    []Album
}

type Album struct {
	ID          int64 `gorm:"primaryKey;autoIncrement:false"`
	SingerID    int64 `gorm:"not null"`
	Title       string
	ReleaseDate spanner.NullDate
}

type Invoice struct {
	ID      int64            `gorm:"primaryKey;autoIncrement:false"`
	Amount  *big.Rat         `gorm:"type:NUMERIC"`
	Details spanner.NullJSON `gorm:"type:JSON"`
}

// SingerV2 is Singer with one more field, on the same table: a second
// AutoMigrate must add its column and nothing else.
type SingerV2 struct {
	Singer
	Country string `gorm:"size:2"`
}

func (SingerV2) TableName() string { return "singers" }

func openEmbedded(t *testing.T) *gorm.DB {
	t.Helper()
	srv, err := spannerfasttest.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	db, err := gorm.Open(spannergorm.New(spannergorm.Config{DSN: srv.DSN()}),
		&gorm.Config{Logger: logger.Discard})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if sqlDB, err := db.DB(); err == nil {
			_ = sqlDB.Close()
		}
	})
	return db
}

func migrated(t *testing.T) *gorm.DB {
	t.Helper()
	db := openEmbedded(t)
	if err := db.AutoMigrate(&Singer{}, &Album{}, &Invoice{}); err != nil {
		t.Fatalf("AutoMigrate: %v", err)
	}
	return db
}

func TestE2EMigratorInspection(t *testing.T) {
	db := migrated(t)
	m := db.Migrator()
	tables, err := m.GetTables()
	if err != nil || !slices.Equal(tables, []string{"albums", "invoices", "singers"}) {
		t.Fatalf("GetTables = %v, %v", tables, err)
	}
	for _, c := range []struct {
		name string
		got  bool
		want bool
	}{
		{"HasTable singers", m.HasTable(&Singer{}), true},
		{"HasTable by name", m.HasTable("albums"), true},
		{"HasTable missing", m.HasTable("nope"), false},
		{"HasColumn by field", m.HasColumn(&Singer{}, "Tags"), true},
		{"HasColumn by column", m.HasColumn(&Album{}, "release_date"), true},
		{"HasColumn missing", m.HasColumn(&Singer{}, "country"), false},
		{"HasIndex", m.HasIndex(&Singer{}, "idx_singers_name"), true},
		{"HasIndex missing", m.HasIndex(&Album{}, "idx_singers_name"), false},
		{"HasConstraint foreign key", m.HasConstraint(&Singer{}, "Albums"), true},
		{"HasConstraint missing", m.HasConstraint(&Singer{}, "fk_nope"), false},
	} {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	assertColumns(t, m, &Singer{}, []string{
		"id INT64 key", "name STRING(100) not null len=100", "active BOOL",
		"tags ARRAY<STRING(MAX)>", "scores ARRAY<INT64>",
		"created_at TIMESTAMP", "updated_at TIMESTAMP",
	})
	assertColumns(t, m, &Invoice{}, []string{"id INT64 key", "amount NUMERIC", "details JSON"})
}

// assertColumns compares ColumnTypes with want, one "name TYPE [key]
// [not null] [len=n]" per column.
func assertColumns(t *testing.T, m gorm.Migrator, model any, want []string) {
	t.Helper()
	cols, err := m.ColumnTypes(model)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range cols {
		s := c.Name() + " " + c.DatabaseTypeName()
		if key, _ := c.PrimaryKey(); key {
			s += " key"
		}
		if null, ok := c.Nullable(); ok && !null {
			s += " not null"
		}
		if n, ok := c.Length(); ok {
			s += " len=" + itoa(n)
		}
		got = append(got, s)
	}
	if !slices.Equal(got, want) {
		t.Errorf("ColumnTypes(%T):\n got  %q\n want %q", model, got, want)
	}
}

func itoa(n int64) string { return big.NewInt(n).String() }

func TestE2ESecondAutoMigrateAddsColumn(t *testing.T) {
	db := migrated(t)
	stmts, err := spannergorm.MigrationStatements(db, &SingerV2{}, &Album{}, &Invoice{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"ALTER TABLE `singers` ADD COLUMN `country` STRING(2)"}
	if !slices.Equal(stmts, want) {
		t.Fatalf("statements for an up-to-date schema plus one field:\n got  %q\n want %q", stmts, want)
	}
	if err := db.AutoMigrate(&SingerV2{}, &Album{}, &Invoice{}); err != nil {
		t.Fatal(err)
	}
	if !db.Migrator().HasColumn(&SingerV2{}, "Country") {
		t.Fatal("country column missing after the second AutoMigrate")
	}
	if stmts, err := spannergorm.MigrationStatements(db, &SingerV2{}); err != nil || len(stmts) != 0 {
		t.Fatalf("third migration = %q, %v; want nothing to do", stmts, err)
	}
	if err := db.Create(&SingerV2{Singer: Singer{ID: 9, Name: "n"}, Country: "NL"}).Error; err != nil {
		t.Fatal(err)
	}
	var got SingerV2
	if err := db.First(&got, 9).Error; err != nil || got.Country != "NL" {
		t.Fatalf("First = %+v, %v", got, err)
	}
}

func date(y int, m time.Month, d int) spanner.NullDate {
	return spanner.NullDate{Date: civil.Date{Year: y, Month: m, Day: d}, Valid: true}
}

// seed creates one singer with two albums (auto-saved association) and two
// singers in one batch insert.
func seed(t *testing.T, db *gorm.DB) {
	t.Helper()
	alice := Singer{ID: 1, Name: "Alice", Active: true,
		Tags: spannergorm.Array[string]{"rock", "pop"}, Scores: spannergorm.Array[int64]{7, 9},
		Albums: []Album{
			{ID: 11, Title: "First", ReleaseDate: date(2020, 1, 2)},
			{ID: 12, Title: "Second", ReleaseDate: date(2022, 3, 4)},
		}}
	// Spanner has INSERT OR UPDATE of whole rows only: GORM saves
	// associations that way with FullSaveAssociations.
	if err := db.Session(&gorm.Session{FullSaveAssociations: true}).Create(&alice).Error; err != nil {
		t.Fatalf("Create with albums: %v", err)
	}
	batch := []Singer{{ID: 2, Name: "Bob"}, {ID: 3, Name: "Carol", Active: true, Tags: spannergorm.Array[string]{}}}
	if res := db.Create(&batch); res.Error != nil || res.RowsAffected != 2 {
		t.Fatalf("batch Create: %v, %d rows", res.Error, res.RowsAffected)
	}
}

func TestE2ECRUD(t *testing.T) {
	db := migrated(t)
	before := time.Now()
	seed(t, db)

	var alice Singer
	if err := db.Preload("Albums", func(tx *gorm.DB) *gorm.DB { return tx.Order("id") }).
		Where("name = ?", "Alice").First(&alice).Error; err != nil {
		t.Fatal(err)
	}
	if alice.ID != 1 || !alice.Active || !slices.Equal(alice.Tags, spannergorm.Array[string]{"rock", "pop"}) ||
		!slices.Equal(alice.Scores, spannergorm.Array[int64]{7, 9}) {
		t.Fatalf("First = %+v", alice)
	}
	if len(alice.Albums) != 2 || alice.Albums[1].Title != "Second" || alice.Albums[1].SingerID != 1 ||
		alice.Albums[1].ReleaseDate != date(2022, 3, 4) {
		t.Fatalf("Albums = %+v", alice.Albums)
	}
	if alice.CreatedAt.Before(before.Truncate(time.Microsecond)) || !alice.UpdatedAt.Equal(alice.CreatedAt) {
		t.Fatalf("timestamps CreatedAt=%v UpdatedAt=%v, run began %v", alice.CreatedAt, alice.UpdatedAt, before)
	}

	var active []Singer
	if err := db.Where(&Singer{Active: true}).Order("id").Find(&active).Error; err != nil ||
		len(active) != 2 || active[1].Name != "Carol" || active[1].Tags == nil || len(active[1].Tags) != 0 {
		t.Fatalf("Find active = %+v, %v", active, err)
	}
	var bob Singer
	if err := db.First(&bob, 2).Error; err != nil || bob.Tags != nil || bob.Scores != nil {
		t.Fatalf("First(2) = %+v, %v; want NULL arrays as nil", bob, err)
	}
	if n := db.Model(&alice).Association("Albums").Count(); n != 2 {
		t.Fatalf("Association count = %d", n)
	}

	time.Sleep(2 * time.Millisecond)
	if err := db.Model(&bob).Updates(map[string]any{"name": "Robert", "scores": spannergorm.Array[int64]{1}}).Error; err != nil {
		t.Fatal(err)
	}
	var robert Singer
	if err := db.Where("name = ?", "Robert").Take(&robert).Error; err != nil ||
		robert.ID != 2 || !slices.Equal(robert.Scores, spannergorm.Array[int64]{1}) || !robert.UpdatedAt.After(robert.CreatedAt) {
		t.Fatalf("after Updates: %+v, %v", robert, err)
	}

	if res := db.Delete(&Album{}, 11); res.Error != nil || res.RowsAffected != 1 {
		t.Fatalf("Delete: %v, %d rows", res.Error, res.RowsAffected)
	}
	var titles []string
	if err := db.Model(&Album{}).Order("id").Pluck("title", &titles).Error; err != nil || !slices.Equal(titles, []string{"Second"}) {
		t.Fatalf("titles after Delete = %q, %v", titles, err)
	}
	if err := db.First(&Singer{}, 42).Error; !errors.Is(err, gorm.ErrRecordNotFound) {
		t.Fatalf("First(42) = %v, want ErrRecordNotFound", err)
	}
}

func TestE2ETransactions(t *testing.T) {
	db := migrated(t)
	seed(t, db)

	err := db.Transaction(func(tx *gorm.DB) error {
		if err := tx.Create(&Album{ID: 21, SingerID: 2, Title: "In a transaction"}).Error; err != nil {
			return err
		}
		return tx.Model(&Singer{ID: 2}).Update("active", true).Error
	})
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	err = spannergorm.RunTransaction(context.Background(), db, func(tx *gorm.DB) error {
		calls++
		var s Singer
		if err := tx.First(&s, 3).Error; err != nil {
			return err
		}
		return tx.Model(&s).Update("tags", append(s.Tags, "jazz")).Error
	})
	if err != nil || calls != 1 {
		t.Fatalf("RunTransaction: %v after %d calls", err, calls)
	}
	var carol, bob Singer
	if err := db.First(&carol, 3).Error; err != nil || !slices.Equal(carol.Tags, spannergorm.Array[string]{"jazz"}) {
		t.Fatalf("after RunTransaction: %+v, %v", carol, err)
	}
	if err := db.Preload("Albums").First(&bob, 2).Error; err != nil || !bob.Active || len(bob.Albums) != 1 {
		t.Fatalf("after Transaction: %+v, %v", bob, err)
	}

	// A failing statement rolls the transaction back and its error keeps
	// its gRPC code; the pool is usable afterwards.
	errStop := errors.New("stop")
	err = db.Transaction(func(tx *gorm.DB) error {
		if err := tx.Create(&Singer{ID: 1, Name: "duplicate"}).Error; status.Code(err) != codes.AlreadyExists {
			t.Errorf("duplicate key: %v, want AlreadyExists", err)
		}
		return errStop
	})
	if !errors.Is(err, errStop) {
		t.Fatalf("Transaction = %v, want the function's error", err)
	}
	var n int64
	if err := db.Model(&Singer{}).Count(&n).Error; err != nil || n != 3 {
		t.Fatalf("Count after rollback = %d, %v", n, err)
	}
}
