package spannergorm

import (
	"errors"
	"math"
	"testing"

	"github.com/DATA-DOG/go-sqlmock"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

type Singer struct {
	ID     int64
	Name   string `gorm:"size:100;not null"`
	Active bool
}

type Item struct {
	Code  string `gorm:"primaryKey"`
	Price float64
}

func TestCreateSingleReturnsID(t *testing.T) {
	db, mock := newMock(t, Config{})
	mock.ExpectQuery("INSERT INTO `singers` (`name`,`active`) VALUES (?,?) THEN RETURN `id`").
		WithArgs("Alice", true).
		WillReturnRows(sqlmock.NewRows([]string{"id"}).AddRow(42))
	s := Singer{Name: "Alice", Active: true}
	if err := db.Create(&s).Error; err != nil {
		t.Fatal(err)
	}
	if s.ID != 42 {
		t.Fatalf("ID = %d, want 42 from THEN RETURN", s.ID)
	}
}

func TestCreateBatchReturnsIDs(t *testing.T) {
	db, mock := newMock(t, Config{})
	mock.ExpectQuery("INSERT INTO `singers` (`name`,`active`) VALUES (?,?),(?,?) THEN RETURN `id`").
		WithArgs("A", false, "B", true).
		WillReturnRows(sqlmock.NewRows([]string{"id"}).AddRow(1).AddRow(2))
	ss := []Singer{{Name: "A"}, {Name: "B", Active: true}}
	if err := db.Create(&ss).Error; err != nil {
		t.Fatal(err)
	}
	if ss[0].ID != 1 || ss[1].ID != 2 {
		t.Fatalf("IDs = %d, %d; want 1, 2", ss[0].ID, ss[1].ID)
	}
}

func TestCreateWithoutDBDefaultsUsesExec(t *testing.T) {
	db, mock := newMock(t, Config{})
	mock.ExpectExec("INSERT INTO `items` (`code`,`price`) VALUES (?,?)").
		WithArgs("x", 1.5).WillReturnResult(sqlmock.NewResult(0, 1))
	if err := db.Create(&Item{Code: "x", Price: 1.5}).Error; err != nil {
		t.Fatal(err)
	}
}

func TestFirstAndFind(t *testing.T) {
	db, mock := newMock(t, Config{})
	mock.ExpectQuery("SELECT * FROM `singers` WHERE name = ? AND `singers`.`active` = ? ORDER BY `singers`.`id` LIMIT ?").
		WithArgs("Alice", true, 1).
		WillReturnRows(sqlmock.NewRows([]string{"id", "name", "active"}).AddRow(7, "Alice", true))
	var s Singer
	if err := db.Where("name = ?", "Alice").Where(&Singer{Active: true}).First(&s).Error; err != nil {
		t.Fatal(err)
	}
	if s.ID != 7 {
		t.Fatalf("ID = %d", s.ID)
	}
	mock.ExpectQuery("SELECT * FROM `singers` WHERE `singers`.`id` IN (?,?)").
		WithArgs(1, 2).
		WillReturnRows(sqlmock.NewRows([]string{"id"}).AddRow(1).AddRow(2))
	var ss []Singer
	if err := db.Find(&ss, []int64{1, 2}).Error; err != nil || len(ss) != 2 {
		t.Fatalf("Find: %v, %d rows", err, len(ss))
	}
}

// TestLimitOffset: LIMIT and OFFSET are parameters, so every page size
// shares one statement text; an OFFSET alone gets the largest LIMIT.
func TestLimitOffset(t *testing.T) {
	db, mock := newMock(t, Config{})
	mock.ExpectQuery("SELECT * FROM `singers` LIMIT ? OFFSET ?").WithArgs(10, 20).
		WillReturnRows(sqlmock.NewRows([]string{"id"}))
	mock.ExpectQuery("SELECT * FROM `singers` LIMIT ? OFFSET ?").WithArgs(int64(math.MaxInt64), 5).
		WillReturnRows(sqlmock.NewRows([]string{"id"}))
	mock.ExpectQuery("SELECT * FROM `singers` LIMIT ?").WithArgs(0).
		WillReturnRows(sqlmock.NewRows([]string{"id"}))
	var ss []Singer
	for _, q := range []*gorm.DB{db.Limit(10).Offset(20), db.Offset(5), db.Limit(0)} {
		if err := q.Find(&ss).Error; err != nil {
			t.Fatal(err)
		}
	}
}

func TestUpdateOmitsPrimaryKey(t *testing.T) {
	db, mock := newMock(t, Config{})
	mock.ExpectExec("UPDATE `singers` SET `name`=?,`active`=? WHERE `id` = ?").
		WithArgs("Bob", false, 3).WillReturnResult(sqlmock.NewResult(0, 1))
	s := Singer{ID: 3, Name: "Bob"}
	if err := db.Model(&s).Select("*").Updates(&s).Error; err != nil {
		t.Fatal(err)
	}
	mock.ExpectExec("UPDATE `singers` SET `active`=? WHERE name = ?").
		WithArgs(true, "Bob").WillReturnResult(sqlmock.NewResult(0, 2))
	if err := db.Model(&Singer{}).Where("name = ?", "Bob").Update("active", true).Error; err != nil {
		t.Fatal(err)
	}
}

func TestUpdateThenReturn(t *testing.T) {
	db, mock := newMock(t, Config{})
	mock.ExpectQuery("UPDATE `singers` SET `active`=? WHERE name = ? THEN RETURN `id`,`name`").
		WithArgs(true, "Bob").
		WillReturnRows(sqlmock.NewRows([]string{"id", "name"}).AddRow(9, "Bob"))
	var ss []Singer
	err := db.Model(&ss).Clauses(clause.Returning{Columns: []clause.Column{{Name: "id"}, {Name: "name"}}}).
		Where("name = ?", "Bob").Update("active", true).Error
	if err != nil {
		t.Fatal(err)
	}
	if len(ss) != 1 || ss[0].ID != 9 {
		t.Fatalf("returned %+v", ss)
	}
}

func TestDelete(t *testing.T) {
	db, mock := newMock(t, Config{})
	mock.ExpectExec("DELETE FROM `singers` WHERE `singers`.`id` = ?").
		WithArgs(5).WillReturnResult(sqlmock.NewResult(0, 1))
	if err := db.Delete(&Singer{ID: 5}).Error; err != nil {
		t.Fatal(err)
	}
	mock.ExpectExec("DELETE FROM `singers` WHERE active = ?").
		WithArgs(false).WillReturnResult(sqlmock.NewResult(0, 4))
	res := db.Where("active = ?", false).Delete(&Singer{})
	if res.Error != nil || res.RowsAffected != 4 {
		t.Fatalf("Delete: %v, %d rows", res.Error, res.RowsAffected)
	}
}

func TestOnConflict(t *testing.T) {
	db, mock := newMock(t, Config{})
	mock.ExpectExec("INSERT OR UPDATE INTO `items` (`code`,`price`) VALUES (?,?)").
		WithArgs("x", 2.0).WillReturnResult(sqlmock.NewResult(0, 1))
	mock.ExpectExec("INSERT OR IGNORE INTO `items` (`code`,`price`) VALUES (?,?)").
		WithArgs("y", 3.0).WillReturnResult(sqlmock.NewResult(0, 0))
	mock.ExpectExec("INSERT OR UPDATE INTO `items` (`code`,`price`) VALUES (?,?)").
		WithArgs("z", 4.0).WillReturnResult(sqlmock.NewResult(0, 1))
	if err := db.Clauses(clause.OnConflict{UpdateAll: true}).Create(&Item{Code: "x", Price: 2}).Error; err != nil {
		t.Fatal(err)
	}
	if err := db.Clauses(clause.OnConflict{DoNothing: true}).Create(&Item{Code: "y", Price: 3}).Error; err != nil {
		t.Fatal(err)
	}
	onKey := clause.OnConflict{Columns: []clause.Column{{Name: "code"}}, UpdateAll: true}
	if err := db.Clauses(onKey).Create(&Item{Code: "z", Price: 4}).Error; err != nil {
		t.Fatal(err)
	}
}

func TestOnConflictUnsupported(t *testing.T) {
	db, _ := newMock(t, Config{})
	for name, oc := range map[string]clause.OnConflict{
		"DoUpdates on a non-key": {Columns: []clause.Column{{Name: "price"}}, DoUpdates: clause.AssignmentColumns([]string{"price"})},
		"non-key":                {Columns: []clause.Column{{Name: "price"}}, UpdateAll: true},
		"constraint":             {OnConstraint: "c", DoNothing: true},
		"where":                  {Where: clause.Where{Exprs: []clause.Expression{clause.Expr{SQL: "x"}}}, DoNothing: true},
	} {
		err := db.Clauses(oc).Create(&Item{Code: "x"}).Error
		if !errors.Is(err, ErrOnConflict) || status.Code(err) != codes.Unimplemented {
			t.Errorf("%s: err = %v, want ErrOnConflict", name, err)
		}
	}
}

// TestGlobalUpdateAndDeleteGetWhereTrue: GoogleSQL refuses UPDATE and
// DELETE without WHERE, so the updates and deletes GORM runs without
// conditions under AllowGlobalUpdate get WHERE TRUE; with conditions,
// and without AllowGlobalUpdate (ErrMissingWhereClause), nothing changes.
func TestGlobalUpdateAndDeleteGetWhereTrue(t *testing.T) {
	db, mock := newMock(t, Config{})
	global := db.Session(&gorm.Session{AllowGlobalUpdate: true})
	mock.ExpectExec("UPDATE `singers` SET `active`=? WHERE TRUE").WithArgs(true).WillReturnResult(sqlResult(3))
	if err := global.Model(&Singer{}).Update("active", true).Error; err != nil {
		t.Fatal(err)
	}
	mock.ExpectExec("DELETE FROM `singers` WHERE TRUE").WillReturnResult(sqlResult(3))
	if err := global.Delete(&Singer{}).Error; err != nil {
		t.Fatal(err)
	}
	mock.ExpectExec("UPDATE `singers` SET `active`=? WHERE TRUE AND `id` = ?").WithArgs(false, 7).WillReturnResult(sqlResult(1))
	if err := global.Model(&Singer{ID: 7}).Update("active", false).Error; err != nil {
		t.Fatal(err)
	}
	mock.ExpectExec("UPDATE `singers` SET `active`=? WHERE name = ?").WithArgs(true, "x").WillReturnResult(sqlResult(1))
	if err := global.Model(&Singer{}).Where("name = ?", "x").Update("active", true).Error; err != nil {
		t.Fatal(err)
	}
	if err := db.Model(&Singer{}).Update("active", true).Error; !errors.Is(err, gorm.ErrMissingWhereClause) {
		t.Fatalf("update without conditions nor AllowGlobalUpdate: %v", err)
	}
}
