package spannergorm

import (
	"database/sql"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
	"gorm.io/gorm/migrator"
	"gorm.io/gorm/schema"

	"github.com/spannerfast/spannerfast/spannergorm/internal/gormcore"
)

// The migrator's INFORMATION_SCHEMA queries. TABLE_SCHEMA is bound to ""
// (the default schema, CurrentDatabase).
const (
	hasTableSQL      = "SELECT COUNT(*) FROM INFORMATION_SCHEMA.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? AND TABLE_TYPE = 'BASE TABLE'"
	getTablesSQL     = "SELECT TABLE_NAME FROM INFORMATION_SCHEMA.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_TYPE = 'BASE TABLE' ORDER BY TABLE_NAME"
	hasColumnSQL     = "SELECT COUNT(*) FROM INFORMATION_SCHEMA.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? AND COLUMN_NAME = ?"
	hasIndexSQL      = "SELECT COUNT(*) FROM INFORMATION_SCHEMA.INDEXES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? AND INDEX_NAME = ?"
	hasConstraintSQL = "SELECT COUNT(*) FROM INFORMATION_SCHEMA.TABLE_CONSTRAINTS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? AND CONSTRAINT_NAME = ?"
	columnsSQL       = "SELECT COLUMN_NAME, SPANNER_TYPE, IS_NULLABLE, COLUMN_DEFAULT FROM INFORMATION_SCHEMA.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION"
	keyColumnsSQL    = "SELECT COLUMN_NAME FROM INFORMATION_SCHEMA.INDEX_COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? AND INDEX_TYPE = 'PRIMARY_KEY'"
)

// dropSQL finds what must go before a table can be dropped.
var dropSQL = gormcore.DropSQL{
	Indexes:  "SELECT INDEX_NAME FROM INFORMATION_SCHEMA.INDEXES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? AND INDEX_TYPE = 'INDEX' AND NOT SPANNER_IS_MANAGED ORDER BY INDEX_NAME",
	Children: "SELECT TABLE_SCHEMA, TABLE_NAME FROM INFORMATION_SCHEMA.TABLES WHERE TABLE_SCHEMA = ? AND PARENT_TABLE_NAME = ? ORDER BY TABLE_NAME",
	ReferencedBy: "SELECT TC.TABLE_SCHEMA, TC.TABLE_NAME, TC.CONSTRAINT_NAME FROM INFORMATION_SCHEMA.CONSTRAINT_TABLE_USAGE AS CTU " +
		"JOIN INFORMATION_SCHEMA.TABLE_CONSTRAINTS AS TC ON TC.CONSTRAINT_CATALOG = CTU.CONSTRAINT_CATALOG AND TC.CONSTRAINT_SCHEMA = CTU.CONSTRAINT_SCHEMA AND TC.CONSTRAINT_NAME = CTU.CONSTRAINT_NAME " +
		"WHERE CTU.TABLE_SCHEMA = ? AND CTU.TABLE_NAME = ? AND TC.CONSTRAINT_TYPE = 'FOREIGN KEY' ORDER BY TC.TABLE_NAME, TC.CONSTRAINT_NAME",
}

// DropTableError is DropTable's error when an interleaved child table or
// a foreign key of a table that is not being dropped blocks the drop
// (gRPC code FailedPrecondition).
type DropTableError = gormcore.DropTableError

// Interleave places a table in its parent's splits; a model says so by
// implementing Interleaved.
type Interleave = gormcore.Interleave

// Interleaved is implemented by models whose table is interleaved in a
// parent table. The child's primary key must start with the parent's.
type Interleaved = gormcore.Interleaved

// UnpinnablePoolError is AutoMigrate's error when the connection pool GORM
// hands the migrator cannot be reduced to one connection for the DDL
// batch (see docs/gorm.md, "PrepareStmt and other session modes").
type UnpinnablePoolError = gormcore.UnpinnablePoolError

