package dialecttest

import (
	"slices"
	"testing"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// Victim is the table of the hostile-names scenario: the attacks name it
// (victims) in the statements they try to add.
type Victim struct {
	ID   int64 `gorm:"primaryKey;autoIncrement:false"`
	Name string
}

// HostileNames checks on db, an empty database of either dialect, that
// names taken from input cannot add SQL (issue 28). hostile are attacks
// written for db's dialect: each would end its quoted identifier early
// under a quoting that misses one of the dialect's rules, and then delete
// every row of victims. Each is given to GORM as a column alias
// (clause.Select), a table (clause.From), a column of ORDER BY
// (clause.OrderByColumn), of WHERE (clause.Eq) and of SET (Update); each
// query either fails (no such table or column) or returns, and after all
// of them victims holds exactly its rows. A name that cannot be quoted
// (not UTF-8) fails its query.
func HostileNames(t *testing.T, db *gorm.DB, hostile []string) {
	t.Helper()
	if err := db.AutoMigrate(&Victim{}); err != nil {
		t.Fatal(err)
	}
	want := []Victim{{1, "a"}, {2, "b"}, {3, "c"}}
	if err := db.Create(&want).Error; err != nil {
		t.Fatal(err)
	}
	for _, h := range hostile {
		queries := map[string]func() error{
			"alias": func() error {
				var out []map[string]any
				return db.Model(&Victim{}).Clauses(clause.Select{Columns: []clause.Column{{Name: "name", Alias: h}}}).Find(&out).Error
			},
			"table": func() error {
				var out []Victim
				return db.Clauses(clause.From{Tables: []clause.Table{{Name: h}}}).Find(&out).Error
			},
			"order by": func() error {
				var out []Victim
				return db.Order(clause.OrderByColumn{Column: clause.Column{Name: h}}).Find(&out).Error
			},
			"where": func() error {
				var out []Victim
				return db.Where(clause.Eq{Column: clause.Column{Name: h}, Value: 1}).Find(&out).Error
			},
			"set": func() error {
				return db.Model(&Victim{ID: 1}).Update(h, "z").Error
			},
		}
		for _, what := range []string{"alias", "table", "order by", "where", "set"} {
			err := queries[what]()
			var got []Victim
			if rerr := db.Order("id").Find(&got).Error; rerr != nil {
				t.Fatal(rerr)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("%s %q (query error: %v) changed the table: %v, want %v", what, h, err, got, want)
			}
		}
	}
	var out []Victim
	if err := db.Order(clause.OrderByColumn{Column: clause.Column{Name: "name\xff"}}).Find(&out).Error; err == nil {
		t.Errorf("ORDER BY a name that is not UTF-8 returned %v, want an error", out)
	}
}
