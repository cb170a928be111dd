package spannerpg

import (
	"testing"

	"github.com/DATA-DOG/go-sqlmock"
	"gorm.io/gorm/clause"
)

// TestUpsertDoUpdatesSQL: on PostgreSQL, an OnConflict DoUpdates on the
// key is an UPDATE of the asked column for the keys given ($n
// parameters), then INSERT ... ON CONFLICT ("id") DO NOTHING, in one
// transaction.
func TestUpsertDoUpdatesSQL(t *testing.T) {
	db, mock := newMock(t, SpannerConfig{})
	mock.ExpectBegin()
	mock.ExpectExec(`UPDATE "records" SET "title"=$1 WHERE "id" IN ($2,$3)`).WithArgs("x", 1, 2).
		WillReturnResult(sqlmock.NewResult(0, 1))
	mock.ExpectQuery(`INSERT INTO "records" ("band_id","title","id") VALUES ($1,$2,$3),($4,$5,$6) ON CONFLICT ("id") DO NOTHING RETURNING "id"`).
		WithArgs(0, "x", 1, 0, "x", 2).WillReturnRows(sqlmock.NewRows([]string{"id"}).AddRow(2))
	mock.ExpectCommit()
	oc := clause.OnConflict{Columns: []clause.Column{{Name: "id"}}, DoUpdates: clause.AssignmentColumns([]string{"title"})}
	if err := db.Clauses(oc).Create(&[]Record{{ID: 1, Title: "x"}, {ID: 2, Title: "x"}}).Error; err != nil {
		t.Fatal(err)
	}
}
