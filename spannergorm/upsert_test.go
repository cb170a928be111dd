package spannergorm

import (
	"errors"
	"reflect"
	"testing"

	"github.com/DATA-DOG/go-sqlmock"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"
	"gorm.io/gorm/logger"
)

// Owner has many Pets and one Collar; keys are explicit, so a child may
// already exist.
type Owner struct {
	ID     int64 `gorm:"primaryKey;autoIncrement:false"`
	Name   string
	Pets   []Pet
	Collar *Collar
}

type Pet struct {
	ID      int64 `gorm:"primaryKey;autoIncrement:false"`
	OwnerID int64
	Name    string
}

type Collar struct {
	ID      int64 `gorm:"primaryKey;autoIncrement:false"`
	OwnerID int64
	Color   string
}

// TestCreateHasManyUpdatesForeignKeyThenInserts: GORM's save of has-many
// children (ON CONFLICT (id) DO UPDATE SET owner_id) is one UPDATE of the
// foreign key for the children's keys and one INSERT OR IGNORE, in a
// transaction of their own when the Create has none.
func TestCreateHasManyUpdatesForeignKeyThenInserts(t *testing.T) {
	db, mock := newMock(t, Config{})
	mock.ExpectExec("INSERT INTO `owners` (`id`,`name`) VALUES (?,?)").WithArgs(1, "o").WillReturnResult(sqlResult(1))
	mock.ExpectBegin()
	mock.ExpectExec("UPDATE `collars` SET `owner_id`=? WHERE `id` = ?").WithArgs(1, 20).WillReturnResult(sqlResult(0))
	mock.ExpectExec("INSERT OR IGNORE INTO `collars` (`id`,`owner_id`,`color`) VALUES (?,?,?)").
		WithArgs(20, 1, "red").WillReturnResult(sqlResult(1))
	mock.ExpectCommit()
	mock.ExpectBegin()
	mock.ExpectExec("UPDATE `pets` SET `owner_id`=? WHERE `id` IN (?,?)").WithArgs(1, 10, 11).WillReturnResult(sqlResult(1))
	mock.ExpectExec("INSERT OR IGNORE INTO `pets` (`id`,`owner_id`,`name`) VALUES (?,?,?),(?,?,?)").
		WithArgs(10, 1, "a", 11, 1, "b").WillReturnResult(sqlResult(1))
	mock.ExpectCommit()
	o := Owner{ID: 1, Name: "o", Pets: []Pet{{ID: 10, Name: "a"}, {ID: 11, Name: "b"}}, Collar: &Collar{ID: 20, Color: "red"}}
	if err := db.Create(&o).Error; err != nil {
		t.Fatal(err)
	}
}

// TestCreateHasManyFailureRollsBack: when the INSERT fails after the
// UPDATE, the transaction is rolled back and Create returns the error.
func TestCreateHasManyFailureRollsBack(t *testing.T) {
	db, mock := newMock(t, Config{})
	boom := errors.New("boom")
	mock.ExpectExec("INSERT INTO `owners` (`id`,`name`) VALUES (?,?)").WithArgs(1, "o").WillReturnResult(sqlResult(1))
	mock.ExpectBegin()
	mock.ExpectExec("UPDATE `pets` SET `owner_id`=? WHERE `id` = ?").WithArgs(1, 10).WillReturnResult(sqlResult(1))
	mock.ExpectExec("INSERT OR IGNORE INTO `pets` (`id`,`owner_id`,`name`) VALUES (?,?,?)").
		WithArgs(10, 1, "a").WillReturnError(boom)
	mock.ExpectRollback()
	if err := db.Create(&Owner{ID: 1, Name: "o", Pets: []Pet{{ID: 10, Name: "a"}}}).Error; !errors.Is(err, boom) {
		t.Fatalf("Create error %v, want boom", err)
	}
}

