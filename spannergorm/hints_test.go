package spannergorm

import (
	"testing"

	"gorm.io/gorm"
)

// TestIndexHints: ForceIndex puts @{FORCE_INDEX=...} right after the
// query's table, before a join and the WHERE; several hints share one
// @{...}; an empty key writes nothing.
func TestIndexHints(t *testing.T) {
	db, _ := newMock(t, Config{})
	dry := db.Session(&gorm.Session{DryRun: true})
	for _, c := range []struct {
		name string
		q    *gorm.DB
		want string
	}{
		{"force index", dry.Clauses(ForceIndex("idx_singers_name")).Where("name = ?", "x").Find(&[]Singer{}),
			"SELECT * FROM `singers`@{FORCE_INDEX=`idx_singers_name`} WHERE name = ?"},
		{"base table", dry.Clauses(ForceIndex("_BASE_TABLE")).Find(&[]Singer{}),
			"SELECT * FROM `singers`@{FORCE_INDEX=`_BASE_TABLE`}"},
		{"before a join", dry.Clauses(ForceIndex("idx")).Joins("JOIN `items` ON `items`.`code` = `singers`.`name`").Find(&[]Singer{}),
			"SELECT `singers`.`id`,`singers`.`name`,`singers`.`active` FROM `singers`@{FORCE_INDEX=`idx`} JOIN `items` ON `items`.`code` = `singers`.`name`"},
		{"two hints", dry.Clauses(ForceIndex("idx"), IndexHint{Type: "SCAN_METHOD=", Key: "ROW"}).Find(&[]Singer{}),
			"SELECT * FROM `singers`@{FORCE_INDEX=`idx`, SCAN_METHOD=`ROW`}"},
		{"empty key", dry.Clauses(ForceIndex("")).Find(&[]Singer{}),
			"SELECT * FROM `singers`"},
		{"count", dry.Model(&Singer{}).Clauses(ForceIndex("idx")).Count(new(int64)),
			"SELECT count(*) FROM `singers`@{FORCE_INDEX=`idx`}"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if err := c.q.Error; err != nil {
				t.Fatal(err)
			}
			if got := c.q.Statement.SQL.String(); got != c.want {
				t.Errorf("SQL\n got %s\nwant %s", got, c.want)
			}
		})
	}
}
