package spannerfasttest

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"cloud.google.com/go/spanner/spansql"
	"github.com/spannerfast/spannerfast/spannerfasttest/internal/infoschema"
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

var _ infoschema.Catalog = (*catalog)(nil)

// Schema returns a snapshot of the catalog for INFORMATION_SCHEMA: copies
// of the lists DDL changes in place, so that a query sees one schema
// while DDL goes on.
func (c *catalog) Schema() infoschema.Schema {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := infoschema.Schema{Indexes: slices.Clone(c.indexes), Views: slices.Clone(c.views)}
	for _, t := range c.tables {
		st := infoschema.Table{Name: t.name, Columns: slices.Clone(t.cols), PrimaryKey: t.pk,
			Interleave: t.interleave, RowDeletionPolicy: t.rdp}
		for _, ck := range t.checks {
			st.Checks = append(st.Checks, ck.name)
		}
		for _, fk := range t.fks {
			ref := fk.c.(spansql.ForeignKey).RefTable
			st.ForeignKeys = append(st.ForeignKeys, infoschema.ForeignKey{Name: fk.name, Referenced: string(ref)})
		}
		s.Tables = append(s.Tables, st)
	}
	return s
}

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
