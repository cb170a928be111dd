package infoschema

import (
	"fmt"
	"strings"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"cloud.google.com/go/spanner/spansql"
)

// Schema is a snapshot of the database schema as the DDL statements
// applied so far declare it: what INFORMATION_SCHEMA describes. Answer
// only reads it.
type Schema struct {
	Tables  []Table // in creation order
	Indexes []*spansql.CreateIndex
	Views   []string
}

// Table is one table of a Schema.
type Table struct {
	Name              string
	Columns           []spansql.ColumnDef // in declared order
	PrimaryKey        []spansql.KeyPart
	Interleave        *spansql.Interleave        // nil: not interleaved
	RowDeletionPolicy *spansql.RowDeletionPolicy // nil: none
	Checks            []string                   // CHECK constraint names
	ForeignKeys       []ForeignKey
}

// ForeignKey is a FOREIGN KEY constraint of a table: its name and the
// table it references.
type ForeignKey struct {
	Name       string
	Referenced string
}

// column returns the index of the named column, or -1.
func (t *Table) column(name string) int {
	for i, c := range t.Columns {
		if strings.EqualFold(string(c.Name), name) {
			return i
		}
	}
	return -1
}

// isRel is one INFORMATION_SCHEMA table: column names and types as
// Spanner declares them, and rows of nil, string, int64 or bool.
type isRel struct {
	cols  []string
	types []spannerpb.TypeCode
	rows  [][]any
}

const (
	tString = spannerpb.TypeCode_STRING
	tInt64  = spannerpb.TypeCode_INT64
	tBool   = spannerpb.TypeCode_BOOL
)

// isTables lists the INFORMATION_SCHEMA tables answered here, with their
// columns in Spanner's order.
var isTables = map[string][]struct {
	name string
	typ  spannerpb.TypeCode
}{
	"TABLES": {{"TABLE_CATALOG", tString}, {"TABLE_SCHEMA", tString}, {"TABLE_NAME", tString},
		{"PARENT_TABLE_NAME", tString}, {"ON_DELETE_ACTION", tString}, {"TABLE_TYPE", tString},
		{"SPANNER_STATE", tString}, {"INTERLEAVE_TYPE", tString}, {"ROW_DELETION_POLICY_EXPRESSION", tString}},
	"COLUMNS": {{"TABLE_CATALOG", tString}, {"TABLE_SCHEMA", tString}, {"TABLE_NAME", tString},
		{"COLUMN_NAME", tString}, {"ORDINAL_POSITION", tInt64}, {"COLUMN_DEFAULT", tString},
		{"DATA_TYPE", tString}, {"IS_NULLABLE", tString}, {"SPANNER_TYPE", tString},
		{"IS_GENERATED", tString}, {"IS_HIDDEN", tBool}, {"GENERATION_EXPRESSION", tString},
		{"ON_UPDATE_EXPRESSION", tString}, {"IS_STORED", tString}, {"SPANNER_STATE", tString},
		{"IS_IDENTITY", tString}, {"IDENTITY_GENERATION", tString}, {"IDENTITY_KIND", tString},
		{"IDENTITY_START_WITH_COUNTER", tString}, {"IDENTITY_SKIP_RANGE_MIN", tString},
		{"IDENTITY_SKIP_RANGE_MAX", tString}},
	"INDEXES": {{"TABLE_CATALOG", tString}, {"TABLE_SCHEMA", tString}, {"TABLE_NAME", tString},
		{"INDEX_NAME", tString}, {"INDEX_TYPE", tString}, {"PARENT_TABLE_NAME", tString},
		{"IS_UNIQUE", tBool}, {"IS_NULL_FILTERED", tBool}, {"INDEX_STATE", tString},
		{"FILTER", tString}, {"SPANNER_IS_MANAGED", tBool}},
	"INDEX_COLUMNS": {{"TABLE_CATALOG", tString}, {"TABLE_SCHEMA", tString}, {"TABLE_NAME", tString},
		{"INDEX_NAME", tString}, {"INDEX_TYPE", tString}, {"COLUMN_NAME", tString},
		{"ORDINAL_POSITION", tInt64}, {"COLUMN_ORDERING", tString}, {"IS_NULLABLE", tString},
		{"SPANNER_TYPE", tString}},
	"TABLE_CONSTRAINTS": {{"CONSTRAINT_CATALOG", tString}, {"CONSTRAINT_SCHEMA", tString},
		{"CONSTRAINT_NAME", tString}, {"TABLE_CATALOG", tString}, {"TABLE_SCHEMA", tString},
		{"TABLE_NAME", tString}, {"CONSTRAINT_TYPE", tString}, {"IS_DEFERRABLE", tString},
		{"INITIALLY_DEFERRED", tString}, {"ENFORCED", tString}},
	// DATABASE_OPTIONS holds the one option of a GoogleSQL database
	// (spannertest's only dialect), which drivers read on connecting.
	// CONSTRAINT_TABLE_USAGE: the table of each primary key, and the
	// table each foreign key references.
	"CONSTRAINT_TABLE_USAGE": {{"TABLE_CATALOG", tString}, {"TABLE_SCHEMA", tString}, {"TABLE_NAME", tString},
		{"CONSTRAINT_CATALOG", tString}, {"CONSTRAINT_SCHEMA", tString}, {"CONSTRAINT_NAME", tString}},
	"DATABASE_OPTIONS": {{"CATALOG_NAME", tString}, {"SCHEMA_NAME", tString},
		{"OPTION_NAME", tString}, {"OPTION_TYPE", tString}, {"OPTION_VALUE", tString}},
}

