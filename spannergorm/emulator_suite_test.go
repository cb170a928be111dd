package spannergorm_test

import (
	"context"
	"database/sql"
	"math/big"
	"slices"
	"testing"
	"time"

	"cloud.google.com/go/civil"
	"cloud.google.com/go/spanner"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"

	"github.com/spannerfast/spannerfast/internal/emulatortest"
	"github.com/spannerfast/spannerfast/spannergorm"
	"github.com/spannerfast/spannerfast/spannergorm/internal/dialecttest"
)

// AllTypes has a column of every GoogleSQL type the dialector maps.
type AllTypes struct {
	ID int64 `gorm:"primaryKey;autoIncrement:false"`
	dialecttest.Scalars
	Date     civil.Date `gorm:"type:DATE"`
	Numeric  spanner.NullNumeric
	Rat      *big.Rat `gorm:"type:NUMERIC"`
	JSON     spanner.NullJSON
	Float32N spanner.NullFloat32
	Ints     spannergorm.Array[int64]
	Strings  spannergorm.Array[string]
	NullInts spannergorm.Array[spanner.NullInt64]
	Floats   spannergorm.Array[float64]
	Float32s spannergorm.Array[float32]
	Bools    spannergorm.Array[bool]
	Times    spannergorm.Array[time.Time]
	Dates    spannergorm.Array[civil.Date]
	Blobs    spannergorm.Array[[]byte]
	Numerics spannergorm.Array[spanner.NullNumeric]
	JSONs    spannergorm.Array[spanner.NullJSON]
}

func (AllTypes) TableName() string { return "all_types" }

// Stamp has a commit-timestamp column.
type Stamp struct {
	ID       int64 `gorm:"primaryKey;autoIncrement:false"`
	Name     string
	Modified spannergorm.CommitTimestamp
}

// googleSQL is the GoogleSQL dialect of the scenarios.
func googleSQL() dialecttest.Dialect {
	ts := time.Date(2025, 2, 17, 10, 14, 0, 123456000, time.UTC)
	s, day := "s", civil.Date{Year: 2024, Month: 2, Day: 29}
	full := AllTypes{ID: 1, Scalars: dialecttest.Scalars{
		Int: -7, Int32: 32, Uint8: 8, Float: 3.25, Float32: 1.5, String: "héllo", Sized: "ten chars!", Bool: true,
		Bytes: []byte{0, 1, 0xff}, Time: ts, PtrString: &s, PtrTime: &ts,
		NullInt: spanner.NullInt64{Int64: 5, Valid: true}, NullString: spanner.NullString{StringVal: "s", Valid: true},
		NullFloat: spanner.NullFloat64{Float64: 2.5, Valid: true}, NullBool: spanner.NullBool{Bool: true, Valid: true},
		NullTime: spanner.NullTime{Time: ts, Valid: true}, NullDate: spanner.NullDate{Date: day, Valid: true},
		SQLNullInt: sql.NullInt64{Int64: 9, Valid: true}, SQLNullStr: sql.NullString{String: "n", Valid: true},
		SQLNullTime: sql.NullTime{Time: ts, Valid: true}, SQLNullBool: sql.NullBool{Bool: true, Valid: true},
	},
		Date:     day,
		Numeric:  spanner.NullNumeric{Numeric: *big.NewRat(123456789000000001, 1000000000), Valid: true},
		Rat:      big.NewRat(-1, 4),
		JSON:     spanner.NullJSON{Value: map[string]any{"key": "value", "n": 1.5}, Valid: true},
		Float32N: spanner.NullFloat32{Float32: 0.25, Valid: true},
		Ints:     spannergorm.Array[int64]{1, 2, 3}, Strings: spannergorm.Array[string]{"a", ""},
		NullInts: spannergorm.Array[spanner.NullInt64]{{Int64: 1, Valid: true}, {}},
		Floats:   spannergorm.Array[float64]{0.5, -1}, Float32s: spannergorm.Array[float32]{0.5},
		Bools: spannergorm.Array[bool]{true, false}, Times: spannergorm.Array[time.Time]{ts},
		Dates: spannergorm.Array[civil.Date]{day}, Blobs: spannergorm.Array[[]byte]{{1}, {}},
		Numerics: spannergorm.Array[spanner.NullNumeric]{{Numeric: *big.NewRat(3, 2), Valid: true}, {}},
		JSONs:    spannergorm.Array[spanner.NullJSON]{{Value: []any{"x"}, Valid: true}},
	}
	empty := AllTypes{ID: 2, Date: civil.Date{Year: 1, Month: 1, Day: 1}, Scalars: dialecttest.Scalars{Bytes: []byte{}},
		Ints: spannergorm.Array[int64]{}}
	return dialecttest.Dialect{
		Open: func(t *testing.T, cfg *gorm.Config) *gorm.DB {
			t.Helper()
			edb := emulatortest.NewDatabase(t)
			db, err := gorm.Open(spannergorm.New(spannergorm.Config{DSN: edb.DSN("autoConfigEmulator=true")}), cfg)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				if sqlDB, err := db.DB(); err == nil {
					_ = sqlDB.Close()
				}
			})
			return db
		},
		Statements: spannergorm.MigrationStatements,
		RunTransaction: func(ctx context.Context, db *gorm.DB, fc func(*gorm.DB) error) error {
			return spannergorm.RunTransaction(ctx, db, fc)
		},
		Types:   &[]AllTypes{full, empty},
		Stamped: &Stamp{},
		Schema:  googleSQLSchema,
	}
}

