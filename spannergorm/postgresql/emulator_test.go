package spannerpg_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"
	"gorm.io/gorm/logger"

	_ "github.com/spannerfast/spannerfast/driver"
	"github.com/spannerfast/spannerfast/internal/emulatortest"
	spannerpg "github.com/spannerfast/spannerfast/spannergorm/postgresql"
)

// The models of the emulator tests: a has-many pair with a foreign key
// and IDENTITY keys, an interleaved child, and a
// second version of Singer for a migration that adds a column.

type Singer struct {
	ID        int64
	Name      string `gorm:"size:100;not null;index"`
	Active    bool
	Email     string `gorm:"unique"`
	Shout     string `gorm:"->;type:varchar generated always as (name || '!') stored;default:(-)"`
	CreatedAt time.Time
	UpdatedAt time.Time
	Albums    []Album
}

type Album struct {
	ID       int64
	SingerID int64 `gorm:"not null"`
	Title    string
	Rating   float64
	Tracks   []Track `gorm:"foreignKey:ID"`
}

// Track is interleaved in albums: its key starts with the album's (the
// column has the parent key's name, as Spanner requires).
type Track struct {
	ID    int64 `gorm:"primaryKey;autoIncrement:false"`
	No    int64 `gorm:"primaryKey;autoIncrement:false"`
	Title string
}

func (Track) InterleaveInParent() spannerpg.Interleave {
	return spannerpg.Interleave{Parent: "albums", OnDeleteCascade: true}
}

// SingerV2 is Singer with one more field, on the same table.
type SingerV2 struct {
	Singer
	Country string `gorm:"size:2"`
}

func (SingerV2) TableName() string { return "singers" }

