package spannerpg

import (
	"fmt"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"
	"gorm.io/gorm/migrator"
	"gorm.io/gorm/schema"

	"github.com/spannerfast/spannerfast/driver"
	"github.com/spannerfast/spannerfast/internal/sqlparse"
	"github.com/spannerfast/spannerfast/spannergorm/internal/gormcore"
)

var (
	_ gorm.Dialector                     = Dialector{}
	_ gorm.SavePointerDialectorInterface = Dialector{}
	_ gorm.Migrator                      = Migrator{}
	_ gormcore.Batcher                   = Migrator{}
)

// Dialector is the gorm.Dialector for Spanner's PostgreSQL dialect. It is
// GORM's PostgreSQL dialector (quoting, $n placeholders, RETURNING,
// ON CONFLICT) with Spanner's types, DDL and migrator.
type Dialector struct {
	postgres.Dialector
	SpannerConfig SpannerConfig
}

// SpannerConfig holds the options that are Spanner's, beside GORM's
// postgres.Config.
type SpannerConfig struct {
	// DisableAutoMigrateBatching sends each DDL statement of AutoMigrate on
	// its own instead of in one START BATCH DDL / RUN BATCH batch.
	DisableAutoMigrateBatching bool
	// DisableIdentityColumns creates auto-increment primary keys as plain
	// bigint columns: the application then supplies every key.
	DisableIdentityColumns bool
	// DefaultSequenceKind chooses how auto-increment keys get their values,
	// as spannergorm.Config's: empty for IDENTITY columns on a
	// BIT_REVERSED_POSITIVE sequence; another kind for IDENTITY columns of
	// that kind; AUTO_INCREMENT for IDENTITY columns without a kind (the
	// database's default_sequence_kind option decides); DISABLED for a
	// bit-reversed sequence per table (CREATE SEQUENCE table_seq) that is
	// the key's default (nextval). A field's gorm_sequence_name tag names
	// its own sequence whatever the kind.
	DefaultSequenceKind string
}

// Open returns a Dialector for a spannerfast DSN.
func Open(dsn string) gorm.Dialector {
	return New(postgres.Config{DSN: dsn})
}

// New returns a Dialector for config. DSN is opened with DriverName,
// "spannerfast" when empty; Conn is an existing pool instead.
func New(config postgres.Config) gorm.Dialector {
	return NewWithSpannerConfig(config, SpannerConfig{})
}

// NewWithSpannerConfig returns a Dialector for config with Spanner's
// options.
func NewWithSpannerConfig(config postgres.Config, spannerConfig SpannerConfig) gorm.Dialector {
	return &Dialector{Dialector: postgres.Dialector{Config: &config}, SpannerConfig: spannerConfig}
}

// Name is the dialect name that GORM plugins switch on; "postgres-spanner"
// as in go-gorm-spanner.
func (Dialector) Name() string { return "postgres-spanner" }

// ErrPgxOption is the error of a postgres.Config option that only
// configures pgx, GORM's default PostgreSQL driver, which this dialector
// does not use (gRPC code InvalidArgument). The error names the option.
//
// PreferSimpleProtocol makes pgx skip its implicit prepared statements
// and write the arguments into the SQL text as literals. The first is
// what spannerfast always does (a statement goes to Spanner once, with no
// prepare step); the second it never does: arguments stay typed query
// parameters, which keeps their types exact and one plan per statement
// text. So the option would either mean nothing or ask for what the
// driver refuses to do, and setting it is refused rather than ignored.
// go-gorm-spanner's dialector ignores it (it opens go-sql-spanner by
// DriverName, and GORM's dialector reads the option only on its pgx
// path), which is why go-gorm-spanner's test harness can set it.
var ErrPgxOption = status.Error(codes.InvalidArgument,
	"spannerpg: a postgres.Config option that configures pgx is set, and spannerfast does not use pgx: leave it unset")

// pgxOptions refuses the pgx-only options that are set, naming them.
func (d Dialector) pgxOptions() error {
	switch {
	case d.PreferSimpleProtocol:
		return fmt.Errorf("%w: PreferSimpleProtocol (pgx's simple protocol: no prepared statements, arguments inlined as literals); "+
			"spannerfast never prepares and always sends arguments as typed parameters", ErrPgxOption)
	case len(d.OptionOpenDB) > 0:
		return fmt.Errorf("%w: OptionOpenDB (options of pgx's stdlib.OpenDB); the pool is opened with database/sql on DriverName or taken from Conn",
			ErrPgxOption)
	}
	return nil
}

