package spannerpg_test

import (
	"context"
	"database/sql"
	"slices"
	"testing"
	"time"

	"cloud.google.com/go/civil"
	"cloud.google.com/go/spanner"
	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"

	"github.com/spannerfast/spannerfast/internal/emulatortest"
	"github.com/spannerfast/spannerfast/spannergorm"
	"github.com/spannerfast/spannerfast/spannergorm/internal/dialecttest"
	spannerpg "github.com/spannerfast/spannerfast/spannergorm/postgresql"
)

// SuiteTypes has a column of every PostgreSQL type the dialector maps
// (dialecttest.Suite's Types).
type SuiteTypes struct {
	ID int64 `gorm:"primaryKey;autoIncrement:false"`
	dialecttest.Scalars
	Date     civil.Date `gorm:"type:date"`
	Numeric  spanner.PGNumeric
	JSON     spanner.PGJsonB
	Float8   float64 `gorm:"type:float8"`
	Float32N spanner.NullFloat32
	Ints     spannergorm.Array[int64]
	Strings  spannergorm.Array[string]
	NullInts spannergorm.Array[spanner.NullInt64]
	Floats   spannergorm.Array[float64]
	Bools    spannergorm.Array[bool]
	Times    spannergorm.Array[time.Time]
	Dates    spannergorm.Array[civil.Date]
	Blobs    spannergorm.Array[[]byte]
	Numerics spannergorm.Array[spanner.PGNumeric]
	JSONs    spannergorm.Array[spanner.PGJsonB]
}

func (SuiteTypes) TableName() string { return "all_types" }

// Stamp has a commit-timestamp column (spanner.commit_timestamp).
type Stamp struct {
	ID       int64 `gorm:"primaryKey;autoIncrement:false"`
	Name     string
	Modified spannergorm.CommitTimestamp
}

// openPG opens GORM with cfg on a new PostgreSQL-dialect database of the
// emulator, telling the driver it is on the emulator (as
// SPANNER_EMULATOR_HOST does).
func openPG(t *testing.T, cfg *gorm.Config) *gorm.DB {
	t.Helper()
	edb := emulatortest.NewDatabase(t, emulatortest.WithDialect(emulatortest.PostgreSQL))
	db, err := gorm.Open(spannerpg.New(postgres.Config{DSN: edb.DSN("autoConfigEmulator=true")}), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if sqlDB, err := db.DB(); err == nil {
			_ = sqlDB.Close()
		}
	})
	return db
}

