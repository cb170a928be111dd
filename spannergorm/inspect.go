package spannergorm

import (
	"database/sql"

	"gorm.io/gorm"
	"gorm.io/gorm/migrator"
)

// The INFORMATION_SCHEMA queries of GetIndexes and of AlterColumn's check
// for generated columns. Indexes Spanner manages itself (those backing
// foreign keys) and STORING columns (no ordinal position) are left out.
const (
	indexesSQL = "SELECT i.INDEX_NAME, i.IS_UNIQUE, i.INDEX_TYPE, ic.COLUMN_NAME FROM INFORMATION_SCHEMA.INDEXES i " +
		"JOIN INFORMATION_SCHEMA.INDEX_COLUMNS ic ON ic.TABLE_SCHEMA = i.TABLE_SCHEMA AND ic.TABLE_NAME = i.TABLE_NAME AND ic.INDEX_NAME = i.INDEX_NAME " +
		"WHERE i.TABLE_SCHEMA = ? AND i.TABLE_NAME = ? AND NOT i.SPANNER_IS_MANAGED AND ic.ORDINAL_POSITION IS NOT NULL " +
		"ORDER BY i.INDEX_NAME, ic.ORDINAL_POSITION"
	generatedSQL = "SELECT COUNT(*) FROM INFORMATION_SCHEMA.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? AND COLUMN_NAME = ? AND GENERATION_EXPRESSION IS NOT NULL"
)

// GetIndexes returns the indexes of the model's table with their key
// columns in order, the primary key (PRIMARY_KEY) among them.
func (m Migrator) GetIndexes(value any) ([]gorm.Index, error) {
	var out []gorm.Index
	err := m.RunWithValue(value, func(stmt *gorm.Statement) error {
		rows, err := m.DB.Raw(indexesSQL, m.CurrentDatabase(), stmt.Table).Rows()
		if err != nil {
			return err
		}
		defer rows.Close()
		byName := map[string]*migrator.Index{}
		for rows.Next() {
			var name, kind, column string
			var unique bool
			if err := rows.Scan(&name, &unique, &kind, &column); err != nil {
				return err
			}
			idx := byName[name]
			if idx == nil {
				idx = &migrator.Index{
					TableName:       stmt.Table,
					NameValue:       name,
					PrimaryKeyValue: sql.NullBool{Bool: kind == "PRIMARY_KEY", Valid: true},
					UniqueValue:     sql.NullBool{Bool: unique, Valid: true},
				}
				byName[name] = idx
				out = append(out, idx)
			}
			idx.ColumnList = append(idx.ColumnList, column)
		}
		return rows.Err()
	})
	return out, err
}

// isGenerated reports whether a column is generated (AS (...) STORED),
// which AlterColumn leaves alone: Spanner cannot alter one to a plain
// column's definition.
func (m Migrator) isGenerated(table, column string) bool {
	return m.catalog().Count(generatedSQL, m.CurrentDatabase(), table, column)
}