// TestUpsertAssignmentColumns: an explicit DoUpdates with rows that assign
// different values is one UPDATE per distinct value list, inside GORM's
// transaction of the Create; Assignments with a constant is one UPDATE.
func TestUpsertAssignmentColumns(t *testing.T) {
	sqlDB, mock, err := sqlmock.New(sqlmock.QueryMatcherOption(sqlmock.QueryMatcherEqual))
	if err != nil {
		t.Fatal(err)
	}
	defer sqlDB.Close()
	db, err := gorm.Open(New(Config{Conn: sqlDB}), &gorm.Config{Logger: logger.Discard})
	if err != nil {
		t.Fatal(err)
	}
	mock.ExpectBegin()
	mock.ExpectExec("UPDATE `pets` SET `name`=? WHERE `id` IN (?,?)").WithArgs("x", 1, 3).WillReturnResult(sqlResult(2))
	mock.ExpectExec("UPDATE `pets` SET `name`=? WHERE `id` = ?").WithArgs("y", 2).WillReturnResult(sqlResult(1))
	mock.ExpectExec("INSERT OR IGNORE INTO `pets` (`id`,`owner_id`,`name`) VALUES (?,?,?),(?,?,?),(?,?,?)").
		WithArgs(1, 7, "x", 2, 7, "y", 3, 7, "x").WillReturnResult(sqlResult(0))
	mock.ExpectCommit()
	pets := []Pet{{ID: 1, OwnerID: 7, Name: "x"}, {ID: 2, OwnerID: 7, Name: "y"}, {ID: 3, OwnerID: 7, Name: "x"}}
	oc := clause.OnConflict{Columns: []clause.Column{{Name: "id"}}, DoUpdates: clause.AssignmentColumns([]string{"name"})}
	if err := db.Clauses(oc).Create(&pets).Error; err != nil {
		t.Fatal(err)
	}
	mock.ExpectBegin()
	mock.ExpectExec("UPDATE `pets` SET `name`=? WHERE `id` = ?").WithArgs("fixed", 1).WillReturnResult(sqlResult(1))
	mock.ExpectExec("INSERT OR IGNORE INTO `pets` (`id`,`owner_id`,`name`) VALUES (?,?,?)").
		WithArgs(1, 7, "x").WillReturnResult(sqlResult(0))
	mock.ExpectCommit()
	oc = clause.OnConflict{DoUpdates: clause.Assignments(map[string]any{"name": "fixed"})}
	if err := db.Clauses(oc).Create(&Pet{ID: 1, OwnerID: 7, Name: "x"}).Error; err != nil {
		t.Fatal(err)
	}
	if err := mock.ExpectationsWereMet(); err != nil {
		t.Fatal(err)
	}
}

// TestUpsertWithoutKeysIsPlainInsert: rows whose IDENTITY key is left to
// the database cannot conflict, so a DoUpdates upsert of them is one
// plain INSERT (with THEN RETURN of the new keys).
func TestUpsertWithoutKeysIsPlainInsert(t *testing.T) {
	db, mock := newMock(t, Config{})
	mock.ExpectQuery("INSERT INTO `singers` (`name`,`active`) VALUES (?,?),(?,?) THEN RETURN `id`").
		WithArgs("A", false, "B", false).WillReturnRows(sqlmock.NewRows([]string{"id"}).AddRow(1).AddRow(2))
	ss := []Singer{{Name: "A"}, {Name: "B"}}
	oc := clause.OnConflict{DoUpdates: clause.AssignmentColumns([]string{"active"})}
	if err := db.Clauses(oc).Create(&ss).Error; err != nil {
		t.Fatal(err)
	}
	if ss[0].ID != 1 || ss[1].ID != 2 {
		t.Fatalf("IDs %d, %d", ss[0].ID, ss[1].ID)
	}
}

// TestUpsertExcludedColumnNotInserted: DoUpdates of excluded.column for a
// column the INSERT leaves out is refused before anything is sent.
func TestUpsertExcludedColumnNotInserted(t *testing.T) {
	db, _ := newMock(t, Config{})
	oc := clause.OnConflict{DoUpdates: clause.AssignmentColumns([]string{"nope"})}
	if err := db.Clauses(oc).Create(&Pet{ID: 1}).Error; !errors.Is(err, ErrUpsertAssignment) {
		t.Fatalf("err = %v, want ErrUpsertAssignment", err)
	}
}