// Migrator is the gorm.Migrator for Spanner. It is what db.Migrator()
// returns.
type Migrator struct {
	migrator.Migrator
	dialector Dialector
}

// CurrentDatabase is the schema name of the default schema: "".
func (m Migrator) CurrentDatabase() string { return "" }

// GetTypeAliases: Spanner type names have no aliases.
func (m Migrator) GetTypeAliases(string) []string { return nil }

// AutoMigrate creates and alters the tables of the models. All its DDL
// goes in one batch (START BATCH DDL ... RUN BATCH) on one connection,
// unless the Config disables batching or the session is a dry run.
func (m Migrator) AutoMigrate(values ...any) error {
	if m.DB.DryRun || m.dialector.DisableAutoMigrateBatching {
		return m.Migrator.AutoMigrate(values...)
	}
	return m.inBatch(func(mg Migrator) error { return mg.Migrator.AutoMigrate(values...) })
}

// StartBatchDDL starts a DDL batch on the migrator's connection.
func (m Migrator) StartBatchDDL() error { return m.DB.Exec("START BATCH DDL").Error }

// RunBatch sends the DDL batch.
func (m Migrator) RunBatch() error { return m.DB.Exec("RUN BATCH").Error }

// AbortBatch drops the DDL batch.
func (m Migrator) AbortBatch() error { return m.DB.Exec("ABORT BATCH").Error }

// inBatch runs fn with a migrator pinned to one connection, inside a DDL
// batch.
func (m Migrator) inBatch(fn func(Migrator) error) error {
	return gormcore.InBatch(m.DB, func(db *gorm.DB) Migrator { return m.dialector.Migrator(db).(Migrator) }, fn)
}

// MigrationStatements returns the DDL statements that AutoMigrate would
// send for the models, without sending them. It reads INFORMATION_SCHEMA
// as AutoMigrate does, so the statements are those that bring the current
// schema up to date.
func MigrationStatements(db *gorm.DB, values ...any) ([]string, error) {
	return gormcore.Record(db, func(tx *gorm.DB) error {
		mg, ok := tx.Migrator().(Migrator)
		if !ok {
			return fmt.Errorf("spannergorm: MigrationStatements: dialector %q is not spannergorm's", db.Dialector.Name())
		}
		return mg.Migrator.AutoMigrate(values...)
	})
}

// FullDataTypeOf returns a column definition after the name: type,
// NOT NULL, DEFAULT or IDENTITY, and OPTIONS.
func (m Migrator) FullDataTypeOf(field *schema.Field) clause.Expr {
	var b strings.Builder
	b.WriteString(m.DataTypeOf(field))
	if key := m.keyDefinition(field); key != "" {
		b.WriteString(key)
		return clause.Expr{SQL: b.String()}
	}
	if field.NotNull {
		b.WriteString(" NOT NULL")
	}
	if d := m.defaultSQL(field); d != "" {
		b.WriteString(" DEFAULT (" + d + ")")
	}
	if isCommitTimestamp(field) {
		b.WriteString(" OPTIONS (allow_commit_timestamp=true)")
	}
	return clause.Expr{SQL: b.String()}
}

func (m Migrator) defaultSQL(f *schema.Field) string {
	switch {
	case !f.HasDefaultValue:
		return ""
	case f.DefaultValueInterface != nil:
		return m.dialector.Explain("?", f.DefaultValueInterface)
	case f.DefaultValue != "" && f.DefaultValue != "(-)":
		return f.DefaultValue
	}
	return ""
}

// isCommitTimestamp reports whether a field's column takes the commit
// timestamp: a CommitTimestamp field or the tag commitTimestamp.
func isCommitTimestamp(f *schema.Field) bool {
	_, tagged := f.TagSettings["COMMITTIMESTAMP"]
	return tagged || f.IndirectFieldType == reflect.TypeFor[CommitTimestamp]()
}

