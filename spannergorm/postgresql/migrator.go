package spannerpg

import (
	"database/sql"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"
	"gorm.io/gorm/migrator"
	"gorm.io/gorm/schema"

	"github.com/spannerfast/spannerfast/spannergorm/internal/gormcore"
)

// defaultSchema is the schema of a table name without one. Spanner's
// information_schema names it; CURRENT_SCHEMA() is not needed.
const defaultSchema = "public"

// The migrator's information_schema queries; ? is rendered as $n.
const (
	hasTableSQL      = "SELECT count(*) FROM information_schema.tables WHERE table_schema = ? AND table_name = ? AND table_type = 'BASE TABLE'"
	getTablesSQL     = "SELECT table_name FROM information_schema.tables WHERE table_schema = ? AND table_type = 'BASE TABLE' ORDER BY table_name"
	hasColumnSQL     = "SELECT count(*) FROM information_schema.columns WHERE table_schema = ? AND table_name = ? AND column_name = ?"
	hasIndexSQL      = "SELECT count(*) FROM information_schema.indexes WHERE table_schema = ? AND table_name = ? AND index_name = ?"
	hasConstraintSQL = "SELECT count(*) FROM information_schema.table_constraints WHERE table_schema = ? AND table_name = ? AND constraint_name = ?"
	columnsSQL       = "SELECT column_name, spanner_type, is_nullable, column_default, is_identity, generation_expression FROM information_schema.columns WHERE table_schema = ? AND table_name = ? ORDER BY ordinal_position"
	keyColumnsSQL    = "SELECT column_name FROM information_schema.index_columns WHERE table_schema = ? AND table_name = ? AND index_type = 'PRIMARY_KEY'"
	indexesSQL       = "SELECT i.index_name, i.is_unique, i.index_type, ic.column_name FROM information_schema.indexes i JOIN information_schema.index_columns ic ON ic.table_schema = i.table_schema AND ic.table_name = i.table_name AND ic.index_name = i.index_name WHERE i.table_schema = ? AND i.table_name = ? AND i.spanner_is_managed = 'NO' AND ic.ordinal_position IS NOT NULL ORDER BY i.index_name, ic.ordinal_position"
)

// dropSQL finds what must go before a table can be dropped.
var dropSQL = gormcore.DropSQL{
	Indexes:      "SELECT index_name FROM information_schema.indexes WHERE table_schema = ? AND table_name = ? AND index_type = 'INDEX' AND spanner_is_managed = 'NO' ORDER BY index_name",
	Children:     "SELECT table_schema, table_name FROM information_schema.tables WHERE table_schema = ? AND parent_table_name = ? ORDER BY table_name",
	ReferencedBy: "SELECT tc.table_schema, tc.table_name, tc.constraint_name FROM information_schema.constraint_table_usage ctu JOIN information_schema.table_constraints tc ON tc.constraint_catalog = ctu.constraint_catalog AND tc.constraint_schema = ctu.constraint_schema AND tc.constraint_name = ctu.constraint_name WHERE ctu.table_schema = ? AND ctu.table_name = ? AND tc.constraint_type = 'FOREIGN KEY' ORDER BY tc.table_name, tc.constraint_name",
}

// Interleave places a table in its parent's splits; a model says so by
// implementing Interleaved. It is spannergorm.Interleave.
type Interleave = gormcore.Interleave

// Interleaved is implemented by models whose table is interleaved in a
// parent table; it is spannergorm.Interleaved.
type Interleaved = gormcore.Interleaved

// Migrator is the gorm.Migrator for Spanner's PostgreSQL dialect: GORM's
// PostgreSQL migrator with Spanner's DDL and its information_schema.
type Migrator struct {
	postgres.Migrator
	dialector Dialector
}

// AutoMigrate creates and alters the tables of the models. All its DDL
// goes in one batch (START BATCH DDL ... RUN BATCH) on one connection,
// unless SpannerConfig disables batching or the session is a dry run.
func (m Migrator) AutoMigrate(values ...any) error {
	if m.DB.DryRun || m.dialector.SpannerConfig.DisableAutoMigrateBatching {
		return m.Migrator.Migrator.AutoMigrate(values...)
	}
	return gormcore.InBatch(m.DB, func(db *gorm.DB) Migrator { return m.dialector.Migrator(db).(Migrator) },
		func(mg Migrator) error { return mg.Migrator.Migrator.AutoMigrate(values...) })
}

