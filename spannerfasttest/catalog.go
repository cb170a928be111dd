package spannerfasttest

import (
	"fmt"
	"strings"
	"sync"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"cloud.google.com/go/spanner/spansql"
)

// catalog is the schema as Spanner would describe it, kept from the DDL
// statements the engine applied. The engine's own view (GetDatabaseDdl)
// loses column order, indexes, interleaving and constraints, which
// INFORMATION_SCHEMA must report.
type catalog struct {
	mu      sync.Mutex
	tables  []*catTable // in creation order
	indexes []*spansql.CreateIndex
	views   []string
}

type catTable struct {
	name       string
	cols       []spansql.ColumnDef // in declared order
	pk         []spansql.KeyPart
	interleave *spansql.Interleave
	rdp        *spansql.RowDeletionPolicy
	checks     []namedConstraint
	fks        []namedConstraint
}

type namedConstraint struct {
	name string
	c    spansql.Constraint
}

func newCatalog() *catalog { return &catalog{} }

func (c *catalog) tableLocked(name string) *catTable {
	for _, t := range c.tables {
		if strings.EqualFold(t.name, name) {
			return t
		}
	}
	return nil
}

func (c *catalog) indexLocked(name string) int {
	for i, ix := range c.indexes {
		if strings.EqualFold(string(ix.Name), name) {
			return i
		}
	}
	return -1
}

// apply records a statement the engine has applied successfully.
func (c *catalog) apply(stmt spansql.DDLStmt) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch st := stmt.(type) {
	case *spansql.CreateTable:
		if c.tableLocked(string(st.Name)) != nil {
			return // IF NOT EXISTS
		}
		t := &catTable{name: string(st.Name), cols: append([]spansql.ColumnDef(nil), st.Columns...),
			pk: st.PrimaryKey, interleave: st.Interleave, rdp: st.RowDeletionPolicy}
		for _, tc := range st.Constraints {
			t.addConstraint(tc)
		}
		c.tables = append(c.tables, t)
	case *spansql.CreateIndex:
		if c.indexLocked(string(st.Name)) < 0 {
			c.indexes = append(c.indexes, st)
		}
	case *spansql.CreateView:
		if !containsFold(c.views, string(st.Name)) {
			c.views = append(c.views, string(st.Name))
		}
	case *spansql.DropTable:
		c.dropTableLocked(string(st.Name))
	case *spansql.DropIndex:
		if i := c.indexLocked(string(st.Name)); i >= 0 {
			c.indexes = append(c.indexes[:i], c.indexes[i+1:]...)
		}
	case *spansql.DropView:
		for i, v := range c.views {
			if strings.EqualFold(v, string(st.Name)) {
				c.views = append(c.views[:i], c.views[i+1:]...)
				break
			}
		}
	case *spansql.AlterTable:
		if t := c.tableLocked(string(st.Name)); t != nil {
			t.alter(st.Alteration)
		}
	}
}

func (c *catalog) dropTableLocked(name string) {
	var keep []*spansql.CreateIndex
	for _, ix := range c.indexes {
		if !strings.EqualFold(string(ix.Table), name) {
			keep = append(keep, ix)
		}
	}
	c.indexes = keep
	for i, t := range c.tables {
		if strings.EqualFold(t.name, name) {
			c.tables = append(c.tables[:i], c.tables[i+1:]...)
			return
		}
	}
}

func (t *catTable) column(name string) int {
	for i, c := range t.cols {
		if strings.EqualFold(string(c.Name), name) {
			return i
		}
	}
	return -1
}

func (t *catTable) alter(a spansql.TableAlteration) {
	switch alt := a.(type) {
	case spansql.AddColumn:
		if t.column(string(alt.Def.Name)) < 0 {
			t.cols = append(t.cols, alt.Def)
		}
	case spansql.DropColumn:
		if i := t.column(string(alt.Name)); i >= 0 {
			t.cols = append(t.cols[:i], t.cols[i+1:]...)
		}
	case spansql.AlterColumn:
		i := t.column(string(alt.Name))
		if i < 0 {
			return
		}
		switch ca := alt.Alteration.(type) {
		case spansql.SetColumnType:
			t.cols[i].Type, t.cols[i].NotNull, t.cols[i].Default = ca.Type, ca.NotNull, ca.Default
		case spansql.SetDefault:
			t.cols[i].Default = ca.Default
		case spansql.DropDefault:
			t.cols[i].Default = nil
		}
	case spansql.AddConstraint:
		t.addConstraint(alt.Constraint)
	case spansql.DropConstraint:
		t.checks = dropNamed(t.checks, string(alt.Name))
		t.fks = dropNamed(t.fks, string(alt.Name))
	case spansql.AddRowDeletionPolicy:
		t.rdp = &alt.RowDeletionPolicy
	case spansql.ReplaceRowDeletionPolicy:
		t.rdp = &alt.RowDeletionPolicy
	case spansql.DropRowDeletionPolicy:
		t.rdp = nil
	case spansql.SetOnDelete:
		if t.interleave != nil {
			t.interleave = &spansql.Interleave{Parent: t.interleave.Parent, OnDelete: alt.Action}
		}
	}
}

// addConstraint records a CHECK or FOREIGN KEY. Spanner names unnamed
// constraints itself; the names made up here have the same prefixes but
// not Spanner's suffixes.
func (t *catTable) addConstraint(tc spansql.TableConstraint) {
	name := string(tc.Name)
	switch tc.Constraint.(type) {
	case spansql.Check:
		if name == "" {
			name = fmt.Sprintf("CK_%s_%d", t.name, len(t.checks)+1)
		}
		t.checks = append(t.checks, namedConstraint{name, tc.Constraint})
	case spansql.ForeignKey:
		if name == "" {
			name = fmt.Sprintf("FK_%s_%d", t.name, len(t.fks)+1)
		}
		t.fks = append(t.fks, namedConstraint{name, tc.Constraint})
	}
}