// postgreSQL is the PostgreSQL dialect of the scenarios.
func postgreSQL() dialecttest.Dialect {
	ts := time.Date(2025, 2, 17, 10, 14, 0, 123456000, time.UTC)
	s, day := "s", civil.Date{Year: 2024, Month: 2, Day: 29}
	full := SuiteTypes{ID: 1, Scalars: dialecttest.Scalars{
		Int: -7, Int32: 32, Uint8: 8, Float: 3.25, Float32: 1.5, String: "héllo", Sized: "ten chars!", Bool: true,
		Bytes: []byte{0, 1, 0xff}, Time: ts, PtrString: &s, PtrTime: &ts,
		NullInt: spanner.NullInt64{Int64: 5, Valid: true}, NullString: spanner.NullString{StringVal: "s", Valid: true},
		NullFloat: spanner.NullFloat64{Float64: 2.5, Valid: true}, NullBool: spanner.NullBool{Bool: true, Valid: true},
		NullTime: spanner.NullTime{Time: ts, Valid: true}, NullDate: spanner.NullDate{Date: day, Valid: true},
		SQLNullInt: sql.NullInt64{Int64: 9, Valid: true}, SQLNullStr: sql.NullString{String: "n", Valid: true},
		SQLNullTime: sql.NullTime{Time: ts, Valid: true}, SQLNullBool: sql.NullBool{Bool: true, Valid: true},
	},
		Date:     day,
		Numeric:  spanner.PGNumeric{Numeric: "123456789.000000001", Valid: true},
		JSON:     spanner.PGJsonB{Value: map[string]any{"key": "value", "n": 1.5}, Valid: true},
		Float8:   0.1,
		Float32N: spanner.NullFloat32{Float32: 0.25, Valid: true},
		Ints:     spannergorm.Array[int64]{1, 2, 3}, Strings: spannergorm.Array[string]{"a", ""},
		NullInts: spannergorm.Array[spanner.NullInt64]{{Int64: 1, Valid: true}, {}},
		Floats:   spannergorm.Array[float64]{0.5, -1}, Bools: spannergorm.Array[bool]{true, false},
		Times: spannergorm.Array[time.Time]{ts}, Dates: spannergorm.Array[civil.Date]{day},
		Blobs:    spannergorm.Array[[]byte]{{1}, {}},
		Numerics: spannergorm.Array[spanner.PGNumeric]{{Numeric: "1.5", Valid: true}, {}},
		JSONs:    spannergorm.Array[spanner.PGJsonB]{{Value: []any{"x"}, Valid: true}},
	}
	empty := SuiteTypes{ID: 2, Date: civil.Date{Year: 1, Month: 1, Day: 1}, Scalars: dialecttest.Scalars{Bytes: []byte{}},
		Ints: spannergorm.Array[int64]{}}
	return dialecttest.Dialect{
		Open:       openPG,
		Statements: spannerpg.MigrationStatements,
		RunTransaction: func(ctx context.Context, db *gorm.DB, fc func(*gorm.DB) error) error {
			return spannergorm.RunTransaction(ctx, db, fc)
		},
		Types:   &[]SuiteTypes{full, empty},
		Stamped: &Stamp{},
		Schema:  postgreSQLSchema,
	}
}

// postgreSQLSchema checks the PostgreSQL types of the columns of every
// type, and the commit-timestamp column's type.
func postgreSQLSchema(t *testing.T, db *gorm.DB) {
	if got, want := spannerTypes(t, db, "all_types"), []string{
		"id bigint", "int bigint", "int32 bigint", "uint8 bigint", "float numeric", "float32 numeric",
		"string character varying", "sized character varying(10)", "bool boolean", "bytes bytea",
		"time timestamp with time zone", "ptr_string character varying", "ptr_time timestamp with time zone",
		"null_int bigint", "null_string character varying", "null_float double precision", "null_bool boolean",
		"null_time timestamp with time zone", "null_date date", "sql_null_int bigint", "sql_null_str character varying",
		"sql_null_time timestamp with time zone", "sql_null_bool boolean", "date date", "numeric numeric", "json jsonb",
		"float8 double precision", "float32_n real", "ints bigint[]", "strings character varying[]", "null_ints bigint[]",
		"floats double precision[]", "bools boolean[]", "times timestamp with time zone[]", "dates date[]", "blobs bytea[]",
		"numerics numeric[]", "jsons jsonb[]",
	}; !slices.Equal(got, want) {
		t.Errorf("all_types columns\n got %q\nwant %q", got, want)
	}
	if got := spannerTypes(t, db, "stamps"); !slices.Contains(got, "modified spanner.commit_timestamp") {
		t.Errorf("stamps columns %q", got)
	}
}

// TestEmulatorGORMSuite runs the scenarios of dialecttest.Suite on a
// PostgreSQL-dialect database, each a subtest: AutoMigrateTwice, Types,
// CommitTimestamps, Identity, Interleaved, ForeignKeys, Associations,
// Transactions, NestedTransactions, RunTransactionAborts, Batches.
func TestEmulatorGORMSuite(t *testing.T) {
	t.Parallel()
	dialecttest.Suite(t, postgreSQL(), &gorm.Config{Logger: logger.Discard})
}

// TestEmulatorGORMDocsApp: an application written the way GORM's
// documentation teaches, with PrepareStmt, runs unchanged on a
// PostgreSQL-dialect database (dialecttest.DocsApp).
func TestEmulatorGORMDocsApp(t *testing.T) {
	t.Parallel()
	dialecttest.DocsApp(t, openPG(t, &gorm.Config{PrepareStmt: true, Logger: logger.Discard}))
}
