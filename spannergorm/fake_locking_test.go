package spannergorm_test

import (
	"testing"

	"gorm.io/gorm"
	"gorm.io/gorm/logger"

	"github.com/spannerfast/spannerfast/spannergorm"
	"github.com/spannerfast/spannerfast/spannergorm/internal/dialecttest"
)

// TestFakeSelectForUpdate: clause.Locking renders GoogleSQL's FOR UPDATE
// and runs in its transaction (dialecttest.SelectForUpdate); go-gorm-spanner's
// TestSelectForUpdate asserts the same text.
func TestFakeSelectForUpdate(t *testing.T) {
	dialecttest.SelectForUpdate(t, "GOOGLE_STANDARD_SQL",
		"SELECT * FROM `locked_items` WHERE `locked_items`.`id` = @p1 FOR UPDATE",
		func(dsn string) (*gorm.DB, error) {
			return gorm.Open(spannergorm.New(spannergorm.Config{DSN: dsn}), &gorm.Config{Logger: logger.Discard})
		})
}