func dropNamed(list []namedConstraint, name string) []namedConstraint {
	for i, n := range list {
		if strings.EqualFold(n.name, name) {
			return append(list[:i:i], list[i+1:]...)
		}
	}
	return list
}

func containsFold(list []string, s string) bool {
	for _, v := range list {
		if strings.EqualFold(v, s) {
			return true
		}
	}
	return false
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
}

// relation builds the rows of an INFORMATION_SCHEMA table from the
// current schema; ok is false for tables not answered here.
func (c *catalog) relation(name string) (*isRel, bool) {
	def, ok := isTables[name]
	if !ok {
		return nil, false
	}
	r := &isRel{}
	for _, d := range def {
		r.cols, r.types = append(r.cols, d.name), append(r.types, d.typ)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, t := range c.tables {
		r.rows = append(r.rows, c.rowsOf(name, t)...)
	}
	if name == "TABLES" {
		for _, v := range c.views {
			r.rows = append(r.rows, []any{"", "", v, nil, nil, "VIEW", nil, nil, nil})
		}
	}
	return r, true
}

func (c *catalog) rowsOf(rel string, t *catTable) [][]any {
	switch rel {
	case "TABLES":
		return [][]any{tableRow(t)}
	case "COLUMNS":
		return columnRows(t)
	case "INDEXES":
		return c.indexRows(t)
	case "INDEX_COLUMNS":
		return c.indexColumnRows(t)
	default:
		return constraintRows(t)
	}
}

func tableRow(t *catTable) []any {
	var parent, onDelete, interleave, rdp any
	if t.interleave != nil {
		parent, onDelete, interleave = string(t.interleave.Parent), t.interleave.OnDelete.SQL(), "IN PARENT"
	}
	if t.rdp != nil {
		rdp = fmt.Sprintf("OLDER_THAN(%s, INTERVAL %d DAY)", t.rdp.Column, t.rdp.NumDays)
	}
	return []any{"", "", t.name, parent, onDelete, "BASE TABLE", "COMMITTED", interleave, rdp}
}

func columnRows(t *catTable) [][]any {
	var rows [][]any
	for i, c := range t.cols {
		var def, gen, stored any
		isGen := "NEVER"
		if c.Default != nil {
			def = c.Default.SQL()
		}
		if c.Generated != nil {
			gen, stored, isGen = strings.TrimSuffix(strings.TrimPrefix(c.Generated.SQL(), "("), ")"), "YES", "ALWAYS"
		}
		rows = append(rows, []any{"", "", t.name, string(c.Name), int64(i + 1), def, nil,
			yesNo(!c.NotNull), c.Type.SQL(), isGen, c.Hidden, gen, nil, stored, "COMMITTED",
			"NO", nil, nil, nil, nil, nil})
	}
	return rows
}

func (c *catalog) indexRows(t *catTable) [][]any {
	var rows [][]any
	for _, ix := range c.indexes {
		if strings.EqualFold(string(ix.Table), t.name) {
			rows = append(rows, []any{"", "", t.name, string(ix.Name), "INDEX", string(ix.Interleave),
				ix.Unique, ix.NullFiltered, "READ_WRITE", nil, false})
		}
	}
	return append(rows, []any{"", "", t.name, "PRIMARY_KEY", "PRIMARY_KEY", "", true, false, nil, nil, false})
}

func (c *catalog) indexColumnRows(t *catTable) [][]any {
	var rows [][]any
	keyRow := func(index, typ string, pos int, kp spansql.KeyPart, nullFiltered bool) {
		col := t.cols[max(t.column(string(kp.Column)), 0)]
		order := "ASC"
		if kp.Desc {
			order = "DESC"
		}
		rows = append(rows, []any{"", "", t.name, index, typ, string(col.Name), int64(pos), order,
			yesNo(!col.NotNull && !nullFiltered), col.Type.SQL()})
	}
	for _, ix := range c.indexes {
		if !strings.EqualFold(string(ix.Table), t.name) {
			continue
		}
		for i, kp := range ix.Columns {
			keyRow(string(ix.Name), "INDEX", i+1, kp, ix.NullFiltered)
		}
		for _, s := range ix.Storing {
			if ci := t.column(string(s)); ci >= 0 {
				col := t.cols[ci]
				rows = append(rows, []any{"", "", t.name, string(ix.Name), "INDEX", string(col.Name), nil, nil,
					yesNo(!col.NotNull), col.Type.SQL()})
			}
		}
	}
	for i, kp := range t.pk {
		keyRow("PRIMARY_KEY", "PRIMARY_KEY", i+1, kp, false)
	}
	return rows
}

func constraintRows(t *catTable) [][]any {
	row := func(name, typ string) []any {
		return []any{"", "", name, "", "", t.name, typ, "NO", "NO", "YES"}
	}
	rows := [][]any{row("PK_"+t.name, "PRIMARY KEY")}
	for _, c := range t.cols {
		if c.NotNull {
			rows = append(rows, row("CK_IS_NOT_NULL_"+t.name+"_"+string(c.Name), "CHECK"))
		}
	}
	for _, ck := range t.checks {
		rows = append(rows, row(ck.name, "CHECK"))
	}
	for _, fk := range t.fks {
		rows = append(rows, row(fk.name, "FOREIGN KEY"))
	}
	return rows
}

func yesNo(b bool) string {
	if b {
		return "YES"
	}
	return "NO"
}
