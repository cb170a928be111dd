package gormcore

import (
	"database/sql"

	"gorm.io/gorm"
	"gorm.io/gorm/migrator"
	"gorm.io/gorm/schema"
)

// CatalogSQL are a dialect's information_schema queries. Each binds the
// schema first, then the table (and a column, index or constraint name).
type CatalogSQL struct {
	HasTable, GetTables, HasColumn, HasIndex, HasConstraint, KeyColumns string
}

// Catalog answers GORM's Has* questions and lists tables and key columns
// for both dialects; what differs is the query text, how a table name
// splits into schema and table, and how a query runs (the PostgreSQL
// migrator reads the schema even in a dry run).
type Catalog struct {
	migrator.Migrator
	SQL CatalogSQL
	// DefaultSchema is the schema GetTables lists.
	DefaultSchema string
	// Split returns the schema and table that a table name binds.
	Split func(table string) (schemaName, name string)
	// Raw runs a query.
	Raw func(sql string, args ...any) *gorm.DB
}

// Count runs a COUNT(*) query and reports whether it found anything; a
// failed query counts as not found, as GORM's Has* methods have no error.
func (c Catalog) Count(sql string, args ...any) bool {
	var n int64
	_ = c.Raw(sql, args...).Row().Scan(&n)
	return n > 0
}

// HasTable reports whether the model's table exists.
func (c Catalog) HasTable(value any) bool {
	found := false
	_ = c.RunWithValue(value, func(stmt *gorm.Statement) error {
		s, t := c.Split(stmt.Table)
		found = c.Count(c.SQL.HasTable, s, t)
		return nil
	})
	return found
}

// GetTables returns the names of the tables in the default schema.
func (c Catalog) GetTables() ([]string, error) {
	var names []string
	err := c.Raw(c.SQL.GetTables, c.DefaultSchema).Scan(&names).Error
	return names, err
}

// HasColumn reports whether the column of a field (or a column name)
// exists.
func (c Catalog) HasColumn(value any, name string) bool {
	return c.hasNamed(value, name, c.SQL.HasColumn, func(sc *schema.Schema) string {
		if f := sc.LookUpField(name); f != nil {
			return f.DBName
		}
		return name
	})
}

// HasIndex reports whether an index (by model index name or name) exists.
func (c Catalog) HasIndex(value any, name string) bool {
	return c.hasNamed(value, name, c.SQL.HasIndex, func(sc *schema.Schema) string {
		if idx := sc.LookIndex(name); idx != nil {
			return idx.Name
		}
		return name
	})
}

// hasNamed counts with sql the table's object called name, or what the
// model's schema resolves name to.
func (c Catalog) hasNamed(value any, name, sql string, resolve func(*schema.Schema) string) bool {
	found := false
	_ = c.RunWithValue(value, func(stmt *gorm.Statement) error {
		if stmt.Schema != nil {
			name = resolve(stmt.Schema)
		}
		s, t := c.Split(stmt.Table)
		found = c.Count(sql, s, t, name)
		return nil
	})
	return found
}

// HasConstraint reports whether a foreign key or check constraint exists.
func (c Catalog) HasConstraint(value any, name string) bool {
	found := false
	_ = c.RunWithValue(value, func(stmt *gorm.Statement) error {
		con, table := c.GuessConstraintInterfaceAndTable(stmt, name)
		if con != nil {
			name = con.GetName()
		}
		s, t := c.Split(table)
		found = c.Count(c.SQL.HasConstraint, s, t, name)
		return nil
	})
	return found
}

// KeyColumns returns the set of a table's primary key columns.
func (c Catalog) KeyColumns(table string) (map[string]bool, error) {
	s, t := c.Split(table)
	var names []string
	if err := c.Raw(c.SQL.KeyColumns, s, t).Scan(&names).Error; err != nil {
		return nil, err
	}
	keys := make(map[string]bool, len(names))
	for _, n := range names {
		keys[n] = true
	}
	return keys, nil
}

// IndexRow reads one row of a dialect's index query: the index, whether
// it is unique, its INDEX_TYPE and one key column.
type IndexRow func(rows *sql.Rows) (name string, unique bool, kind, column string, err error)

// Indexes returns the indexes of the model's table from query, which
// lists each index's key columns in order; the primary key (PRIMARY_KEY)
// is among them.
func (c Catalog) Indexes(value any, query string, scan IndexRow) ([]gorm.Index, error) {
	var out []gorm.Index
	err := c.RunWithValue(value, func(stmt *gorm.Statement) error {
		s, t := c.Split(stmt.Table)
		rows, err := c.Raw(query, s, t).Rows()
		if err != nil {
			return err
		}
		byName := map[string]*migrator.Index{}
		for rows.Next() {
			name, unique, kind, column, err := scan(rows)
			if err != nil {
				rows.Close()
				return err
			}
			idx := byName[name]
			if idx == nil {
				idx = &migrator.Index{
					TableName:       t,
					NameValue:       name,
					PrimaryKeyValue: sql.NullBool{Bool: kind == "PRIMARY_KEY", Valid: true},
					UniqueValue:     sql.NullBool{Bool: unique, Valid: true},
				}
				byName[name] = idx
				out = append(out, idx)
			}
			idx.ColumnList = append(idx.ColumnList, column)
		}
		if err := rows.Err(); err != nil {
			rows.Close()
			return err
		}
		return rows.Close()
	})
	return out, err
}
