package dialecttest

import (
	"context"
	"database/sql"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"cloud.google.com/go/spanner"
	"gorm.io/gorm"

	"github.com/spannerfast/spannerfast/spannergorm/internal/gormcore"
)

// Dialect is what Suite needs from a dialector's test: how to open a
// database of its dialect and the few things each dialect writes its own
// way.
type Dialect struct {
	// Open returns a GORM handle with cfg on a new, empty database of the
	// dialect (cfg.Logger is set by the caller of Suite or left nil).
	Open func(t *testing.T, cfg *gorm.Config) *gorm.DB
	// Statements returns the DDL a migration of models would send now
	// (the dialector's MigrationStatements).
	Statements func(db *gorm.DB, models ...any) ([]string, error)
	// RunTransaction is spannergorm.RunTransaction.
	RunTransaction func(ctx context.Context, db *gorm.DB, fc func(tx *gorm.DB) error) error
	// Types points to a slice of two rows of the dialect's model with a
	// column of every type it maps: one with a value in every column, one
	// with NULLs and empty values. The model embeds Scalars, has an int64
	// key ID and its table is "all_types".
	Types any
	// Schema checks, after the migration, the column types the engine
	// reports for the tables of Types ("all_types") and Stamped
	// ("stamps"): each dialect reads its own INFORMATION_SCHEMA.
	Schema func(t *testing.T, db *gorm.DB)
	// Stamped points to a zero value of the dialect's model with a commit
	// timestamp: fields ID (int64 key), Name (string) and a column
	// "modified" that each INSERT and UPDATE set to the commit timestamp.
	Stamped any
}

// Scalars are the columns whose Go types both dialects map; a dialect's
// Types model embeds it and adds NUMERIC, JSON, DATE and arrays.
type Scalars struct {
	Int         int64
	Int32       int32
	Uint8       uint8
	Float       float64
	Float32     float32
	String      string
	Sized       string `gorm:"size:10"`
	Bool        bool
	Bytes       []byte
	Time        time.Time
	PtrString   *string
	PtrTime     *time.Time
	NullInt     spanner.NullInt64
	NullString  spanner.NullString
	NullFloat   spanner.NullFloat64
	NullBool    spanner.NullBool
	NullTime    spanner.NullTime
	NullDate    spanner.NullDate
	SQLNullInt  sql.NullInt64
	SQLNullStr  sql.NullString
	SQLNullTime sql.NullTime
	SQLNullBool sql.NullBool
}

// Account is the model of the transaction and abort scenarios: an
// IDENTITY key, a sized name (a longer one fails on the engine).
type Account struct {
	ID      int64
	Name    string `gorm:"size:40"`
	Balance int64
}

// Item is the model of the batch scenario.
type Item struct {
	ID   int64
	N    int64
	Done bool
}

// Hall and Room: Room is interleaved in Hall (its key starts with the
// hall's, with the same name) and deleted with it.
type Hall struct {
	HallID int64 `gorm:"primaryKey;autoIncrement:false"`
	Name   string
	Rooms  []Room `gorm:"foreignKey:HallID"`
}

type Room struct {
	HallID int64 `gorm:"primaryKey;autoIncrement:false"`
	Number int64 `gorm:"primaryKey;autoIncrement:false"`
	Name   string
}

// InterleaveInParent implements gormcore.Interleaved (spannergorm.Interleaved
// and spannerpg.Interleaved).
func (Room) InterleaveInParent() gormcore.Interleave {
	return gormcore.Interleave{Parent: "halls", OnDeleteCascade: true}
}

// suiteModels are the models Suite migrates besides the dialect's.
func suiteModels() []any {
	return append(Models(), &Account{}, &Item{}, &Hall{}, &Room{})
}

// Suite runs the end-to-end scenarios, each a subtest named after what it
// proves, one after the other on one database of the dialect (the
// emulator runs one read-write transaction per database at a time, so the
// subtests do not run in parallel; each uses its own tables or keys).
// AutoMigrateTwice runs first: it migrates every model of the suite.
func Suite(t *testing.T, d Dialect, cfg *gorm.Config) {
	db := d.Open(t, cfg)
	models := append(suiteModels(), d.Types, d.Stamped)
	if !t.Run("AutoMigrateTwice", func(t *testing.T) { autoMigrateTwice(t, d, db, models) }) {
		t.FailNow()
	}
	t.Run("Schema", func(t *testing.T) { d.Schema(t, db) })
	t.Run("Types", func(t *testing.T) { types(t, db, d.Types) })
	t.Run("CommitTimestamps", func(t *testing.T) { commitTimestamps(t, db, d.Stamped) })
	t.Run("Identity", func(t *testing.T) { identity(t, db) })
	t.Run("Interleaved", func(t *testing.T) { interleaved(t, db) })
	t.Run("ForeignKeys", func(t *testing.T) { foreignKeys(t, db) })
	t.Run("Associations", func(t *testing.T) { associations(t, db) })
	t.Run("Transactions", func(t *testing.T) { transactions(t, db) })
	t.Run("NestedTransactions", func(t *testing.T) { nestedTransactions(t, db) })
	t.Run("RunTransactionAborts", func(t *testing.T) { runTransactionAborts(t, d, db) })
	t.Run("Batches", func(t *testing.T) { batches(t, d, db) })
}

// ddlRecorder records the DDL statements GORM sends through db (the
// migrator sends each with Exec); START BATCH DDL and RUN BATCH are not
// DDL.
func ddlRecorder(t *testing.T, db *gorm.DB) func() []string {
	t.Helper()
	var (
		mu   sync.Mutex
		sent []string
	)
	name := "dialecttest:ddl_" + strings.ReplaceAll(t.Name(), "/", "_")
	must(t, db.Callback().Raw().After("gorm:raw").Register(name, func(tx *gorm.DB) {
		sql := strings.TrimSpace(strings.ToUpper(tx.Statement.SQL.String()))
		for _, verb := range []string{"CREATE ", "ALTER ", "DROP "} {
			if strings.HasPrefix(sql, verb) {
				mu.Lock()
				sent = append(sent, tx.Statement.SQL.String())
				mu.Unlock()
			}
		}
	}))
	t.Cleanup(func() { _ = db.Callback().Raw().Remove(name) })
	return func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(sent)
	}
}

// autoMigrateTwice: the first AutoMigrate of every model creates tables,
// IDENTITY keys, indexes, foreign keys, an interleaved table and the
// dialect's columns of every type; the second, as an application runs it
// at each start, sends no DDL at all.
func autoMigrateTwice(t *testing.T, d Dialect, db *gorm.DB, models []any) {
	sent := ddlRecorder(t, db)
	if err := db.AutoMigrate(models...); err != nil {
		t.Fatalf("first AutoMigrate: %v", err)
	}
	first := sent()
	if len(first) < len(models) {
		t.Fatalf("first AutoMigrate sent %d DDL statements for %d models: %q", len(first), len(models), first)
	}
	if again, err := d.Statements(db, models...); err != nil || len(again) != 0 {
		t.Fatalf("statements of a second migration = %q, %v; want none", again, err)
	}
	if err := db.AutoMigrate(models...); err != nil {
		t.Fatalf("second AutoMigrate: %v", err)
	}
	if second := sent()[len(first):]; len(second) != 0 {
		t.Fatalf("second AutoMigrate sent DDL: %q", second)
	}
	for _, m := range models {
		if !db.Migrator().HasTable(m) {
			t.Errorf("no table for %T", m)
		}
	}
}
