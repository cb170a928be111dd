package spannerpg

import (
	"testing"

	"cloud.google.com/go/spanner"

	"github.com/spannerfast/spannerfast/spannergorm"
)

type stamped struct {
	ID       int64 `gorm:"primaryKey;autoIncrement:false"`
	Modified spannergorm.CommitTimestamp
	Amounts  spannergorm.Array[spanner.PGNumeric]
	Docs     spannergorm.Array[spanner.PGJsonB]
}

// TestSpannergormTypesInPostgreSQL: spannergorm's CommitTimestamp writes
// spanner.pending_commit_timestamp() into a spanner.commit_timestamp
// column under this dialector (GoogleSQL's function and TIMESTAMP would
// fail here), and Array of PostgreSQL-only element types are columns
// (numeric[], jsonb[]), not relations. TestEmulatorGORMSuite runs both on
// the engine.
func TestSpannergormTypesInPostgreSQL(t *testing.T) {
	db := dryRun(t)
	stmt := db.Create(&stamped{ID: 1}).Statement
	if want := `INSERT INTO "stampeds" ("id","modified","amounts","docs") VALUES ($1,spanner.pending_commit_timestamp(),$2,$3)`; stmt.SQL.String() != want || stmt.Error != nil {
		t.Errorf("Create\n got %s (%v)\nwant %s", stmt.SQL.String(), stmt.Error, want)
	}
	if err := stmt.Parse(&stamped{}); err != nil {
		t.Fatal(err)
	}
	mg := db.Migrator().(Migrator)
	for field, want := range map[string]string{"Modified": "spanner.commit_timestamp", "Amounts": "numeric[]", "Docs": "jsonb[]"} {
		if got := mg.FullDataTypeOf(stmt.Schema.LookUpField(field)).SQL; got != want {
			t.Errorf("%s column type %q, want %q", field, got, want)
		}
	}
}
