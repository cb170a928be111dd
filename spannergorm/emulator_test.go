package spannergorm_test

import (
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"testing"

	"gorm.io/gorm"
	"gorm.io/gorm/logger"

	"github.com/spannerfast/spannerfast/internal/emulatortest"
	"github.com/spannerfast/spannerfast/spannergorm"
	"github.com/spannerfast/spannerfast/spannergorm/internal/dialecttest"
)

// The emulator tests run what the embedded server cannot: sequences,
// IDENTITY columns, hints, and the engine's own INFORMATION_SCHEMA.

// openEmulator opens GORM with cfg on a fresh GoogleSQL database of the
// emulator.
func openEmulator(t *testing.T, cfg spannergorm.Config) *gorm.DB {
	t.Helper()
	edb := emulatortest.NewDatabase(t)
	cfg.DSN = edb.DSN()
	db, err := gorm.Open(spannergorm.New(cfg), &gorm.Config{Logger: logger.Discard})
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

// Page is the LIMIT scenario's table (dialecttest.Limit).
type Page = dialecttest.Page

// TestEmulatorLimitIsParameter: two page sizes (and two offsets) send one
// query text, with LIMIT and OFFSET as parameters, and the engine returns
// the right rows for each; an OFFSET alone works too (dialecttest.Limit).
func TestEmulatorLimitIsParameter(t *testing.T) {
	t.Parallel()
	dialecttest.Limit(t, openEmulator(t, spannergorm.Config{}), []string{
		"SELECT * FROM `pages` ORDER BY id LIMIT ?",
		"SELECT * FROM `pages` ORDER BY id LIMIT ?",
		"SELECT * FROM `pages` ORDER BY id LIMIT ? OFFSET ?",
		"SELECT * FROM `pages` ORDER BY id LIMIT ? OFFSET ?",
		"SELECT * FROM `pages` ORDER BY id LIMIT ? OFFSET ?",
	})
}

// Person has a secondary index for the hint test.
type Person struct {
	ID   int64  `gorm:"primaryKey;autoIncrement:false"`
	Name string `gorm:"index:idx_people_name"`
}

// TestEmulatorForceIndex: a query with ForceIndex runs on the engine and
// returns the rows, and the hint reaches it: an index that does not exist
// fails the query.
func TestEmulatorForceIndex(t *testing.T) {
	t.Parallel()
	db := openEmulator(t, spannergorm.Config{})
	if err := db.AutoMigrate(&Person{}); err != nil {
		t.Fatal(err)
	}
	if err := db.Create(&[]Person{{1, "b"}, {2, "a"}, {3, "c"}}).Error; err != nil {
		t.Fatal(err)
	}
	var names []string
	if err := db.Model(&Person{}).Clauses(spannergorm.ForceIndex("idx_people_name")).
		Where("name >= ?", "b").Order("name").Pluck("name", &names).Error; err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(names, []string{"b", "c"}) {
		t.Errorf("names through the index = %q", names)
	}
	var n int64
	err := db.Model(&Person{}).Clauses(spannergorm.ForceIndex("idx_missing")).Count(&n).Error
	if err == nil || !strings.Contains(err.Error(), "idx_missing") {
		t.Fatalf("ForceIndex of a missing index: %v, want an error naming it", err)
	}
}

// Counter gets its key from the kind of DefaultSequenceKind; Numbered
// from the sequence its tag names.
type Counter struct {
	ID   int64
	Name string
}

type Numbered struct {
	ID   int64 `gorm_sequence_name:"numbered_ids"`
	Name string
}

// TestEmulatorSequences: under each DefaultSequenceKind, and with a
// gorm_sequence_name tag, AutoMigrate creates what the engine takes, a
// Create gets its key from the database (THEN RETURN), the named
// sequence is the one used (its internal state moves), and a second
// migration has nothing to send. An unknown kind fails on the engine.
func TestEmulatorSequences(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		kind     string
		model    any
		sequence string // the sequence whose state must move, "" for IDENTITY
	}{
		{kind: "", model: &Counter{}},
		{kind: "DISABLED", model: &Counter{}, sequence: "counters_seq"},
		{kind: "", model: &Numbered{}, sequence: "numbered_ids"},
		{kind: "BIT_REVERSED_POSITIVE", model: &Counter{}},
		// AUTO_INCREMENT is not here: the emulator does not parse it
		// (TestDefaultSequenceKindDDL covers its DDL).
	} {
		t.Run(c.kind+"/"+fmt.Sprintf("%T", c.model), func(t *testing.T) {
			t.Parallel()
			edb := emulatortest.NewDatabase(t)
			db, err := gorm.Open(spannergorm.New(spannergorm.Config{DSN: edb.DSN(), DefaultSequenceKind: c.kind}),
				&gorm.Config{Logger: logger.Discard})
			if err != nil {
				t.Fatal(err)
			}
			defer func() {
				if sqlDB, err := db.DB(); err == nil {
					_ = sqlDB.Close()
				}
			}()
			if err := db.AutoMigrate(c.model); err != nil {
				t.Fatalf("AutoMigrate: %v", err)
			}
			var ids []int64
			for _, name := range []string{"a", "b"} {
				switch c.model.(type) {
				case *Counter:
					v := Counter{Name: name}
					err = db.Create(&v).Error
					ids = append(ids, v.ID)
				case *Numbered:
					v := Numbered{Name: name}
					err = db.Create(&v).Error
					ids = append(ids, v.ID)
				}
				if err != nil {
					t.Fatalf("Create: %v", err)
				}
			}
			if ids[0] <= 0 || ids[1] <= 0 || ids[0] == ids[1] {
				t.Errorf("keys %v, want two distinct database-generated keys", ids)
			}
			if c.sequence != "" {
				var state sql.NullInt64
				if err := db.Raw("SELECT GET_INTERNAL_SEQUENCE_STATE(SEQUENCE " + c.sequence + ")").Scan(&state).Error; err != nil {
					t.Fatal(err)
				}
				if !state.Valid {
					t.Errorf("sequence %s was not used (no internal state)", c.sequence)
				}
			}
			if again, err := spannergorm.MigrationStatements(db, c.model); err != nil || len(again) != 0 {
				t.Errorf("second migration = %q, %v; want none", again, err)
			}
		})
	}
	t.Run("unknown kind", func(t *testing.T) {
		t.Parallel()
		db := openEmulator(t, spannergorm.Config{DefaultSequenceKind: "DOES_NOT_EXIST"})
		if err := db.AutoMigrate(&Counter{}); err == nil {
			t.Fatal("AutoMigrate with an unknown sequence kind succeeded")
		}
	})
}