func openEmulator(t *testing.T, cfg spannerpg.SpannerConfig) *gorm.DB {
	t.Helper()
	edb := emulatortest.NewDatabase(t, emulatortest.WithDialect(emulatortest.PostgreSQL))
	db, err := gorm.Open(spannerpg.NewWithSpannerConfig(postgres.Config{DSN: edb.DSN()}, cfg),
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

func migratedEmulator(t *testing.T, models ...any) *gorm.DB {
	t.Helper()
	db := openEmulator(t, spannerpg.SpannerConfig{})
	if err := db.AutoMigrate(models...); err != nil {
		t.Fatalf("AutoMigrate: %v", err)
	}
	return db
}

// spannerTypes returns "column type" for each column of a table, as
// Spanner reports them.
func spannerTypes(t *testing.T, db *gorm.DB, table string) []string {
	t.Helper()
	var cols []struct{ ColumnName, SpannerType string }
	if err := db.Raw("SELECT column_name, spanner_type FROM information_schema.columns WHERE table_schema = 'public' AND table_name = ? ORDER BY ordinal_position", table).
		Scan(&cols).Error; err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, c := range cols {
		out = append(out, c.ColumnName+" "+c.SpannerType)
	}
	return out
}

// TestEmulatorAutoMigrateTwice: AutoMigrate creates the tables (IDENTITY
// keys, a foreign key, an index, a unique index for a unique field and
// for a uniqueIndex tag, a generated column, an interleaved table) in one
// batch; a second AutoMigrate of the same models
// has nothing to send, and one of a model with a new field sends exactly
// its ADD COLUMN.
func TestEmulatorAutoMigrateTwice(t *testing.T) {
	t.Parallel()
	models := []any{&Singer{}, &Album{}, &Track{}}
	db := migratedEmulator(t, models...)
	if got, want := spannerTypes(t, db, "singers"), []string{
		"id bigint", "name character varying(100)", "active boolean", "email character varying",
		"shout character varying", "created_at timestamp with time zone", "updated_at timestamp with time zone",
	}; !slices.Equal(got, want) {
		t.Errorf("singers columns\n got %q\nwant %q", got, want)
	}
	var parent string
	if err := db.Raw("SELECT parent_table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_name = 'tracks'").Scan(&parent).Error; err != nil || parent != "albums" {
		t.Errorf("tracks' parent = %q, %v; want albums", parent, err)
	}
	var unique string
	if err := db.Raw("SELECT is_unique FROM information_schema.indexes WHERE table_name = 'singers' AND index_name = 'uni_singers_email'").Scan(&unique).Error; err != nil || unique != "YES" {
		t.Errorf("uni_singers_email is_unique = %q, %v; want YES", unique, err)
	}

	again, err := spannerpg.MigrationStatements(db, models...)
	if err != nil || len(again) != 0 {
		t.Fatalf("second migration statements = %q, %v; want none", again, err)
	}
	if err := db.AutoMigrate(models...); err != nil {
		t.Fatalf("second AutoMigrate: %v", err)
	}
	added, err := spannerpg.MigrationStatements(db, &SingerV2{})
	if want := []string{`ALTER TABLE "singers" ADD COLUMN "country" varchar(2)`}; err != nil || !slices.Equal(added, want) {
		t.Fatalf("migration of SingerV2 = %q, %v; want %q", added, err, want)
	}
	if err := db.AutoMigrate(&SingerV2{}); err != nil {
		t.Fatal(err)
	}
	if !db.Migrator().HasColumn(&SingerV2{}, "Country") {
		t.Fatal("country was not added")
	}
	if rest, err := spannerpg.MigrationStatements(db, &SingerV2{}); err != nil || len(rest) != 0 {
		t.Fatalf("migration after SingerV2 = %q, %v; want none", rest, err)
	}
}

// TestEmulatorMigratorInspection: the migrator's questions are answered
// from Spanner's information_schema; a composite index and one created and
// dropped by hand show in GetIndexes and HasIndex.
func TestEmulatorMigratorInspection(t *testing.T) {
	t.Parallel()
	db := migratedEmulator(t, &Singer{}, &Album{})
	m := db.Migrator()
	tables, err := m.GetTables()
	if err != nil || !slices.Equal(tables, []string{"albums", "singers"}) {
		t.Fatalf("GetTables = %v, %v", tables, err)
	}
	for _, c := range []struct {
		name      string
		got, want bool
	}{
		{"HasTable model", m.HasTable(&Singer{}), true},
		{"HasTable name", m.HasTable("albums"), true},
		{"HasTable missing", m.HasTable("nope"), false},
		{"HasColumn field", m.HasColumn(&Album{}, "SingerID"), true},
		{"HasColumn missing", m.HasColumn(&Album{}, "nope"), false},
		{"HasIndex", m.HasIndex(&Singer{}, "idx_singers_name"), true},
		{"HasIndex missing", m.HasIndex(&Singer{}, "idx_nope"), false},
		{"HasConstraint foreign key", m.HasConstraint(&Singer{}, "Albums"), true},
		{"HasConstraint missing", m.HasConstraint(&Singer{}, "fk_nope"), false},
	} {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	cols, err := m.ColumnTypes(&Singer{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range cols {
		s := c.Name() + " " + c.DatabaseTypeName()
		if n, ok := c.Length(); ok {
			s += fmt.Sprintf(" len=%d", n)
		}
		if k, _ := c.PrimaryKey(); k {
			s += " key"
		}
		if null, _ := c.Nullable(); !null {
			s += " not null"
		}
		got = append(got, s)
	}
	// The emulator reports is_identity NO for IDENTITY columns, so
	// AutoIncrement is not asked here (TestColumnTypesFromInformationSchema).
	want := []string{"id bigint key not null", "name character varying(100) len=100 not null", "active boolean",
		"email character varying", "shout character varying", "created_at timestamp with time zone",
		"updated_at timestamp with time zone"}
	if !slices.Equal(got, want) {
		t.Errorf("ColumnTypes\n got %q\nwant %q", got, want)
	}
	// A composite index, and an index created by hand after the migration.
	type Concert struct {
		ID    int64
		Start time.Time `gorm:"index:idx_concerts_time"`
		End   time.Time `gorm:"index:idx_concerts_time"`
		Venue string    `gorm:"index:idx_concerts_venue"`
	}
	type concertNoVenueIndex struct {
		ID    int64
		Start time.Time `gorm:"index:idx_concerts_time"`
		End   time.Time `gorm:"index:idx_concerts_time"`
		Venue string
	}
	if err := db.Table("concerts").AutoMigrate(&concertNoVenueIndex{}); err != nil {
		t.Fatal(err)
	}
	if m.HasIndex(&Concert{}, "idx_concerts_venue") {
		t.Fatal("idx_concerts_venue exists before CreateIndex")
	}
	if err := m.CreateIndex(&Concert{}, "idx_concerts_venue"); err != nil {
		t.Fatal(err)
	}
	if !m.HasIndex(&Concert{}, "idx_concerts_venue") {
		t.Fatal("idx_concerts_venue missing after CreateIndex")
	}
	cidx, err := m.GetIndexes(&Concert{})
	if err != nil {
		t.Fatal(err)
	}
	var cnames []string
	for _, i := range cidx {
		cnames = append(cnames, fmt.Sprintf("%s%v", i.Name(), i.Columns()))
	}
	slices.Sort(cnames)
	if want := []string{"PRIMARY_KEY[id]", "idx_concerts_time[start end]", "idx_concerts_venue[venue]"}; !slices.Equal(cnames, want) {
		t.Errorf("concerts GetIndexes\n got %q\nwant %q", cnames, want)
	}
	if err := m.DropIndex(&Concert{}, "idx_concerts_venue"); err != nil || m.HasIndex(&Concert{}, "idx_concerts_venue") {
		t.Fatalf("DropIndex: %v", err)
	}

	idx, err := m.GetIndexes(&Singer{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, i := range idx {
		pk, _ := i.PrimaryKey()
		uq, _ := i.Unique()
		names = append(names, fmt.Sprintf("%s%v pk=%v unique=%v", i.Name(), i.Columns(), pk, uq))
	}
	slices.Sort(names)
	if want := []string{"PRIMARY_KEY[id] pk=true unique=true", "idx_singers_name[name] pk=false unique=false",
		"uni_singers_email[email] pk=false unique=true"}; !slices.Equal(names, want) {
		t.Errorf("GetIndexes\n got %q\nwant %q", names, want)
	}
}

// TestEmulatorAlterColumn: a changed size and a new default become ALTER
// COLUMN statements that Spanner runs, and then there is nothing left to
// migrate. (SET/DROP NOT NULL fails inside the emulator, an internal
// error of its own: TestAlterColumnStatements covers it.)
func TestEmulatorAlterColumn(t *testing.T) {
	t.Parallel()
	type Note struct {
		ID    int64
		Text  string `gorm:"size:10"`
		Stars int64
	}
	type NoteV2 struct {
		ID    int64
		Text  string `gorm:"size:20"`
		Stars int64  `gorm:"default:3"`
	}
	db := migratedEmulator(t, &Note{})
	v2 := db.Table("notes")
	stmts, err := spannerpg.MigrationStatements(v2, &NoteV2{})
	want := []string{
		`ALTER TABLE "notes" ALTER COLUMN "text" TYPE varchar(20)`,
		`ALTER TABLE "notes" ALTER COLUMN "stars" SET DEFAULT 3`,
	}
	if err != nil || !slices.Equal(stmts, want) {
		t.Fatalf("statements\n got %q, %v\nwant %q", stmts, err, want)
	}
	if err := v2.AutoMigrate(&NoteV2{}); err != nil {
		t.Fatal(err)
	}
	if rest, err := spannerpg.MigrationStatements(db.Table("notes"), &NoteV2{}); err != nil || len(rest) != 0 {
		t.Fatalf("after ALTER: %q, %v; want none", rest, err)
	}
	if got := spannerTypes(t, db, "notes"); !slices.Contains(got, "text character varying(20)") {
		t.Errorf("notes columns %q", got)
	}
}

// TestEmulatorCRUD: Create fills IDENTITY keys through RETURNING, reads
// with conditions, Updates (key columns never in SET), Delete, OFFSET
// without LIMIT, and ErrRecordNotFound.
func TestEmulatorCRUD(t *testing.T) {
	t.Parallel()
	db := migratedEmulator(t, &Singer{}, &Album{})
	alice := Singer{Name: "Alice", Active: true, Email: "a@x"}
	if err := db.Create(&alice).Error; err != nil {
		t.Fatalf("Create: %v", err)
	}
	if alice.ID <= 0 {
		t.Fatalf("Create did not fill the IDENTITY key: %d", alice.ID)
	}
	more := []Singer{{Name: "Bob", Email: "b@x"}, {Name: "Carol", Active: true, Email: "c@x"}}
	if err := db.Create(&more).Error; err != nil {
		t.Fatalf("Create batch: %v", err)
	}
	if more[0].ID <= 0 || more[1].ID <= 0 || more[0].ID == more[1].ID {
		t.Fatalf("batch keys %d, %d", more[0].ID, more[1].ID)
	}

	var first Singer
	if err := db.First(&first, "name = ?", "Bob").Error; err != nil || first.ID != more[0].ID {
		t.Fatalf("First: %+v, %v", first, err)
	}
	var active []Singer
	if err := db.Where(&Singer{Active: true}).Order("name").Find(&active).Error; err != nil ||
		len(active) != 2 || active[0].Name != "Alice" || active[1].Name != "Carol" {
		t.Fatalf("Find active: %+v, %v", active, err)
	}
	var byID Singer
	if err := db.Take(&byID, alice.ID).Error; err != nil || byID.Email != "a@x" {
		t.Fatalf("Take by key: %+v, %v", byID, err)
	}
	var names []string
	if err := db.Model(&Singer{}).Order("name").Offset(1).Pluck("name", &names).Error; err != nil ||
		!slices.Equal(names, []string{"Bob", "Carol"}) {
		t.Fatalf("Offset without Limit: %q, %v", names, err)
	}
	var n int64
	if err := db.Model(&Singer{}).Where("name LIKE ?", "%o%").Count(&n).Error; err != nil || n != 2 {
		t.Fatalf("Count: %d, %v", n, err)
	}

	res := db.Model(&alice).Updates(Singer{ID: 99, Name: "Alicia", Active: false})
	if res.Error != nil || res.RowsAffected != 1 {
		t.Fatalf("Updates: %v, %d rows", res.Error, res.RowsAffected)
	}
	if err := db.Model(&Singer{}).Where("id = ?", more[0].ID).Update("active", true).Error; err != nil {
		t.Fatalf("Update: %v", err)
	}
	var after Singer
	if err := db.First(&after, alice.ID).Error; err != nil || after.Name != "Alicia" || after.Shout != "Alicia!" || after.ID != alice.ID {
		t.Fatalf("after Updates: %+v, %v", after, err)
	}

	res = db.Delete(&Singer{}, more[1].ID)
	if res.Error != nil || res.RowsAffected != 1 {
		t.Fatalf("Delete: %v, %d rows", res.Error, res.RowsAffected)
	}
	if err := db.First(&Singer{}, more[1].ID).Error; !errors.Is(err, gorm.ErrRecordNotFound) {
		t.Fatalf("First of a deleted row: %v, want ErrRecordNotFound", err)
	}
}

// TestEmulatorOnConflict: DoNothing gets the primary key as its conflict
// target and keeps the row; UpdateAll overwrites every inserted column.
func TestEmulatorOnConflict(t *testing.T) {
	t.Parallel()
	db := migratedEmulator(t, &Singer{})
	s := Singer{Name: "Eve", Email: "e@x"}
	if err := db.Create(&s).Error; err != nil {
		t.Fatal(err)
	}
	if err := db.Clauses(clause.OnConflict{DoNothing: true}).Create(&Singer{ID: s.ID, Name: "Ignored"}).Error; err != nil {
		t.Fatalf("DoNothing: %v", err)
	}
	var name string
	db.Model(&Singer{}).Where("id = ?", s.ID).Pluck("name", &name)
	if name != "Eve" {
		t.Fatalf("after DoNothing name = %q", name)
	}
	if err := db.Clauses(clause.OnConflict{UpdateAll: true}).Create(&Singer{ID: s.ID, Name: "Upserted", Email: "u@x"}).Error; err != nil {
		t.Fatalf("UpdateAll: %v", err)
	}
	var got Singer
	if err := db.First(&got, s.ID).Error; err != nil || got.Name != "Upserted" || got.Email != "u@x" {
		t.Fatalf("after UpdateAll: %+v, %v", got, err)
	}
	if err := db.Clauses(clause.OnConflict{UpdateAll: true}).Create(&Singer{Name: "New", Email: "n@x"}).Error; err != nil {
		t.Fatalf("UpdateAll of a new row: %v", err)
	}
	var n int64
	if db.Model(&Singer{}).Count(&n); n != 2 {
		t.Fatalf("rows = %d, want 2", n)
	}
}

// TestEmulatorDropTable: DropTable drops a table with its indexes and the
// foreign keys that reference it, and several tables children first.
func TestEmulatorDropTable(t *testing.T) {
	t.Parallel()
	db := migratedEmulator(t, &Singer{}, &Album{}, &Track{})
	// singers has indexes and albums' foreign key references it.
	if err := db.Migrator().DropTable(&Singer{}); err != nil {
		t.Fatalf("DropTable of a referenced table: %v", err)
	}
	if db.Migrator().HasConstraint(&Album{}, "fk_singers_albums") || db.Migrator().HasTable(&Singer{}) {
		t.Fatal("singers or the foreign key to it is still there")
	}
	if err := db.Migrator().DropTable(&Album{}, &Track{}); err != nil {
		t.Fatalf("DropTable: %v", err)
	}
	tables, err := db.Migrator().GetTables()
	if err != nil || len(tables) != 0 {
		t.Fatalf("tables left: %q, %v", tables, err)
	}
	if err := db.Migrator().DropTable(&Singer{}); err != nil {
		t.Fatalf("DropTable of a missing table: %v", err)
	}
}

// TestEmulatorWithoutBatchingOrIdentity: with DisableAutoMigrateBatching
// the DDL goes statement by statement, and with DisableIdentityColumns
// keys are plain bigint columns that the application fills.
func TestEmulatorWithoutBatchingOrIdentity(t *testing.T) {
	t.Parallel()
	db := openEmulator(t, spannerpg.SpannerConfig{DisableAutoMigrateBatching: true, DisableIdentityColumns: true})
	if err := db.AutoMigrate(&Singer{}, &Album{}); err != nil {
		t.Fatal(err)
	}
	if err := db.Create(&Singer{ID: 7, Name: "Key", Email: "k"}).Error; err != nil {
		t.Fatal(err)
	}
	err := db.Create(&Singer{Name: "NoKey", Email: "n"}).Error
	if err == nil || !strings.Contains(strings.ToLower(err.Error()), "id") {
		t.Fatalf("insert without key: %v, want an error about id", err)
	}
}