// StartBatchDDL starts a DDL batch on the migrator's connection.
func (m Migrator) StartBatchDDL() error { return m.DB.Exec("START BATCH DDL").Error }

// RunBatch sends the DDL batch.
func (m Migrator) RunBatch() error { return m.DB.Exec("RUN BATCH").Error }

// AbortBatch drops the DDL batch.
func (m Migrator) AbortBatch() error { return m.DB.Exec("ABORT BATCH").Error }

// MigrationStatements returns the DDL statements that AutoMigrate would
// send for the models, without sending them. It reads information_schema
// as AutoMigrate does, so the statements are those that bring the current
// schema up to date.
func MigrationStatements(db *gorm.DB, values ...any) ([]string, error) {
	return gormcore.Record(db, func(tx *gorm.DB) error {
		mg, ok := tx.Migrator().(Migrator)
		if !ok {
			return fmt.Errorf("spannerpg: MigrationStatements: dialector %q is not spannerpg's", db.Dialector.Name())
		}
		return mg.Migrator.Migrator.AutoMigrate(values...)
	})
}

// CurrentDatabase is the catalog name Spanner reports: "".
func (m Migrator) CurrentDatabase() string { return "" }

// CurrentSchema returns the schema and table of a table name: "s.t" is
// table t in schema s, a name without a dot is in public.
func (m Migrator) CurrentSchema(_ *gorm.Statement, table string) (any, any) {
	s, t := splitTable(table)
	return s, t
}

func splitTable(table string) (string, string) {
	if s, t, ok := strings.Cut(table, "."); ok {
		return s, t
	}
	return defaultSchema, table
}

// GetTypeAliases returns the other names of a type that information_schema
// reports (spanner_type): the names DataTypeOf and type tags use, with the
// same length and array brackets ("character varying(10)" is also
// "varchar(10)").
func (m Migrator) GetTypeAliases(name string) []string {
	base, suffix := name, ""
	if i := strings.IndexAny(name, "(["); i >= 0 {
		base, suffix = name[:i], name[i:]
	}
	var out []string
	for _, a := range typeAliases[base] {
		out = append(out, a+suffix)
	}
	return out
}

var typeAliases = map[string][]string{
	"bigint":                   {"int8", "int", "integer"},
	"character varying":        {"varchar", "text"},
	"boolean":                  {"bool"},
	"double precision":         {"float8", "float"},
	"real":                     {"float4"},
	"numeric":                  {"decimal"},
	"timestamp with time zone": {"timestamptz"},
}

// FullDataTypeOf returns a column definition after the name: type, then
// IDENTITY or its sequence as the default for an auto-increment key, or
// NOT NULL and DEFAULT.
func (m Migrator) FullDataTypeOf(field *schema.Field) clause.Expr {
	if key := m.keyDefinition(field); key != "" {
		return clause.Expr{SQL: m.DataTypeOf(field) + key}
	}
	return m.Migrator.Migrator.FullDataTypeOf(field)
}

// CreateTable creates the tables of the models, each followed by its
// indexes and a unique index for each unique field (Spanner has no UNIQUE
// constraint).
func (m Migrator) CreateTable(values ...any) error {
	return gormcore.CreateTables(m.Migrator.Migrator, values,
		func(tx *gorm.DB, stmt *gorm.Statement, value any) error {
			if stmt.Schema == nil {
				return fmt.Errorf("spannerpg: CreateTable: %T has no schema", value)
			}
			return m.createSequences(tx, stmt)
		},
		m.createTableSQL)
}

// tableDDL: elements split by ",", the key among them, and the interleave
// after the parentheses.
var tableDDL = gormcore.TableDDL{Sep: ",", KeyInside: true, InterleaveSep: " "}

func (m Migrator) createTableSQL(stmt *gorm.Statement, value any) (string, []any) {
	return gormcore.CreateTableSQL(m.DB, stmt, value, m.CurrentTable(stmt), tableDDL)
}

// DropTable drops the models' tables that exist, with their indexes,
// children and referencing tables first, in one DDL batch (statement by
// statement under DisableAutoMigrateBatching). A foreign key of a table
// that is not being dropped is dropped first, as GORM's PostgreSQL
// migrator's DROP TABLE ... CASCADE would; an interleaved child that is
// not being dropped is refused with a DropTableError naming it.
func (m Migrator) DropTable(values ...any) error {
	if m.DB.DryRun || m.dialector.SpannerConfig.DisableAutoMigrateBatching {
		return m.dropTables(values)
	}
	return gormcore.InBatch(m.DB, func(db *gorm.DB) Migrator { return m.dialector.Migrator(db).(Migrator) },
		func(mg Migrator) error { return mg.dropTables(values) })
}

