package gormcore

import (
	"fmt"
	"strings"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
	"gorm.io/gorm/migrator"
	"gorm.io/gorm/schema"
)

// CreateTableIndexes creates the indexes of a new table: those of index
// tags, and a unique index for each unique field, as Spanner has no
// UNIQUE constraint in either dialect. table is the quoted table
// (Migrator.CurrentTable).
func CreateTableIndexes(tx *gorm.DB, stmt *gorm.Statement, value any, table any) error {
	for _, idx := range stmt.Schema.ParseIndexes() {
		if err := tx.Migrator().CreateIndex(value, idx.Name); err != nil {
			return err
		}
	}
	for _, name := range stmt.Schema.DBNames {
		f := stmt.Schema.FieldsByDBName[name]
		if !f.Unique || f.PrimaryKey || f.IgnoreMigration {
			continue
		}
		err := tx.Exec("CREATE UNIQUE INDEX ? ON ??",
			clause.Column{Name: tx.NamingStrategy.UniqueName(stmt.Table, name)},
			table, []any{clause.Column{Name: name}}).Error
		if err != nil {
			return err
		}
	}
	return nil
}

// IsIdentity reports whether a field is an auto-increment integer primary
// key without a default of its own: both dialects generate its values
// (sequences.go), by default as an IDENTITY column on a bit-reversed
// sequence, Spanner's way to spread new keys instead of hot-spotting one
// split.
func IsIdentity(f *schema.Field) bool {
	return f.AutoIncrement && f.PrimaryKey &&
		f.DefaultValue == "" && f.DefaultValueInterface == nil &&
		(f.DataType == schema.Int || f.DataType == schema.Uint)
}

// TableDDL is what differs between the dialects' CREATE TABLE.
type TableDDL struct {
	// Sep separates the elements inside the parentheses.
	Sep string
	// KeyInside puts PRIMARY KEY (...) inside the parentheses, after the
	// columns (PostgreSQL); otherwise it follows them (GoogleSQL).
	KeyInside bool
	// InterleaveSep comes before INTERLEAVE IN PARENT.
	InterleaveSep string
}

// CreateTableSQL builds a CREATE TABLE statement for the model: columns,
// primary key, foreign keys, check constraints, the interleave of an
// Interleaved model and GORM's table options. table is the quoted table.
func CreateTableSQL(db *gorm.DB, stmt *gorm.Statement, value, table any, d TableDDL) (string, []any) {
	var b strings.Builder
	vars := []any{table}
	b.WriteString("CREATE TABLE ? (")
	n := 0
	add := func(sql string, v ...any) {
		if n > 0 {
			b.WriteString(d.Sep)
		}
		n++
		b.WriteString(sql)
		vars = append(vars, v...)
	}
	for _, name := range stmt.Schema.DBNames {
		f := stmt.Schema.FieldsByDBName[name]
		if !f.IgnoreMigration {
			add("? ?", clause.Column{Name: name}, db.Migrator().FullDataTypeOf(f))
		}
	}
	keys := make([]any, 0, len(stmt.Schema.PrimaryFields))
	for _, f := range stmt.Schema.PrimaryFields {
		keys = append(keys, clause.Column{Name: f.DBName})
	}
	if d.KeyInside && len(keys) > 0 {
		add("PRIMARY KEY ?", keys)
	}
	if !db.DisableForeignKeyConstraintWhenMigrating && !db.IgnoreRelationshipsWhenMigrating {
		for _, rel := range stmt.Schema.Relationships.Relations {
			if c := rel.ParseConstraint(); c != nil && c.Schema == stmt.Schema && !rel.Field.IgnoreMigration {
				sql, v := c.Build()
				add(sql, v...)
			}
		}
	}
	for _, chk := range stmt.Schema.ParseCheckConstraints() {
		add("CONSTRAINT ? CHECK (?)", clause.Column{Name: chk.Name}, clause.Expr{SQL: chk.Constraint})
	}
	b.WriteString(")")
	if !d.KeyInside {
		if len(keys) == 0 {
			b.WriteString(" PRIMARY KEY ()")
		} else {
			b.WriteString(" PRIMARY KEY ?")
			vars = append(vars, keys)
		}
	}
	if il, ok := value.(Interleaved); ok {
		p := il.InterleaveInParent()
		b.WriteString(d.InterleaveSep + "INTERLEAVE IN PARENT ? ON DELETE " + p.OnDelete())
		vars = append(vars, clause.Table{Name: p.Parent})
	}
	if opt, ok := db.Get("gorm:table_options"); ok {
		b.WriteString(fmt.Sprint(opt))
	}
	return b.String(), vars
}

// CreateTables creates the tables of the models in dependency order, each
// followed by its indexes. prepare runs first for each (sequences, checks);
// build returns the CREATE TABLE statement.
func CreateTables(m migrator.Migrator, values []any,
	prepare func(tx *gorm.DB, stmt *gorm.Statement, value any) error,
	build func(stmt *gorm.Statement, value any) (string, []any),
) error {
	for _, value := range m.ReorderModels(values, false) {
		tx := m.DB.Session(&gorm.Session{})
		if err := m.RunWithValue(value, func(stmt *gorm.Statement) error {
			if err := prepare(tx, stmt, value); err != nil {
				return err
			}
			sql, vars := build(stmt, value)
			if err := tx.Exec(sql, vars...).Error; err != nil {
				return err
			}
			return CreateTableIndexes(tx, stmt, value, m.CurrentTable(stmt))
		}); err != nil {
			return err
		}
	}
	return nil
}

// AlterField runs sql (ALTER TABLE ? ADD|ALTER COLUMN ? ?) with the
// table, the field's column and its definition. skip, if set, leaves a
// column alone; pkg names the dialector in the error for an unknown field.
func AlterField(m migrator.Migrator, pkg string, value any, name, sql string, skip func(stmt *gorm.Statement, f *schema.Field) bool) error {
	return m.RunWithValue(value, func(stmt *gorm.Statement) error {
		f := stmt.Schema.LookUpField(name)
		if f == nil {
			return fmt.Errorf("%s: model %s has no field %q", pkg, stmt.Schema.Name, name)
		}
		if f.IgnoreMigration || (skip != nil && skip(stmt, f)) {
			return nil
		}
		return m.DB.Exec(sql, m.CurrentTable(stmt), clause.Column{Name: f.DBName},
			m.DB.Migrator().FullDataTypeOf(f)).Error
	})
}