// CreateTable creates the tables of the models, each followed by its
// indexes (Spanner has no index clauses inside CREATE TABLE).
func (m Migrator) CreateTable(values ...any) error {
	return gormcore.CreateTables(m.Migrator, values,
		func(tx *gorm.DB, stmt *gorm.Statement, _ any) error { return m.createSequences(tx, stmt) },
		m.createTableSQL)
}

// tableDDL: elements split by ", ", the key after the parentheses, and
// the interleave after a comma.
var tableDDL = gormcore.TableDDL{Sep: ", ", InterleaveSep: ", "}

func (m Migrator) createTableSQL(stmt *gorm.Statement, value any) (string, []any) {
	return gormcore.CreateTableSQL(m.DB, stmt, value, m.CurrentTable(stmt), tableDDL)
}

// CreateIndex creates an index of the model: CREATE [UNIQUE]
// [NULL_FILTERED] INDEX, from the index tag's class; its option (such as
// STORING (...) or , INTERLEAVE IN t) follows the column list.
func (m Migrator) CreateIndex(value any, name string) error {
	return m.RunWithValue(value, func(stmt *gorm.Statement) error {
		idx := stmt.Schema.LookIndex(name)
		if idx == nil {
			return fmt.Errorf("spannergorm: CreateIndex: model %s has no index %q", stmt.Schema.Name, name)
		}
		var b strings.Builder
		b.WriteString("CREATE ")
		if idx.Class != "" {
			b.WriteString(strings.ToUpper(idx.Class) + " ")
		}
		b.WriteString("INDEX ? ON ??")
		if idx.Option != "" {
			b.WriteString(" " + idx.Option)
		}
		opts := m.DB.Migrator().(migrator.BuildIndexOptionsInterface).BuildIndexOptions(idx.Fields, stmt)
		return m.DB.Exec(b.String(), clause.Column{Name: idx.Name}, m.CurrentTable(stmt), opts).Error
	})
}

// DropIndex drops an index by its name or the model's index name.
func (m Migrator) DropIndex(value any, name string) error {
	return m.RunWithValue(value, func(stmt *gorm.Statement) error {
		if stmt.Schema != nil {
			if idx := stmt.Schema.LookIndex(name); idx != nil {
				name = idx.Name
			}
		}
		return m.DB.Exec("DROP INDEX ?", clause.Column{Name: name}).Error
	})
}

// DropTable drops the models' tables that exist, with their secondary
// indexes, children and referencing tables first, in one DDL batch
// (statement by statement under DisableAutoMigrateBatching). A table with
// an interleaved child or a foreign key of another table that is not
// being dropped is refused with a DropTableError naming it.
func (m Migrator) DropTable(values ...any) error {
	if m.DB.DryRun || m.dialector.DisableAutoMigrateBatching {
		return m.dropTables(values)
	}
	return m.inBatch(func(mg Migrator) error { return mg.dropTables(values) })
}

func (m Migrator) dropTables(values []any) error {
	c := m.catalog()
	// The catalog is read even in a dry run, so that it shows what would
	// be dropped.
	c.Raw = func(sql string, args ...any) *gorm.DB {
		tx := m.DB
		if tx.DryRun {
			tx = tx.Session(&gorm.Session{})
			tx.DryRun = false
		}
		return tx.Raw(sql, args...)
	}
	return c.DropTables(values, dropSQL, false, "spannergorm", func(sql string, vars ...any) error {
		return m.DB.Exec(sql, vars...).Error
	})
}

// AddColumn adds a model field's column (ALTER TABLE ... ADD COLUMN).
func (m Migrator) AddColumn(value any, name string) error {
	return gormcore.AlterField(m.Migrator, "spannergorm", value, name, "ALTER TABLE ? ADD COLUMN ? ?", nil)
}

