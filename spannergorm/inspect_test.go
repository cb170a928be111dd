package spannergorm

import (
	"reflect"
	"slices"
	"testing"

	"github.com/DATA-DOG/go-sqlmock"
)

func TestInspectionQueries(t *testing.T) {
	db, mock := newMock(t, Config{})
	m := db.Migrator()
	mock.ExpectQuery(hasTableSQL).WithArgs("", "bands").WillReturnRows(countRows(1))
	mock.ExpectQuery(hasColumnSQL).WithArgs("", "bands", "home_town").WillReturnRows(countRows(1))
	mock.ExpectQuery(hasIndexSQL).WithArgs("", "bands", "idx_bands_genre").WillReturnRows(countRows(0))
	mock.ExpectQuery(hasConstraintSQL).WithArgs("", "albums", "fk_bands_albums").WillReturnRows(countRows(1))
	mock.ExpectQuery(getTablesSQL).WithArgs("").
		WillReturnRows(sqlmock.NewRows([]string{"TABLE_NAME"}).AddRow("albums").AddRow("bands"))
	if !m.HasTable(&Band{}) {
		t.Error("HasTable = false")
	}
	if !m.HasColumn(&Band{}, "HomeTown") {
		t.Error("HasColumn = false")
	}
	if m.HasIndex(&Band{}, "idx_bands_genre") {
		t.Error("HasIndex = true")
	}
	if !m.HasConstraint(&Band{}, "Albums") {
		t.Error("HasConstraint = false")
	}
	tables, err := m.GetTables()
	if err != nil || !reflect.DeepEqual(tables, []string{"albums", "bands"}) {
		t.Errorf("GetTables = %v, %v", tables, err)
	}
}

func TestColumnTypes(t *testing.T) {
	db, mock := newMock(t, Config{})
	mock.ExpectQuery(keyColumnsSQL).WithArgs("", "albums").
		WillReturnRows(sqlmock.NewRows([]string{"COLUMN_NAME"}).AddRow("id"))
	mock.ExpectQuery(columnsSQL).WithArgs("", "albums").WillReturnRows(
		sqlmock.NewRows([]string{"COLUMN_NAME", "SPANNER_TYPE", "IS_NULLABLE", "COLUMN_DEFAULT"}).
			AddRow("id", "INT64", "NO", nil).
			AddRow("title", "STRING(50)", "YES", "'x'").
			AddRow("tags", "ARRAY<STRING(10)>", "YES", nil))
	cts, err := db.Migrator().ColumnTypes(&Album{})
	if err != nil || len(cts) != 3 {
		t.Fatalf("ColumnTypes: %v, %d columns", err, len(cts))
	}
	if pk, ok := cts[0].PrimaryKey(); !pk || !ok {
		t.Error("id is not the primary key")
	}
	if n, ok := cts[0].Nullable(); n || !ok {
		t.Error("id nullable")
	}
	if pk, _ := cts[1].PrimaryKey(); pk {
		t.Error("title is a primary key")
	}
	if got := cts[1].DatabaseTypeName(); got != "STRING(50)" {
		t.Errorf("DatabaseTypeName = %q", got)
	}
	if n, ok := cts[1].Length(); n != 50 || !ok {
		t.Errorf("Length = %d, %v", n, ok)
	}
	if d, ok := cts[1].DefaultValue(); d != "'x'" || !ok {
		t.Errorf("DefaultValue = %q, %v", d, ok)
	}
	if _, ok := cts[2].Length(); ok {
		t.Error("ARRAY column has a length")
	}
}

func TestMigrationStatementsDryRun(t *testing.T) {
	db, mock := newMock(t, Config{})
	mock.ExpectQuery(hasTableSQL).WithArgs("", "bands").WillReturnRows(countRows(0))
	mock.ExpectQuery(hasTableSQL).WithArgs("", "albums").WillReturnRows(countRows(0))
	got, err := MigrationStatements(db, &Band{}, &Album{})
	if err != nil {
		t.Fatal(err)
	}
	want := append(append([]string{}, bandDDL...), albumDDL)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("statements:\n%q\nwant\n%q", got, want)
	}
}

// TestAlterColumnLeavesGeneratedColumns: AlterColumn asks
// INFORMATION_SCHEMA whether the column is generated and sends nothing
// for one that is.
func TestAlterColumnLeavesGeneratedColumns(t *testing.T) {
	db, mock := newMock(t, Config{})
	mock.ExpectQuery(generatedSQL).WithArgs("", "singers", "name").WillReturnRows(countRows(1))
	if err := db.Migrator().AlterColumn(&Singer{}, "Name"); err != nil {
		t.Fatal(err)
	}
	mock.ExpectQuery(generatedSQL).WithArgs("", "singers", "name").WillReturnRows(countRows(0))
	mock.ExpectExec("ALTER TABLE `singers` ALTER COLUMN `name` STRING(100) NOT NULL").WillReturnResult(sqlResult(0))
	if err := db.Migrator().AlterColumn(&Singer{}, "Name"); err != nil {
		t.Fatal(err)
	}
}

// TestGetIndexes: one index per name with its key columns in order, the
// primary key marked, from one INFORMATION_SCHEMA query.
func TestGetIndexes(t *testing.T) {
	db, mock := newMock(t, Config{})
	mock.ExpectQuery(indexesSQL).WithArgs("", "singers").WillReturnRows(
		sqlmock.NewRows([]string{"INDEX_NAME", "IS_UNIQUE", "INDEX_TYPE", "COLUMN_NAME"}).
			AddRow("PRIMARY_KEY", true, "PRIMARY_KEY", "id").
			AddRow("idx_name_active", false, "INDEX", "name").
			AddRow("idx_name_active", false, "INDEX", "active"))
	idxs, err := db.Migrator().GetIndexes(&Singer{})
	if err != nil || len(idxs) != 2 {
		t.Fatalf("GetIndexes = %v, %v", idxs, err)
	}
	pk, _ := idxs[0].PrimaryKey()
	uniq, _ := idxs[0].Unique()
	if idxs[0].Name() != "PRIMARY_KEY" || !pk || !uniq || !slices.Equal(idxs[0].Columns(), []string{"id"}) {
		t.Errorf("primary key index %+v", idxs[0])
	}
	pk, _ = idxs[1].PrimaryKey()
	uniq, _ = idxs[1].Unique()
	if idxs[1].Name() != "idx_name_active" || pk || uniq || idxs[1].Table() != "singers" ||
		!slices.Equal(idxs[1].Columns(), []string{"name", "active"}) {
		t.Errorf("secondary index %+v", idxs[1])
	}
}