// googleSQLSchema checks the GoogleSQL types of the columns of every type,
// and the commit-timestamp column's option.
func googleSQLSchema(t *testing.T, db *gorm.DB) {
	columns := func(table string) []string {
		t.Helper()
		var cols []struct{ ColumnName, SpannerType string }
		if err := db.Raw("SELECT COLUMN_NAME, SPANNER_TYPE FROM INFORMATION_SCHEMA.COLUMNS WHERE TABLE_SCHEMA = '' AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION", table).
			Scan(&cols).Error; err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, c := range cols {
			out = append(out, c.ColumnName+" "+c.SpannerType)
		}
		return out
	}
	if got, want := columns("all_types"), []string{
		"id INT64", "int INT64", "int32 INT64", "uint8 INT64", "float FLOAT64", "float32 FLOAT32", "string STRING(MAX)",
		"sized STRING(10)", "bool BOOL", "bytes BYTES(MAX)", "time TIMESTAMP", "ptr_string STRING(MAX)", "ptr_time TIMESTAMP",
		"null_int INT64", "null_string STRING(MAX)", "null_float FLOAT64", "null_bool BOOL", "null_time TIMESTAMP",
		"null_date DATE", "sql_null_int INT64", "sql_null_str STRING(MAX)", "sql_null_time TIMESTAMP", "sql_null_bool BOOL",
		"date DATE", "numeric NUMERIC", "rat NUMERIC", "json JSON", "float32_n FLOAT32", "ints ARRAY<INT64>",
		"strings ARRAY<STRING(MAX)>", "null_ints ARRAY<INT64>", "floats ARRAY<FLOAT64>", "float32s ARRAY<FLOAT32>",
		"bools ARRAY<BOOL>", "times ARRAY<TIMESTAMP>", "dates ARRAY<DATE>", "blobs ARRAY<BYTES(MAX)>",
		"numerics ARRAY<NUMERIC>", "jsons ARRAY<JSON>",
	}; !slices.Equal(got, want) {
		t.Errorf("all_types columns\n got %q\nwant %q", got, want)
	}
	var option []string
	if err := db.Raw("SELECT OPTION_NAME || '=' || OPTION_VALUE FROM INFORMATION_SCHEMA.COLUMN_OPTIONS WHERE TABLE_NAME = 'stamps' AND COLUMN_NAME = 'modified'").
		Scan(&option).Error; err != nil || !slices.Equal(option, []string{"allow_commit_timestamp=TRUE"}) {
		t.Errorf("options of stamps.modified %q, %v", option, err)
	}
	if got := columns("stamps"); !slices.Contains(got, "modified TIMESTAMP") {
		t.Errorf("stamps columns %q", got)
	}
}

// TestEmulatorGORMSuite runs the scenarios of dialecttest.Suite on a
// GoogleSQL database, each a subtest: AutoMigrateTwice, Types,
// CommitTimestamps, Identity, Interleaved, ForeignKeys, Associations,
// Transactions, NestedTransactions, RunTransactionAborts, Batches.
func TestEmulatorGORMSuite(t *testing.T) {
	t.Parallel()
	dialecttest.Suite(t, googleSQL(), &gorm.Config{Logger: logger.Discard})
}

// TestEmulatorGORMDocsApp: an application written the way GORM's
// documentation teaches, with PrepareStmt, runs unchanged on a GoogleSQL
// database (dialecttest.DocsApp).
func TestEmulatorGORMDocsApp(t *testing.T) {
	t.Parallel()
	d := googleSQL()
	dialecttest.DocsApp(t, d.Open(t, &gorm.Config{PrepareStmt: true, Logger: logger.Discard}))
}