// AlterColumn changes a column to the field's definition; a generated
// column is left alone.
func (m Migrator) AlterColumn(value any, name string) error {
	return gormcore.AlterField(m.Migrator, "spannergorm", value, name, "ALTER TABLE ? ALTER COLUMN ? ?",
		func(stmt *gorm.Statement, f *schema.Field) bool { return m.isGenerated(stmt.Table, f.DBName) })
}

// catalog answers the Has* questions from INFORMATION_SCHEMA's default
// schema ("", CurrentDatabase).
func (m Migrator) catalog() gormcore.Catalog {
	return gormcore.Catalog{
		Migrator: m.Migrator,
		SQL: gormcore.CatalogSQL{HasTable: hasTableSQL, GetTables: getTablesSQL, HasColumn: hasColumnSQL,
			HasIndex: hasIndexSQL, HasConstraint: hasConstraintSQL, KeyColumns: keyColumnsSQL},
		DefaultSchema: m.CurrentDatabase(),
		Split:         func(table string) (string, string) { return m.CurrentDatabase(), table },
		Raw:           m.DB.Raw,
	}
}

// HasTable reports whether the model's table exists.
func (m Migrator) HasTable(value any) bool { return m.catalog().HasTable(value) }

// GetTables returns the names of the tables in the default schema.
func (m Migrator) GetTables() ([]string, error) { return m.catalog().GetTables() }

// HasColumn reports whether the column of a field (or a column name)
// exists.
func (m Migrator) HasColumn(value any, name string) bool { return m.catalog().HasColumn(value, name) }

// HasIndex reports whether an index (by model index name or name) exists.
func (m Migrator) HasIndex(value any, name string) bool { return m.catalog().HasIndex(value, name) }

// HasConstraint reports whether a foreign key or check constraint exists.
func (m Migrator) HasConstraint(value any, name string) bool {
	return m.catalog().HasConstraint(value, name)
}

// ColumnTypes returns the columns of the model's table from
// INFORMATION_SCHEMA: name, SPANNER_TYPE as the database type, length of
// STRING(n) and BYTES(n), nullability, default and primary key.
func (m Migrator) ColumnTypes(value any) ([]gorm.ColumnType, error) {
	var out []gorm.ColumnType
	err := m.RunWithValue(value, func(stmt *gorm.Statement) error {
		keys, err := m.catalog().KeyColumns(stmt.Table)
		if err != nil {
			return err
		}
		rows, err := m.DB.Raw(columnsSQL, m.CurrentDatabase(), stmt.Table).Rows()
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var name, typ, nullable string
			var def sql.NullString
			if err := rows.Scan(&name, &typ, &nullable, &def); err != nil {
				return err
			}
			out = append(out, columnType(name, typ, nullable, def, keys[name]))
		}
		return rows.Err()
	})
	return out, err
}

func columnType(name, typ, nullable string, def sql.NullString, key bool) migrator.ColumnType {
	ct := migrator.ColumnType{
		SQLColumnType:     &sql.ColumnType{},
		NameValue:         sql.NullString{String: name, Valid: true},
		DataTypeValue:     sql.NullString{String: typ, Valid: true},
		ColumnTypeValue:   sql.NullString{String: typ, Valid: true},
		PrimaryKeyValue:   sql.NullBool{Bool: key, Valid: true},
		NullableValue:     sql.NullBool{Bool: nullable == "YES", Valid: true},
		DefaultValueValue: def,
	}
	if n, ok := typeLength(typ); ok {
		ct.LengthValue = sql.NullInt64{Int64: n, Valid: true}
	}
	return ct
}

// typeLength returns n of STRING(n) or BYTES(n).
func typeLength(typ string) (int64, bool) {
	open, end := strings.IndexByte(typ, '('), len(typ)-1
	if open < 0 || typ[end] != ')' || strings.HasPrefix(typ, "ARRAY<") {
		return 0, false
	}
	n, err := strconv.ParseInt(typ[open+1:end], 10, 64)
	return n, err == nil
}
