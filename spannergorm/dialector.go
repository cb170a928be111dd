package spannergorm

import (
	"database/sql"
	sqldriver "database/sql/driver"

	"gorm.io/gorm"
	"gorm.io/gorm/callbacks"
	"gorm.io/gorm/clause"
	"gorm.io/gorm/logger"
	"gorm.io/gorm/migrator"
	"gorm.io/gorm/schema"

	"github.com/spannerfast/spannerfast/driver"
	"github.com/spannerfast/spannerfast/internal/sqlparse"
	"github.com/spannerfast/spannerfast/spannergorm/internal/gormcore"
)

// Config selects the database and the dialect's options. Exactly one of
// DSN, Conn and Connector names the database; Conn wins over Connector,
// which wins over DSN.
type Config struct {
	// DSN is a spannerfast (go-sql-spanner) DSN, opened with DriverName.
	DSN string
	// DriverName is the database/sql driver for DSN; "spannerfast" when empty.
	DriverName string
	// Conn is an existing pool, usually a *sql.DB opened on spannerfast.
	Conn gorm.ConnPool
	// Connector is an existing connector, such as driver.NewConnector's.
	Connector sqldriver.Connector

	// DisableAutoMigrateBatching sends each DDL statement of AutoMigrate on
	// its own instead of in one START BATCH DDL / RUN BATCH batch.
	DisableAutoMigrateBatching bool
	// DisableIdentityColumns creates auto-increment primary keys as plain
	// INT64 columns: the application then supplies every key.
	DisableIdentityColumns bool
	// DefaultSequenceKind chooses how auto-increment keys get their values,
	// as in go-gorm-spanner: empty for IDENTITY columns on a
	// BIT_REVERSED_POSITIVE sequence; another kind for IDENTITY columns of
	// that kind; AUTO_INCREMENT for AUTO_INCREMENT columns (the database's
	// default_sequence_kind option decides the kind); DISABLED for a
	// bit-reversed sequence per table (CREATE SEQUENCE table_seq) that is
	// the key's default. A field's gorm_sequence_name tag names its own
	// sequence whatever the kind.
	DefaultSequenceKind string
}

// Dialector is the gorm.Dialector for Spanner's GoogleSQL dialect.
type Dialector struct {
	*Config
}

// New returns a Dialector for cfg.
func New(cfg Config) gorm.Dialector {
	return &Dialector{Config: &cfg}
}

// Open returns a Dialector for a DSN.
func Open(dsn string) gorm.Dialector {
	return New(Config{DSN: dsn})
}

// Name is the dialect name that GORM plugins switch on; "spanner" as in
// go-gorm-spanner.
func (Dialector) Name() string { return "spanner" }

// Initialize registers the callbacks and clause builders and opens the pool.
func (d Dialector) Initialize(db *gorm.DB) error {
	if err := d.sequences().Check(); err != nil {
		return err
	}
	callbacks.RegisterDefaultCallbacks(db, &callbacks.Config{
		// ON CONFLICT is left out: OnConflict becomes the INSERT modifier.
		CreateClauses: []string{"INSERT", "VALUES", "RETURNING"},
		UpdateClauses: []string{"UPDATE", "SET", "WHERE", "RETURNING"},
		DeleteClauses: []string{"DELETE", "FROM", "WHERE", "RETURNING"},
	})
	// Spanner refuses key columns in SET, so they never go there.
	if err := gormcore.RegisterOmitPrimaryKey(db); err != nil {
		return err
	}
	if err := gormcore.RegisterUpsert(db); err != nil {
		return err
	}
	if err := registerGlobalWhere(db); err != nil {
		return err
	}
	pool, err := d.pool()
	if err != nil {
		return err
	}
	db.ConnPool = pool
	for name, build := range clauseBuilders {
		db.ClauseBuilders[name] = build
	}
	return nil
}

func (d Dialector) pool() (gorm.ConnPool, error) {
	switch {
	case d.Conn != nil:
		return d.Conn, nil
	case d.Connector != nil:
		return sql.OpenDB(d.Connector), nil
	}
	name := d.DriverName
	if name == "" {
		name = driver.Name
	}
	return sql.Open(name, d.DSN)
}

var _ gorm.SavePointerDialectorInterface = Dialector{}

// SavePoint sets a savepoint for a nested transaction (the driver's
// SAVEPOINT; gormcore.SavePoint), so that nested transactions work as GORM
// documents them (docs/gorm.md#nested-transactions).
func (Dialector) SavePoint(tx *gorm.DB, name string) error {
	return gormcore.SavePoint(tx, sqlparse.GoogleSQL, name)
}

// RollbackTo rolls a failed nested transaction back to its savepoint (the
// driver's ROLLBACK TO SAVEPOINT: the statements before it are replayed).
func (Dialector) RollbackTo(tx *gorm.DB, name string) error {
	return gormcore.RollbackTo(tx, sqlparse.GoogleSQL, name)
}

// Migrator returns the Spanner migrator.
func (d Dialector) Migrator(db *gorm.DB) gorm.Migrator {
	return Migrator{
		Migrator: migrator.Migrator{Config: migrator.Config{
			DB:                          db,
			Dialector:                   d,
			CreateIndexAfterCreateTable: true,
		}},
		dialector: d,
	}
}

// DataTypeOf returns the GoogleSQL type of a field: the type tag when set,
// else the type of the Go field, else GORM's general data type.
func (Dialector) DataTypeOf(field *schema.Field) string {
	return gormcore.DataTypeOf(field, names.GoType, names.General)
}

// DefaultValueOf is the value GORM writes for a field that has a default
// but no value in a batch insert.
func (Dialector) DefaultValueOf(*schema.Field) clause.Expression {
	return clause.Expr{SQL: "DEFAULT"}
}

// BindVarTo writes a positional parameter; the driver turns each ? into a
// named Spanner parameter.
func (Dialector) BindVarTo(w clause.Writer, _ *gorm.Statement, _ any) {
	w.WriteByte('?')
}

// QuoteTo writes a name as GoogleSQL quoted identifiers (`name`, a
// backslash before \ and `), a dotted name part by part, a part already
// in backticks read as the name it quotes: gormcore.QuoteTo, where the
// rules are (docs/gorm.md, "Identifier quoting").
func (Dialector) QuoteTo(w clause.Writer, str string) {
	gormcore.QuoteTo(sqlparse.GoogleSQL, w, str)
}

// Explain renders a statement with its arguments for logging.
func (Dialector) Explain(sql string, vars ...any) string {
	return logger.ExplainSQL(sql, nil, `'`, vars...)
}

// registerGlobalWhere gives an UPDATE or DELETE that GORM runs without
// conditions (Session AllowGlobalUpdate) the WHERE TRUE that GoogleSQL
// requires ("UPDATE must have a WHERE clause"); conditions GORM adds later
// (the model's key, soft delete) join it with AND. The PostgreSQL
// dialect takes statements without WHERE.
func registerGlobalWhere(db *gorm.DB) error {
	if err := db.Callback().Update().Before("gorm:update").Register("spanner:global_where", globalWhere); err != nil {
		return err
	}
	return db.Callback().Delete().Before("gorm:delete").Register("spanner:global_where", globalWhere)
}

func globalWhere(db *gorm.DB) {
	if !db.AllowGlobalUpdate {
		return
	}
	if _, ok := db.Statement.Clauses["WHERE"]; !ok {
		db.Statement.AddClause(clause.Where{Exprs: []clause.Expression{clause.Expr{SQL: "TRUE"}}})
	}
}
