package spannergorm

import (
	"testing"

	"database/sql/driver"

	"github.com/DATA-DOG/go-sqlmock"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"
)

// newMock opens GORM on a sqlmock pool that matches SQL text exactly and
// checks at the end of the test that every expectation was met.
func newMock(t *testing.T, cfg Config) (*gorm.DB, sqlmock.Sqlmock) {
	t.Helper()
	sqlDB, mock, err := sqlmock.New(sqlmock.QueryMatcherOption(sqlmock.QueryMatcherEqual))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Conn = sqlDB
	db, err := gorm.Open(New(cfg), &gorm.Config{Logger: logger.Discard, SkipDefaultTransaction: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := mock.ExpectationsWereMet(); err != nil {
			t.Error(err)
		}
		_ = sqlDB.Close()
	})
	return db, mock
}

func countRows(n int) *sqlmock.Rows {
	return sqlmock.NewRows([]string{"count"}).AddRow(n)
}

func sqlResult(rows int64) driver.Result { return sqlmock.NewResult(0, rows) }
