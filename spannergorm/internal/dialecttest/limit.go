package dialecttest

import (
	"slices"
	"sync"
	"testing"

	"gorm.io/gorm"
)

// Page is the table of the LIMIT scenario.
type Page struct {
	ID   int64 `gorm:"primaryKey;autoIncrement:false"`
	Name string
}

// Limit checks on db, an empty database of either dialect, that two page
// sizes (and two offsets) send one query text each, with LIMIT and OFFSET
// as parameters, and that the engine returns the right rows for each; an
// OFFSET alone works too. want is the dialect's text of the five queries
// (Limit(2), Limit(3), Limit(2).Offset(1), Limit(1).Offset(3), Offset(3)).
func Limit(t *testing.T, db *gorm.DB, want []string) {
	t.Helper()
	if err := db.AutoMigrate(&Page{}); err != nil {
		t.Fatal(err)
	}
	if err := db.Create(&[]Page{{1, "a"}, {2, "b"}, {3, "c"}, {4, "d"}, {5, "e"}}).Error; err != nil {
		t.Fatal(err)
	}
	var (
		mu    sync.Mutex
		texts []string
	)
	if err := db.Callback().Query().After("gorm:query").Register("dialecttest:record_text", func(tx *gorm.DB) {
		mu.Lock()
		defer mu.Unlock()
		texts = append(texts, tx.Statement.SQL.String())
	}); err != nil {
		t.Fatal(err)
	}
	ids := func(tx *gorm.DB) []int64 {
		t.Helper()
		var ps []Page
		if err := tx.Order("id").Find(&ps).Error; err != nil {
			t.Fatal(err)
		}
		var out []int64
		for _, p := range ps {
			out = append(out, p.ID)
		}
		return out
	}
	for _, c := range []struct {
		name string
		tx   *gorm.DB
		want []int64
	}{
		{"Limit(2)", db.Limit(2), []int64{1, 2}},
		{"Limit(3)", db.Limit(3), []int64{1, 2, 3}},
		{"Limit(2).Offset(1)", db.Limit(2).Offset(1), []int64{2, 3}},
		{"Limit(1).Offset(3)", db.Limit(1).Offset(3), []int64{4}},
		{"Offset(3)", db.Offset(3), []int64{4, 5}},
	} {
		if got := ids(c.tx); !slices.Equal(got, c.want) {
			t.Errorf("%s = %v", c.name, got)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(texts, want) {
		t.Errorf("query texts\n got %q\nwant %q", texts, want)
	}
}