// TestUpsertOwnTransaction: under SkipDefaultTransaction the UPDATE and
// INSERT of an explicit upsert run in a transaction of their own, which
// also holds what the Create does after them (the children's save), as
// GORM's own transaction would.
func TestUpsertOwnTransaction(t *testing.T) {
	db, mock := newMock(t, Config{})
	mock.ExpectBegin()
	mock.ExpectExec("UPDATE `owners` SET `name`=? WHERE `id` = ?").WithArgs("o", 1).WillReturnResult(sqlResult(1))
	mock.ExpectExec("INSERT OR IGNORE INTO `owners` (`id`,`name`) VALUES (?,?)").WithArgs(1, "o").WillReturnResult(sqlResult(0))
	mock.ExpectExec("UPDATE `pets` SET `owner_id`=? WHERE `id` = ?").WithArgs(1, 10).WillReturnResult(sqlResult(1))
	mock.ExpectExec("INSERT OR IGNORE INTO `pets` (`id`,`owner_id`,`name`) VALUES (?,?,?)").WithArgs(10, 1, "a").WillReturnResult(sqlResult(0))
	mock.ExpectCommit()
	oc := clause.OnConflict{DoUpdates: clause.AssignmentColumns([]string{"name"})}
	if err := db.Clauses(oc).Create(&Owner{ID: 1, Name: "o", Pets: []Pet{{ID: 10, Name: "a"}}}).Error; err != nil {
		t.Fatal(err)
	}
}

// TestUpsertDryRunShowsEveryStatement: a DryRun of a partial upsert holds
// the UPDATEs and the INSERT OR IGNORE as one text, in the order they are
// sent, with all their arguments in that order; ToSQL renders them with
// the values. Nothing reaches the database (the mock expects nothing).
func TestUpsertDryRunShowsEveryStatement(t *testing.T) {
	db, _ := newMock(t, Config{})
	pets := []Pet{{ID: 1, OwnerID: 7, Name: "x"}, {ID: 2, OwnerID: 7, Name: "y"}, {ID: 3, OwnerID: 7, Name: "x"}}
	oc := clause.OnConflict{Columns: []clause.Column{{Name: "id"}}, DoUpdates: clause.AssignmentColumns([]string{"name"})}
	stmt := db.Session(&gorm.Session{DryRun: true, SkipDefaultTransaction: true}).Clauses(oc).Create(&pets).Statement
	wantSQL := "UPDATE `pets` SET `name`=? WHERE `id` IN (?,?); UPDATE `pets` SET `name`=? WHERE `id` = ?; " +
		"INSERT OR IGNORE INTO `pets` (`id`,`owner_id`,`name`) VALUES (?,?,?),(?,?,?),(?,?,?)"
	if got := stmt.SQL.String(); got != wantSQL {
		t.Errorf("DryRun SQL\n %s\nwant\n %s", got, wantSQL)
	}
	wantVars := []any{"x", int64(1), int64(3), "y", int64(2), int64(1), int64(7), "x", int64(2), int64(7), "y", int64(3), int64(7), "x"}
	if !reflect.DeepEqual(stmt.Vars, wantVars) {
		t.Errorf("DryRun Vars %#v\nwant %#v", stmt.Vars, wantVars)
	}
	got := db.ToSQL(func(tx *gorm.DB) *gorm.DB { return tx.Clauses(oc).Create(&pets) })
	want := "UPDATE `pets` SET `name`='x' WHERE `id` IN (1,3); UPDATE `pets` SET `name`='y' WHERE `id` = 2; " +
		"INSERT OR IGNORE INTO `pets` (`id`,`owner_id`,`name`) VALUES (1,7,'x'),(2,7,'y'),(3,7,'x')"
	if got != want {
		t.Errorf("ToSQL\n %s\nwant\n %s", got, want)
	}
}
