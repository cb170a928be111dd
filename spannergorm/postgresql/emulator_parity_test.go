package spannerpg_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"gorm.io/gorm"

	"github.com/spannerfast/spannerfast/spannergorm/internal/dialecttest"
	spannerpg "github.com/spannerfast/spannerfast/spannergorm/postgresql"
)

// Page is the LIMIT scenario's table (dialecttest.Limit).
type Page = dialecttest.Page

// TestEmulatorLimitIsParameter: two page sizes (and two offsets) send one
// query text, with LIMIT and OFFSET as $n parameters, and the engine
// returns the right rows for each; an OFFSET alone works too
// (dialecttest.Limit).
func TestEmulatorLimitIsParameter(t *testing.T) {
	t.Parallel()
	dialecttest.Limit(t, openEmulator(t, spannerpg.SpannerConfig{}), []string{
		`SELECT * FROM "pages" ORDER BY id LIMIT $1`,
		`SELECT * FROM "pages" ORDER BY id LIMIT $1`,
		`SELECT * FROM "pages" ORDER BY id LIMIT $1 OFFSET $2`,
		`SELECT * FROM "pages" ORDER BY id LIMIT $1 OFFSET $2`,
		`SELECT * FROM "pages" ORDER BY id LIMIT $1 OFFSET $2`,
	})
}

// TestEmulatorAutoMigrateDryRun: go-gorm-spanner's AutoMigrateDryRun,
// through its SpannerMigrator interface, returns the statements of a
// migration and sends none; AutoMigrate then creates the table and a
// second dry run is empty.
func TestEmulatorAutoMigrateDryRun(t *testing.T) {
	t.Parallel()
	db := openEmulator(t, spannerpg.SpannerConfig{})
	mg, ok := db.Migrator().(spannerpg.SpannerMigrator)
	if !ok {
		t.Fatalf("%T is not a SpannerMigrator", db.Migrator())
	}
	stmts, err := mg.AutoMigrateDryRun(&Page{})
	if err != nil || len(stmts) != 1 || stmts[0].SQL != `CREATE TABLE "pages" ("id" bigint,"name" varchar,PRIMARY KEY ("id"))` {
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

// Person has a secondary index for the hint test.
type Person struct {
	ID   int64  `gorm:"primaryKey;autoIncrement:false"`
	Name string `gorm:"index:idx_people_name"`
}

// TestEmulatorForceIndex: ForceIndex writes /*@ FORCE_INDEX=... */ right
// after the table (before a join); the query runs on the engine and
// returns the rows; the hint reaches it (a missing index fails the
// query); a name that cannot go into a comment is refused with ErrHint.
func TestEmulatorForceIndex(t *testing.T) {
	t.Parallel()
	db := openEmulator(t, spannerpg.SpannerConfig{})
	dry := db.Session(&gorm.Session{DryRun: true})
	for _, c := range []struct {
		q    *gorm.DB
		want string
	}{
		{dry.Clauses(spannerpg.ForceIndex("idx_people_name")).Where("name = ?", "x").Find(&[]Person{}),
			`SELECT * FROM "people"/*@ FORCE_INDEX=idx_people_name */ WHERE name = $1`},
		{dry.Clauses(spannerpg.ForceIndex("idx")).Joins(`JOIN "pages" ON "pages"."id" = "people"."id"`).Find(&[]Person{}),
			`SELECT "people"."id","people"."name" FROM "people"/*@ FORCE_INDEX=idx */ JOIN "pages" ON "pages"."id" = "people"."id"`},
		{dry.Clauses(spannerpg.ForceIndex("")).Find(&[]Person{}), `SELECT * FROM "people"`},
	} {
		if got := c.q.Statement.SQL.String(); got != c.want || c.q.Error != nil {
			t.Errorf("SQL\n got %s (%v)\nwant %s", got, c.q.Error, c.want)
		}
	}
	if err := dry.Clauses(spannerpg.ForceIndex("x */ DROP")).Find(&[]Person{}).Error; !errors.Is(err, spannerpg.ErrHint) {
		t.Errorf("a name that is not a word: %v, want ErrHint", err)
	}

	if err := db.AutoMigrate(&Person{}); err != nil {
		t.Fatal(err)
	}
	if err := db.Create(&[]Person{{1, "b"}, {2, "a"}, {3, "c"}}).Error; err != nil {
		t.Fatal(err)
	}
	var names []string
	if err := db.Model(&Person{}).Clauses(spannerpg.ForceIndex("idx_people_name")).
		Where("name >= ?", "b").Order("name").Pluck("name", &names).Error; err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(names, []string{"b", "c"}) {
		t.Errorf("names through the index = %q", names)
	}
	var n int64
	err := db.Model(&Person{}).Clauses(spannerpg.ForceIndex("idx_missing")).Count(&n).Error
	if err == nil || !strings.Contains(err.Error(), "idx_missing") {
		t.Fatalf("ForceIndex of a missing index: %v, want an error naming it", err)
	}
}