func (m Migrator) dropTables(values []any) error {
	return m.catalog().DropTables(values, dropSQL, true, "spannerpg", func(sql string, vars ...any) error {
		return m.DB.Exec(sql, vars...).Error
	})
}

// DropTableError is DropTable's error when an interleaved child table
// that is not being dropped blocks the drop (gRPC code
// FailedPrecondition).
type DropTableError = gormcore.DropTableError

func errorsOf(rows *sql.Rows) error {
	if err := rows.Err(); err != nil {
		rows.Close()
		return err
	}
	return rows.Close()
}

// AddColumn adds a model field's column (ALTER TABLE ... ADD COLUMN).
func (m Migrator) AddColumn(value any, name string) error {
	return gormcore.AlterField(m.Migrator.Migrator, "spannerpg", value, name, "ALTER TABLE ? ADD COLUMN ? ?", nil)
}

// MigrateColumn brings a column to its field's definition: GORM's
// comparison, without PostgreSQL's column comments, which Spanner does
// not have.
func (m Migrator) MigrateColumn(value any, field *schema.Field, columnType gorm.ColumnType) error {
	return m.Migrator.Migrator.MigrateColumn(value, field, columnType)
}

// AlterColumn changes a column to its field's definition, one ALTER
// COLUMN statement per difference: type, NOT NULL and DEFAULT. Generated
// columns are left alone.
func (m Migrator) AlterColumn(value any, name string) error {
	return m.RunWithValue(value, func(stmt *gorm.Statement) error {
		f := stmt.Schema.LookUpField(name)
		if f == nil {
			return fmt.Errorf("spannerpg: model %s has no field %q", stmt.Schema.Name, name)
		}
		cols, err := m.DB.Migrator().ColumnTypes(value)
		if err != nil {
			return err
		}
		var ct *migrator.ColumnType
		for _, c := range cols {
			if c.Name() == f.DBName {
				ct, _ = c.(*migrator.ColumnType)
			}
		}
		if ct == nil {
			return fmt.Errorf("spannerpg: table %s has no column %q", stmt.Table, f.DBName)
		}
		if ct.ColumnTypeValue.String == generatedMark {
			return nil
		}
		table, col := m.CurrentTable(stmt), clause.Column{Name: f.DBName}
		want := m.DataTypeOf(f)
		if !m.sameType(want, ct) {
			if err := m.DB.Exec("ALTER TABLE ? ALTER COLUMN ? TYPE ?", table, col, clause.Expr{SQL: want}).Error; err != nil {
				return err
			}
		}
		if nullable, _ := ct.Nullable(); nullable == f.NotNull {
			sql := "ALTER TABLE ? ALTER COLUMN ? DROP NOT NULL"
			if f.NotNull {
				sql = "ALTER TABLE ? ALTER COLUMN ? SET NOT NULL"
			}
			if err := m.DB.Exec(sql, table, col).Error; err != nil {
				return err
			}
		}
		return m.alterDefault(table, col, f, ct)
	})
}

func (m Migrator) sameType(want string, ct *migrator.ColumnType) bool {
	have := ct.DatabaseTypeName()
	for _, name := range append(m.GetTypeAliases(have), have) {
		if strings.EqualFold(name, want) {
			return true
		}
	}
	return false
}

func (m Migrator) alterDefault(table any, col clause.Column, f *schema.Field, ct *migrator.ColumnType) error {
	have, hasDefault := ct.DefaultValue()
	var want string
	switch {
	case f.DefaultValueInterface != nil:
		want = m.Dialector.Explain("$1", f.DefaultValueInterface)
	case f.HasDefaultValue && f.DefaultValue != "" && f.DefaultValue != "(-)":
		want = f.DefaultValue
	}
	switch {
	case want == "" && hasDefault:
		return m.DB.Exec("ALTER TABLE ? ALTER COLUMN ? DROP DEFAULT", table, col).Error
	case want != "" && (!hasDefault || have != strings.Trim(want, "'")):
		return m.DB.Exec("ALTER TABLE ? ALTER COLUMN ? SET DEFAULT ?", table, col, clause.Expr{SQL: want}).Error
	}
	return nil
}

