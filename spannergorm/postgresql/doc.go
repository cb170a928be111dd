// Package spannerpg is a GORM dialector for Spanner's PostgreSQL dialect
// on the spannerfast driver, with the API of go-gorm-spanner's package of
// the same name:
//
//	db, err := gorm.Open(spannerpg.New(postgres.Config{DSN: dsn}), &gorm.Config{})
//
// It builds on GORM's PostgreSQL dialector (gorm.io/driver/postgres):
// identifiers in double quotes (by its own QuoteTo, a quote doubled,
// rather than GORM's), $n placeholders (which spannerfast binds
// on a PostgreSQL-dialect database), RETURNING read through QueryContext,
// and ON CONFLICT. The pool is opened with database/sql on DriverName,
// "spannerfast" when empty, or taken from Config.Conn; the pgx-only
// options PreferSimpleProtocol and OptionOpenDB are refused with
// ErrPgxOption naming the option (see its comment for why).
//
// What it adds is Spanner's: column types (Go integers are bigint, floats
// numeric as in GORM's PostgreSQL dialector, strings varchar, []byte
// bytea, time.Time timestamptz, spanner.PGNumeric numeric,
// spanner.PGJsonB jsonb, slices arrays such as bigint[]), auto-increment
// keys as IDENTITY columns on bit-reversed sequences (or another kind,
// the database's default kind, or a sequence of their own:
// SpannerConfig.DefaultSequenceKind and the gorm_sequence_name tag, as in
// spannergorm), unique fields as
// unique indexes, interleaved tables (Interleaved), a conflict target for
// ON CONFLICT DO NOTHING, a LIMIT for every OFFSET, updates that never set
// key columns, and a migrator that reads Spanner's information_schema and
// runs AutoMigrate as one DDL batch on one connection.
//
// The rules it shares with spannergorm's GoogleSQL dialector (the batch,
// the recording of MigrationStatements, key columns out of SET, OFFSET
// with LIMIT, interleaving, the order in which a column type is chosen)
// live once in spannergorm/internal/gormcore. It knows nothing of the
// driver beyond its name: it speaks database/sql.
package spannerpg
