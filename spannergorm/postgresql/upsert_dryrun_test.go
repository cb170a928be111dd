package spannerpg

import (
	"reflect"
	"testing"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

type Pet struct {
	ID      int64 `gorm:"primaryKey;autoIncrement:false"`
	OwnerID int64
	Name    string
}

// TestUpsertDryRunShowsEveryStatement: a DryRun of a partial upsert holds
// the UPDATEs and the INSERT ... ON CONFLICT DO NOTHING as one text, in
// the order they are sent, their $n numbered through the whole text to
// match the one list of arguments; ToSQL renders them with the values.
// Nothing reaches the database (the mock expects nothing).
func TestUpsertDryRunShowsEveryStatement(t *testing.T) {
	db, _ := newMock(t, SpannerConfig{})
	pets := []Pet{{ID: 1, OwnerID: 7, Name: "x"}, {ID: 2, OwnerID: 7, Name: "y"}, {ID: 3, OwnerID: 7, Name: "x"}}
	oc := clause.OnConflict{Columns: []clause.Column{{Name: "id"}}, DoUpdates: clause.AssignmentColumns([]string{"name"})}
	stmt := db.Session(&gorm.Session{DryRun: true, SkipDefaultTransaction: true}).Clauses(oc).Create(&pets).Statement
	wantSQL := `UPDATE "pets" SET "name"=$1 WHERE "id" IN ($2,$3); UPDATE "pets" SET "name"=$4 WHERE "id" = $5; ` +
		`INSERT INTO "pets" ("id","owner_id","name") VALUES ($6,$7,$8),($9,$10,$11),($12,$13,$14) ON CONFLICT ("id") DO NOTHING`
	if got := stmt.SQL.String(); got != wantSQL {
		t.Errorf("DryRun SQL\n %s\nwant\n %s", got, wantSQL)
	}
	wantVars := []any{"x", int64(1), int64(3), "y", int64(2), int64(1), int64(7), "x", int64(2), int64(7), "y", int64(3), int64(7), "x"}
	if !reflect.DeepEqual(stmt.Vars, wantVars) {
		t.Errorf("DryRun Vars %#v\nwant %#v", stmt.Vars, wantVars)
	}
	got := db.ToSQL(func(tx *gorm.DB) *gorm.DB { return tx.Clauses(oc).Create(&pets) })
	want := `UPDATE "pets" SET "name"='x' WHERE "id" IN (1,3); UPDATE "pets" SET "name"='y' WHERE "id" = 2; ` +
		`INSERT INTO "pets" ("id","owner_id","name") VALUES (1,7,'x'),(2,7,'y'),(3,7,'x') ON CONFLICT ("id") DO NOTHING`
	if got != want {
		t.Errorf("ToSQL\n %s\nwant\n %s", got, want)
	}
}
