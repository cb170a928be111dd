package gormcore

import (
	"errors"
	"math"
	"reflect"
	"testing"

	"github.com/DATA-DOG/go-sqlmock"
	"gorm.io/gorm"
	"gorm.io/gorm/callbacks"
	"gorm.io/gorm/clause"
	"gorm.io/gorm/logger"
	"gorm.io/gorm/schema"
)

// batcher is a migrator stand-in whose batch statements go to its DB.
type batcher struct{ db *gorm.DB }

func (b batcher) StartBatchDDL() error { return b.db.Exec("START BATCH DDL").Error }
func (b batcher) RunBatch() error      { return b.db.Exec("RUN BATCH").Error }
func (b batcher) AbortBatch() error    { return b.db.Exec("ABORT BATCH").Error }

// testDialector is the least GORM needs to run statements on a pool.
type testDialector struct{ pool gorm.ConnPool }

func (d testDialector) Name() string { return "test" }
func (d testDialector) Initialize(db *gorm.DB) error {
	callbacks.RegisterDefaultCallbacks(db, &callbacks.Config{})
	db.ConnPool = d.pool
	return nil
}
func (testDialector) Migrator(*gorm.DB) gorm.Migrator { return nil }
func (testDialector) DataTypeOf(*schema.Field) string { return "" }
func (testDialector) DefaultValueOf(*schema.Field) clause.Expression {
	return clause.Expr{SQL: "DEFAULT"}
}
func (testDialector) BindVarTo(w clause.Writer, _ *gorm.Statement, _ any) { w.WriteByte('?') }
func (testDialector) QuoteTo(w clause.Writer, s string)                   { w.WriteString(s) }
func (testDialector) Explain(sql string, vars ...any) string {
	return logger.ExplainSQL(sql, nil, `'`, vars...)
}

func open(t *testing.T) (*gorm.DB, sqlmock.Sqlmock) {
	t.Helper()
	sqlDB, mock, err := sqlmock.New(sqlmock.QueryMatcherOption(sqlmock.QueryMatcherEqual))
	if err != nil {
		t.Fatal(err)
	}
	db, err := gorm.Open(testDialector{pool: sqlDB}, &gorm.Config{Logger: logger.Discard, SkipDefaultTransaction: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := mock.ExpectationsWereMet(); err != nil {
			t.Error(err)
		}
		sqlDB.Close()
	})
	return db, mock
}

func ok(mock sqlmock.Sqlmock, stmts ...string) {
	for _, s := range stmts {
		mock.ExpectExec(s).WillReturnResult(sqlmock.NewResult(0, 0))
	}
}

// TestInBatch: the batch is run after fn succeeds and aborted after it
// fails, with fn's error; the migrator works on a pinned session.
func TestInBatch(t *testing.T) {
	db, mock := open(t)
	ok(mock, "START BATCH DDL", "CREATE TABLE a", "RUN BATCH")
	if err := InBatch(db, func(d *gorm.DB) batcher { return batcher{d} }, func(b batcher) error {
		if _, pinned := b.db.Statement.ConnPool.(interface{ Raw(func(any) error) error }); !pinned {
			t.Errorf("migrator pool %T, want a pinned *sql.Conn", b.db.Statement.ConnPool)
		}
		return b.db.Exec("CREATE TABLE a").Error
	}); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	ok(mock, "START BATCH DDL", "ABORT BATCH")
	if err := InBatch(db, func(d *gorm.DB) batcher { return batcher{d} }, func(batcher) error { return boom }); !errors.Is(err, boom) {
		t.Fatalf("InBatch error %v, want boom", err)
	}
}

// TestRecord: Exec statements are kept with their arguments rendered,
// not sent.
func TestRecord(t *testing.T) {
	db, _ := open(t)
	got, err := Record(db, func(tx *gorm.DB) error {
		if err := tx.Exec("CREATE TABLE a").Error; err != nil {
			return err
		}
		return tx.Exec("ALTER TABLE a ADD COLUMN b DEFAULT ?", 3).Error
	})
	if err != nil || len(got) != 2 || got[0] != "CREATE TABLE a" || got[1] != "ALTER TABLE a ADD COLUMN b DEFAULT 3" {
		t.Fatalf("Record = %q, %v", got, err)
	}
}

// TestBuildLimit: LIMIT and OFFSET are parameters (one text for every
// page size); an OFFSET alone gets the largest LIMIT; no limit and no
// offset renders nothing.
func TestBuildLimit(t *testing.T) {
	db, _ := open(t)
	db.ClauseBuilders["LIMIT"] = BuildLimit
	five, zero := 5, 0
	for _, c := range []struct {
		l    clause.Limit
		want string
		vars []any
	}{
		{clause.Limit{Offset: 3}, "LIMIT ? OFFSET ?", []any{int64(math.MaxInt64), int64(3)}},
		{clause.Limit{Limit: &five}, "LIMIT ?", []any{int64(5)}},
		{clause.Limit{Limit: &zero}, "LIMIT ?", []any{int64(0)}},
		{clause.Limit{Limit: &five, Offset: 2}, "LIMIT ? OFFSET ?", []any{int64(5), int64(2)}},
		{clause.Limit{}, "", nil},
	} {
		stmt := &gorm.Statement{DB: db, Clauses: map[string]clause.Clause{}}
		stmt.AddClause(c.l)
		stmt.Build("LIMIT")
		if got := stmt.SQL.String(); got != c.want || !reflect.DeepEqual(stmt.Vars, c.vars) {
			t.Errorf("%+v: %q %v, want %q %v", c.l, got, stmt.Vars, c.want, c.vars)
		}
	}
}