// queryRaw runs a query even in a dry run: the migrator reads the schema
// to decide what to write.
func (m Migrator) queryRaw(sql string, args ...any) *gorm.DB {
	tx := m.DB
	if tx.DryRun {
		tx = tx.Session(&gorm.Session{})
		tx.DryRun = false
	}
	return tx.Raw(sql, args...)
}

// catalog answers the Has* questions from information_schema, reading
// it even in a dry run; a table name without a schema is in public.
func (m Migrator) catalog() gormcore.Catalog {
	return gormcore.Catalog{
		Migrator: m.Migrator.Migrator,
		SQL: gormcore.CatalogSQL{HasTable: hasTableSQL, GetTables: getTablesSQL, HasColumn: hasColumnSQL,
			HasIndex: hasIndexSQL, HasConstraint: hasConstraintSQL, KeyColumns: keyColumnsSQL},
		DefaultSchema: defaultSchema,
		Split:         splitTable,
		Raw:           m.queryRaw,
	}
}

// HasTable reports whether the model's table exists.
func (m Migrator) HasTable(value any) bool { return m.catalog().HasTable(value) }

// GetTables returns the names of the tables in the public schema.
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

// generatedMark is the ColumnTypeValue of a generated column, which
// AlterColumn leaves alone.
const generatedMark = "GENERATED"

// ColumnTypes returns the columns of the model's table from
// information_schema: name, type (spanner_type, with its length also
// apart),
// nullability, default, primary key, and whether it is an identity column.
func (m Migrator) ColumnTypes(value any) ([]gorm.ColumnType, error) {
	var out []gorm.ColumnType
	err := m.RunWithValue(value, func(stmt *gorm.Statement) error {
		s, t := splitTable(stmt.Table)
		keys, err := m.catalog().KeyColumns(stmt.Table)
		if err != nil {
			return err
		}
		rows, err := m.queryRaw(columnsSQL, s, t).Rows()
		if err != nil {
			return err
		}
		for rows.Next() {
			var name, typ, nullable string
			var def, identity, generated sql.NullString
			if err := rows.Scan(&name, &typ, &nullable, &def, &identity, &generated); err != nil {
				rows.Close()
				return err
			}
			out = append(out, columnType(name, typ, nullable == "YES", def, keys[name], identity.String == "YES", generated.String != ""))
		}
		return errorsOf(rows)
	})
	return out, err
}

var sizedType = regexp.MustCompile(`\((\d+)\)`)

func columnType(name, typ string, nullable bool, def sql.NullString, key, identity, generated bool) *migrator.ColumnType {
	ct := &migrator.ColumnType{
		SQLColumnType:      &sql.ColumnType{},
		NameValue:          sql.NullString{String: name, Valid: true},
		DataTypeValue:      sql.NullString{String: typ, Valid: true},
		ColumnTypeValue:    sql.NullString{String: typ, Valid: true},
		PrimaryKeyValue:    sql.NullBool{Bool: key, Valid: true},
		NullableValue:      sql.NullBool{Bool: nullable, Valid: true},
		AutoIncrementValue: sql.NullBool{Bool: identity, Valid: true},
	}
	if m := sizedType.FindStringSubmatch(typ); m != nil {
		n, _ := strconv.ParseInt(m[1], 10, 64)
		ct.LengthValue = sql.NullInt64{Int64: n, Valid: true}
	}
	if generated {
		ct.ColumnTypeValue = sql.NullString{String: generatedMark, Valid: true}
	}
	if def.Valid && !identity {
		ct.DefaultValueValue = sql.NullString{String: defaultValue(def.String), Valid: true}
	}
	return ct
}

// defaultValue drops the cast and the quotes that information_schema puts
// around a default ('0'::bigint is 0).
func defaultValue(s string) string {
	if i := strings.Index(s, "::"); i >= 0 {
		s = s[:i]
	}
	return strings.Trim(s, "'")
}

// GetIndexes returns the indexes of the model's table, the primary key
// among them.
func (m Migrator) GetIndexes(value any) ([]gorm.Index, error) {
	return m.catalog().Indexes(value, indexesSQL, func(rows *sql.Rows) (name string, unique bool, kind, column string, err error) {
		var isUnique string
		err = rows.Scan(&name, &isUnique, &kind, &column)
		return name, isUnique == "YES", kind, column, err
	})
}
