package gormcore

import (
	"fmt"
	"slices"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// Spanner drops no table (in either dialect) that still has secondary
// indexes, interleaved child tables or foreign keys of other tables
// referencing it. DropTables reads those from the catalog first and sends
// what GORM's DROP TABLE means in one go: the indexes, then the tables in
// an order Spanner accepts (children and referencing tables before the
// tables they depend on). A child table or a referencing foreign key that
// is not being dropped blocks the drop with a DropTableError naming it,
// unless the dialect drops such foreign keys (PostgreSQL, as GORM's
// PostgreSQL migrator does with DROP TABLE ... CASCADE). Missing tables
// are skipped, as GORM's DROP TABLE IF EXISTS would.

// DropSQL are a dialect's catalog queries for DropTables. Each binds the
// schema, then the table.
type DropSQL struct {
	// Indexes lists the names of a table's secondary indexes that are not
	// managed by Spanner.
	Indexes string
	// Children lists the schema and name of the tables interleaved in a
	// table.
	Children string
	// ReferencedBy lists the schema, table and name of the foreign keys
	// that reference a table.
	ReferencedBy string
}

// DropTableError is DropTable's error when a table is in use by an
// object that is not dropped with it. Its gRPC code is
// FailedPrecondition.
type DropTableError struct {
	// Dialector is the package that refused ("spannergorm", "spannerpg").
	Dialector string
	// Table is the table that cannot be dropped.
	Table string
	// Child is the interleaved child table that blocks it, or "".
	Child string
	// ForeignKey and ForeignKeyTable are the foreign key that blocks it
	// and the table that holds the key, or "".
	ForeignKey, ForeignKeyTable string
}

func (e *DropTableError) Error() string {
	if e.Child != "" {
		return fmt.Sprintf("%s: DropTable: table %q has the interleaved table %q, which is not being dropped: drop both in one DropTable call, or %q first",
			e.Dialector, e.Table, e.Child, e.Child)
	}
	return fmt.Sprintf("%s: DropTable: table %q is referenced by foreign key %q of table %q, which is not being dropped: drop both in one DropTable call, or drop the constraint first",
		e.Dialector, e.Table, e.ForeignKey, e.ForeignKeyTable)
}

// GRPCStatus gives the error the code FailedPrecondition, which
// status.Code reads.
func (e *DropTableError) GRPCStatus() *status.Status {
	return status.New(codes.FailedPrecondition, e.Error())
}

// foreignKey is a foreign key, by the table that holds it.
type foreignKey struct{ table, name string }

// dropObjects is what stands in the way of dropping one table.
type dropObjects struct {
	indexes      []string
	children     []string
	referencedBy []foreignKey
}

// join is the name GORM gives a table or index of a schema: schema.name,
// or name in the default schema.
func (c Catalog) join(schemaName, name string) string {
	if schemaName == c.DefaultSchema || schemaName == "" {
		return name
	}
	return schemaName + "." + name
}

func (c Catalog) dropObjects(q DropSQL, table string) (dropObjects, error) {
	s, t := c.Split(table)
	var o dropObjects
	var names []string
	if err := c.Raw(q.Indexes, s, t).Scan(&names).Error; err != nil {
		return o, err
	}
	for _, n := range names {
		o.indexes = append(o.indexes, c.join(s, n))
	}
	rows, err := c.Raw(q.Children, s, t).Rows()
	if err != nil {
		return o, err
	}
	for rows.Next() {
		var cs, ct string
		if err := rows.Scan(&cs, &ct); err != nil {
			rows.Close()
			return o, err
		}
		o.children = append(o.children, c.join(cs, ct))
	}
	if err := closeRows(rows); err != nil {
		return o, err
	}
	if rows, err = c.Raw(q.ReferencedBy, s, t).Rows(); err != nil {
		return o, err
	}
	for rows.Next() {
		var fs, ft, fn string
		if err := rows.Scan(&fs, &ft, &fn); err != nil {
			rows.Close()
			return o, err
		}
		o.referencedBy = append(o.referencedBy, foreignKey{table: c.join(fs, ft), name: fn})
	}
	return o, closeRows(rows)
}

func closeRows(rows interface {
	Err() error
	Close() error
}) error {
	if err := rows.Err(); err != nil {
		rows.Close()
		return err
	}
	return rows.Close()
}

// DropTables drops the models' tables that exist, with their indexes,
// sending each statement with exec (the dialector runs it on its DDL
// batch). dropForeignKeys makes a foreign key of a table that is not
// dropped go first instead of blocking the drop. pkg names the dialector
// in errors.
func (c Catalog) DropTables(values []any, q DropSQL, dropForeignKeys bool, pkg string,
	exec func(sql string, vars ...any) error) error {
	// GORM's order, dependents last; reversed below, so they go first.
	values = c.ReorderModels(values, false)
	var tables []string
	for i := len(values) - 1; i >= 0; i-- {
		if err := c.RunWithValue(values[i], func(stmt *gorm.Statement) error {
			if !slices.Contains(tables, stmt.Table) {
				tables = append(tables, stmt.Table)
			}
			return nil
		}); err != nil {
			return err
		}
	}
	objs := map[string]dropObjects{}
	var present []string
	for _, t := range tables {
		s, n := c.Split(t)
		if !c.Count(c.SQL.HasTable, s, n) {
			continue
		}
		o, err := c.dropObjects(q, t)
		if err != nil {
			return err
		}
		objs[t] = o
		present = append(present, t)
	}
	dropped := func(t string) bool { _, ok := objs[t]; return ok }
	// before[t] are the tables that must be dropped before t.
	before := map[string][]string{}
	var fkBefore, outsideKeys []foreignKey
	for _, t := range present {
		o := objs[t]
		for _, child := range o.children {
			if !dropped(child) {
				return &DropTableError{Dialector: pkg, Table: t, Child: child}
			}
			before[t] = append(before[t], child)
		}
		for _, fk := range o.referencedBy {
			switch {
			case fk.table == t:
				// A key to its own table goes with the table.
			case dropped(fk.table):
				before[t] = append(before[t], fk.table)
				fkBefore = append(fkBefore, fk)
			case dropForeignKeys:
				outsideKeys = append(outsideKeys, fk)
			default:
				return &DropTableError{Dialector: pkg, Table: t, ForeignKey: fk.name, ForeignKeyTable: fk.table}
			}
		}
	}
	order, ok := dropOrder(present, before)
	if !ok {
		// Tables whose foreign keys reference each other in a cycle: the
		// keys go first, then only interleaving orders the tables.
		outsideKeys = append(outsideKeys, fkBefore...)
		for _, t := range present {
			before[t] = objs[t].children
		}
		order, _ = dropOrder(present, before)
	}
	for _, fk := range outsideKeys {
		if err := exec("ALTER TABLE ? DROP CONSTRAINT ?", clause.Table{Name: fk.table}, clause.Column{Name: fk.name}); err != nil {
			return err
		}
	}
	for _, t := range order {
		for _, idx := range objs[t].indexes {
			if err := exec("DROP INDEX ?", clause.Table{Name: idx}); err != nil {
				return err
			}
		}
		if err := exec("DROP TABLE ?", clause.Table{Name: t}); err != nil {
			return err
		}
	}
	return nil
}

// dropOrder orders tables so that each comes after the tables in its
// before list, keeping the given order where it is free; false when the
// lists form a cycle.
func dropOrder(tables []string, before map[string][]string) ([]string, bool) {
	done := make(map[string]bool, len(tables))
	order := make([]string, 0, len(tables))
	for len(order) < len(tables) {
		progressed := false
		for _, t := range tables {
			if done[t] {
				continue
			}
			ready := true
			for _, b := range before[t] {
				if !done[b] {
					ready = false
					break
				}
			}
			if ready {
				done[t] = true
				order = append(order, t)
				progressed = true
			}
		}
		if !progressed {
			return nil, false
		}
	}
	return order, true
}
