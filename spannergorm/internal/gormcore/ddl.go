package gormcore

import (
	"gorm.io/gorm"
	"gorm.io/gorm/clause"
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
// key without a default of its own: both dialects create it as an
// IDENTITY column on a bit-reversed sequence, Spanner's way to spread new
// keys instead of hot-spotting one split.
func IsIdentity(f *schema.Field) bool {
	return f.AutoIncrement && f.PrimaryKey &&
		f.DefaultValue == "" && f.DefaultValueInterface == nil &&
		(f.DataType == schema.Int || f.DataType == schema.Uint)
}