// Initialize opens the pool on spannerfast and registers GORM's
// PostgreSQL callbacks and Spanner's clause builders.
func (d Dialector) Initialize(db *gorm.DB) error {
	if d.Config == nil {
		d.Config = &postgres.Config{}
	}
	if err := d.pgxOptions(); err != nil {
		return err
	}
	if err := d.SpannerConfig.sequences().Check(); err != nil {
		return err
	}
	if d.Conn == nil && d.DriverName == "" {
		cfg := *d.Config
		cfg.DriverName = driver.Name
		d.Config = &cfg
	}
	if err := d.Dialector.Initialize(db); err != nil {
		return err
	}
	if err := gormcore.RegisterOmitPrimaryKey(db); err != nil {
		return err
	}
	if err := gormcore.RegisterUpsert(db); err != nil {
		return err
	}
	db.ClauseBuilders["LIMIT"] = gormcore.BuildLimit
	db.ClauseBuilders["FROM"] = buildFrom
	db.ClauseBuilders["ON CONFLICT"] = buildOnConflict
	return nil
}

// ErrNoSavepoints was the error of a nested transaction before the driver
// emulated savepoints. It is no longer returned: SavePoint and RollbackTo
// use the driver's savepoints, and nested transactions work as GORM
// documents them (docs/gorm.md#nested-transactions). It is kept so that
// code that names it still compiles.
var ErrNoSavepoints = status.Error(codes.Unimplemented,
	"spannerpg: Spanner has no savepoints, so nested transactions are not supported (gorm.Config.DisableNestedTransaction runs them in the outer transaction)")

// SavePoint sets a savepoint for a nested transaction (the driver's
// SAVEPOINT; gormcore.SavePoint).
func (Dialector) SavePoint(tx *gorm.DB, name string) error {
	return gormcore.SavePoint(tx, sqlparse.PostgreSQL, name)
}

// RollbackTo rolls a failed nested transaction back to its savepoint (the
// driver's ROLLBACK TO SAVEPOINT: the statements before it are replayed).
func (Dialector) RollbackTo(tx *gorm.DB, name string) error {
	return gormcore.RollbackTo(tx, sqlparse.PostgreSQL, name)
}

// Migrator returns the Spanner PostgreSQL migrator.
func (d Dialector) Migrator(db *gorm.DB) gorm.Migrator {
	return Migrator{
		Migrator: postgres.Migrator{Migrator: migrator.Migrator{Config: migrator.Config{
			DB:                          db,
			Dialector:                   d,
			CreateIndexAfterCreateTable: true,
		}}},
		dialector: d,
	}
}

// DataTypeOf returns the PostgreSQL type of a field on Spanner: the type
// tag when set, else the type of the Go field, else GORM's general data
// type.
func (d Dialector) DataTypeOf(field *schema.Field) string {
	return gormcore.DataTypeOf(field, names.GoType, names.General)
}

// QuoteTo writes a name as PostgreSQL quoted identifiers ("name", a quote
// doubled), a dotted name part by part, a part already in double quotes
// read as the name it quotes: gormcore.QuoteTo, where the rules are
// (docs/gorm.md, "Identifier quoting"). It replaces GORM's PostgreSQL
// QuoteTo, which can leave a quote of the name unescaped
// (TestEmulatorHostileNames).
// postgres.Config.WithoutQuotingCheck still writes names as given, as it
// says: the application then takes them for SQL.
func (d Dialector) QuoteTo(w clause.Writer, str string) {
	if d.Config != nil && d.WithoutQuotingCheck {
		_, _ = w.WriteString(str)
		return
	}
	gormcore.QuoteTo(sqlparse.PostgreSQL, w, str)
}

// buildOnConflict renders ON CONFLICT with what Spanner needs. A
// DoNothing without columns gets the primary key as its conflict target,
// the only conflict Spanner detects. Spanner's DO UPDATE must set every
// inserted column, so UpdateAll sets them all, the key and the creation
// time too, each to its inserted value (excluded.col, which Spanner also
// requires), which is INSERT OR UPDATE as in the GoogleSQL dialector. Any
// other DO UPDATE is sent as GORM wrote it.
func buildOnConflict(c clause.Clause, b clause.Builder) {
	oc, ok := c.Expression.(clause.OnConflict)
	stmt, isStmt := b.(*gorm.Statement)
	if !ok || !isStmt || oc.OnConstraint != "" || stmt.Schema == nil {
		c.Build(b)
		return
	}
	if oc.DoNothing && len(oc.Columns) == 0 {
		for _, f := range stmt.Schema.PrimaryFields {
			oc.Columns = append(oc.Columns, clause.Column{Name: f.DBName})
		}
	}
	if oc.UpdateAll {
		oc.DoUpdates = allInserted(stmt, oc.DoUpdates)
	}
	c.Expression = oc
	c.Build(b)
}

// allInserted returns col = excluded.col for each inserted column, or set
// when the statement has no VALUES.
func allInserted(stmt *gorm.Statement, set clause.Set) clause.Set {
	values, ok := stmt.Clauses["VALUES"].Expression.(clause.Values)
	if !ok {
		return set
	}
	out := make(clause.Set, 0, len(values.Columns))
	for _, col := range values.Columns {
		out = append(out, clause.Assignment{Column: clause.Column{Name: col.Name}, Value: clause.Column{Table: "excluded", Name: col.Name}})
	}
	return out
}