// Artist has a composite index, a unique field and a generated column.
type Artist struct {
	ID      int64  `gorm:"primaryKey;autoIncrement:false"`
	Name    string `gorm:"index:idx_artists_name_country,priority:1"`
	Country string `gorm:"size:2;index:idx_artists_name_country,priority:2"`
	Email   string `gorm:"unique"`
	Shout   string `gorm:"->;type:STRING(MAX) AS (CONCAT(name, '!')) STORED;default:(-)"`
}

// TestEmulatorGetIndexesAndGeneratedColumns: after AutoMigrate, GetIndexes
// lists the primary key, the composite index with its columns in order
// and the unique field's index, as the engine has them; AlterColumn of
// the generated column sends nothing (the engine would refuse to make it
// a plain column), the generated value reads back, and a second migration
// has nothing to send.
func TestEmulatorGetIndexesAndGeneratedColumns(t *testing.T) {
	t.Parallel()
	db := openEmulator(t, spannergorm.Config{})
	if err := db.AutoMigrate(&Artist{}); err != nil {
		t.Fatal(err)
	}
	idxs, err := db.Migrator().GetIndexes(&Artist{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, idx := range idxs {
		pk, _ := idx.PrimaryKey()
		unique, _ := idx.Unique()
		got = append(got, fmt.Sprintf("%s %v pk=%v unique=%v", idx.Name(), idx.Columns(), pk, unique))
	}
	want := []string{
		"PRIMARY_KEY [id] pk=true unique=true",
		"idx_artists_name_country [name country] pk=false unique=false",
		"uni_artists_email [email] pk=false unique=true",
	}
	if !slices.Equal(got, want) {
		t.Errorf("GetIndexes\n got %q\nwant %q", got, want)
	}
	if err := db.Migrator().AlterColumn(&Artist{}, "Shout"); err != nil {
		t.Fatalf("AlterColumn of the generated column: %v", err)
	}
	if err := db.Create(&Artist{ID: 1, Name: "Ann", Country: "NL", Email: "a@x"}).Error; err != nil {
		t.Fatal(err)
	}
	var a Artist
	if err := db.First(&a, 1).Error; err != nil || a.Shout != "Ann!" {
		t.Fatalf("generated column read back %q, %v", a.Shout, err)
	}
	if again, err := spannergorm.MigrationStatements(db, &Artist{}); err != nil || len(again) != 0 {
		t.Errorf("second migration = %q, %v; want none", again, err)
	}
}

// TestEmulatorAutoMigrateDryRun: go-gorm-spanner's AutoMigrateDryRun,
// through its SpannerMigrator interface, returns the statements of a
// migration and sends none; AutoMigrate then creates the table and a
// second dry run is empty.
func TestEmulatorAutoMigrateDryRun(t *testing.T) {
	t.Parallel()
	db := openEmulator(t, spannergorm.Config{})
	mg, ok := db.Migrator().(spannergorm.SpannerMigrator)
	if !ok {
		t.Fatalf("%T is not a SpannerMigrator", db.Migrator())
	}
	stmts, err := mg.AutoMigrateDryRun(&Page{})
	if err != nil || len(stmts) != 1 || stmts[0].SQL != "CREATE TABLE `pages` (`id` INT64, `name` STRING(MAX)) PRIMARY KEY (`id`)" {
		t.Fatalf("AutoMigrateDryRun = %v, %v", stmts, err)
	}
	if db.Migrator().HasTable(&Page{}) {
		t.Fatal("the dry run created the table")
	}
	if err := db.AutoMigrate(&Page{}); err != nil {
		t.Fatal(err)
	}
	if stmts, err := mg.AutoMigrateDryRun(&Page{}); err != nil || len(stmts) != 0 {
		t.Fatalf("second dry run = %v, %v; want none", stmts, err)
	}
}
