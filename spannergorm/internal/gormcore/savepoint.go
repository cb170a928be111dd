package gormcore

import (
	"gorm.io/gorm"

	"github.com/spannerfast/spannerfast/internal/sqlparse"
)

// Savepoints, for GORM's nested transactions (db.Transaction inside a
// Transaction). Spanner has none; the driver emulates them with its
// client-side statements SAVEPOINT and ROLLBACK TO SAVEPOINT, the same
// text in both dialects (docs/transactions.md#savepoints). Unlike GORM's
// PostgreSQL dialector, which drops the error of SAVEPOINT, both
// dialectors return it, so a nested transaction that cannot be set up or
// undone fails instead of being committed with the outer one.

// SavePoint sets the savepoint name (written as a quoted identifier of d)
// in tx's transaction.
func SavePoint(tx *gorm.DB, d sqlparse.Dialect, name string) error {
	return savepointStatement(tx, d, "SAVEPOINT ", name)
}

// RollbackTo undoes what tx's transaction did after the savepoint name.
func RollbackTo(tx *gorm.DB, d sqlparse.Dialect, name string) error {
	return savepointStatement(tx, d, "ROLLBACK TO SAVEPOINT ", name)
}

func savepointStatement(tx *gorm.DB, d sqlparse.Dialect, verb, name string) error {
	q, err := sqlparse.QuoteIdent(d, name)
	if err != nil {
		return err
	}
	return tx.Exec(verb + q).Error
}
