package spannergorm

import (
	"database/sql"

	"gorm.io/gorm"
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
	return m.catalog().Indexes(value, indexesSQL, func(rows *sql.Rows) (name string, unique bool, kind, column string, err error) {
		err = rows.Scan(&name, &unique, &kind, &column)
		return
	})
}

// isGenerated reports whether a column is generated (AS (...) STORED),
// which AlterColumn leaves alone: Spanner cannot alter one to a plain
// column's definition.
func (m Migrator) isGenerated(table, column string) bool {
	return m.catalog().Count(generatedSQL, m.CurrentDatabase(), table, column)
}