// relation builds the rows of an INFORMATION_SCHEMA table from the
// schema snapshot; ok is false for tables not answered here.
func (s *Schema) relation(name string) (*isRel, bool) {
	def, ok := isTables[name]
	if !ok {
		return nil, false
	}
	r := &isRel{}
	for _, d := range def {
		r.cols, r.types = append(r.cols, d.name), append(r.types, d.typ)
	}
	if name == "DATABASE_OPTIONS" {
		r.rows = [][]any{{"", "", "database_dialect", "STRING", "GOOGLE_STANDARD_SQL"}}
		return r, true
	}
	for i := range s.Tables {
		r.rows = append(r.rows, s.rowsOf(name, &s.Tables[i])...)
	}
	if name == "TABLES" {
		for _, v := range s.Views {
			r.rows = append(r.rows, []any{"", "", v, nil, nil, "VIEW", nil, nil, nil})
		}
	}
	return r, true
}

func (s *Schema) rowsOf(rel string, t *Table) [][]any {
	switch rel {
	case "TABLES":
		return [][]any{tableRow(t)}
	case "COLUMNS":
		return columnRows(t)
	case "INDEXES":
		return s.indexRows(t)
	case "INDEX_COLUMNS":
		return s.indexColumnRows(t)
	case "CONSTRAINT_TABLE_USAGE":
		return constraintUsageRows(t)
	default:
		return constraintRows(t)
	}
}

func tableRow(t *Table) []any {
	var parent, onDelete, interleave, rdp any
	if t.Interleave != nil {
		parent, onDelete, interleave = string(t.Interleave.Parent), t.Interleave.OnDelete.SQL(), "IN PARENT"
	}
	if t.RowDeletionPolicy != nil {
		rdp = fmt.Sprintf("OLDER_THAN(%s, INTERVAL %d DAY)", t.RowDeletionPolicy.Column, t.RowDeletionPolicy.NumDays)
	}
	return []any{"", "", t.Name, parent, onDelete, "BASE TABLE", "COMMITTED", interleave, rdp}
}

func columnRows(t *Table) [][]any {
	var rows [][]any
	for i, c := range t.Columns {
		var def, gen, stored any
		isGen := "NEVER"
		if c.Default != nil {
			def = c.Default.SQL()
		}
		if c.Generated != nil {
			gen, stored, isGen = strings.TrimSuffix(strings.TrimPrefix(c.Generated.SQL(), "("), ")"), "YES", "ALWAYS"
		}
		rows = append(rows, []any{"", "", t.Name, string(c.Name), int64(i + 1), def, nil,
			yesNo(!c.NotNull), c.Type.SQL(), isGen, c.Hidden, gen, nil, stored, "COMMITTED",
			"NO", nil, nil, nil, nil, nil})
	}
	return rows
}

func (s *Schema) indexRows(t *Table) [][]any {
	var rows [][]any
	for _, ix := range s.Indexes {
		if strings.EqualFold(string(ix.Table), t.Name) {
			rows = append(rows, []any{"", "", t.Name, string(ix.Name), "INDEX", string(ix.Interleave),
				ix.Unique, ix.NullFiltered, "READ_WRITE", nil, false})
		}
	}
	return append(rows, []any{"", "", t.Name, "PRIMARY_KEY", "PRIMARY_KEY", "", true, false, nil, nil, false})
}

func (s *Schema) indexColumnRows(t *Table) [][]any {
	var rows [][]any
	keyRow := func(index, typ string, pos int, kp spansql.KeyPart, nullFiltered bool) {
		col := t.Columns[max(t.column(string(kp.Column)), 0)]
		order := "ASC"
		if kp.Desc {
			order = "DESC"
		}
		rows = append(rows, []any{"", "", t.Name, index, typ, string(col.Name), int64(pos), order,
			yesNo(!col.NotNull && !nullFiltered), col.Type.SQL()})
	}
	for _, ix := range s.Indexes {
		if !strings.EqualFold(string(ix.Table), t.Name) {
			continue
		}
		for i, kp := range ix.Columns {
			keyRow(string(ix.Name), "INDEX", i+1, kp, ix.NullFiltered)
		}
		for _, stored := range ix.Storing {
			if ci := t.column(string(stored)); ci >= 0 {
				col := t.Columns[ci]
				rows = append(rows, []any{"", "", t.Name, string(ix.Name), "INDEX", string(col.Name), nil, nil,
					yesNo(!col.NotNull), col.Type.SQL()})
			}
		}
	}
	for i, kp := range t.PrimaryKey {
		keyRow("PRIMARY_KEY", "PRIMARY_KEY", i+1, kp, false)
	}
	return rows
}

func constraintRows(t *Table) [][]any {
	row := func(name, typ string) []any {
		return []any{"", "", name, "", "", t.Name, typ, "NO", "NO", "YES"}
	}
	rows := [][]any{row("PK_"+t.Name, "PRIMARY KEY")}
	for _, c := range t.Columns {
		if c.NotNull {
			rows = append(rows, row("CK_IS_NOT_NULL_"+t.Name+"_"+string(c.Name), "CHECK"))
		}
	}
	for _, ck := range t.Checks {
		rows = append(rows, row(ck, "CHECK"))
	}
	for _, fk := range t.ForeignKeys {
		rows = append(rows, row(fk.Name, "FOREIGN KEY"))
	}
	return rows
}

func constraintUsageRows(t *Table) [][]any {
	rows := [][]any{{"", "", t.Name, "", "", "PK_" + t.Name}}
	for _, fk := range t.ForeignKeys {
		rows = append(rows, []any{"", "", fk.Referenced, "", "", fk.Name})
	}
	return rows
}

func yesNo(b bool) string {
	if b {
		return "YES"
	}
	return "NO"
}
