package gormcore

import (
	"context"
	"database/sql"
	sqldriver "database/sql/driver"

	"gorm.io/gorm"
)

// Record runs migrate on a session whose statements given to ExecContext
// are kept instead of run (with their arguments rendered in by the
// dialector's Explain); queries still go to the database, so the
// migration reads the current schema. It returns the statements migrate
// would have sent.
func Record(db *gorm.DB, migrate func(tx *gorm.DB) error) ([]string, error) {
	tx := db.WithContext(Context(db))
	rec := &recorder{ConnPool: tx.Statement.ConnPool, explain: db.Dialector.Explain}
	tx.Statement.ConnPool = rec
	err := migrate(tx)
	return rec.statements, err
}

type recorder struct {
	gorm.ConnPool
	explain    func(sql string, vars ...any) string
	statements []string
}

func (r *recorder) ExecContext(_ context.Context, query string, args ...any) (sql.Result, error) {
	if len(args) > 0 {
		query = r.explain(query, args...)
	}
	r.statements = append(r.statements, query)
	return sqldriver.RowsAffected(0), nil
}
