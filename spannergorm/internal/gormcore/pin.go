package gormcore

import (
	"context"
	"database/sql"
	"fmt"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"gorm.io/gorm"
)

// Pin returns a session of db whose statements all go to one connection,
// and the function that gives that connection back. A DDL batch is state
// of a connection, so START BATCH DDL, the DDL and RUN BATCH must meet
// the same one; a pool hands each statement to whichever connection is
// free.
//
// The pools GORM hands a migrator are pinned so:
//   - a *sql.DB, or any pool with Conn(ctx) as *sql.DB has: one connection
//     is taken from it;
//   - a *sql.Conn: it is one connection already;
//   - a transaction (*sql.Tx, gorm.PreparedStmtTX, any gorm.TxCommitter):
//     one connection already, though Spanner refuses DDL in it;
//   - gorm.PreparedStmtDB (PrepareStmt, in gorm.Config or a Session):
//     the pool it prepares on is pinned as above and its statements run
//     unprepared there, since a statement prepared on the pool runs on
//     any of its connections;
//   - any other pool that says which *sql.DB it uses (GetDBConn): a
//     connection of that *sql.DB, bypassing the pool for the pinned
//     statements.
//
// Any other pool is refused with an error naming its type.
func Pin(db *gorm.DB) (*gorm.DB, func() error, error) {
	ctx := Context(db)
	tx := db.WithContext(ctx)
	pool, release, err := pinPool(ctx, tx.Statement.ConnPool)
	if err != nil {
		return nil, nil, err
	}
	tx.Statement.ConnPool = pool
	return tx, release, nil
}

// connGetter is a pool that hands out one of its connections: *sql.DB.
type connGetter interface {
	Conn(ctx context.Context) (*sql.Conn, error)
}

func noRelease() error { return nil }

func pinPool(ctx context.Context, pool gorm.ConnPool) (gorm.ConnPool, func() error, error) {
	switch p := pool.(type) {
	case *sql.Conn:
		return p, noRelease, nil
	case *gorm.PreparedStmtTX:
		// The statements of a prepared transaction run on its Tx; the
		// pinned ones need not fill the statement cache.
		if p.Tx != nil {
			return p.Tx, noRelease, nil
		}
		return p, noRelease, nil
	case gorm.TxCommitter:
		return pool, noRelease, nil
	case *gorm.PreparedStmtDB:
		if p.ConnPool == nil {
			break
		}
		return pinPool(ctx, p.ConnPool)
	case connGetter:
		return pinConn(ctx, p)
	case gorm.GetDBConnector:
		sqlDB, err := p.GetDBConn()
		if err != nil {
			return nil, nil, fmt.Errorf("spannergorm: the *sql.DB of connection pool %T: %w", pool, err)
		}
		if sqlDB != nil {
			return pinConn(ctx, sqlDB)
		}
	}
	return nil, nil, &UnpinnablePoolError{Pool: pool}
}

func pinConn(ctx context.Context, pool connGetter) (gorm.ConnPool, func() error, error) {
	conn, err := pool.Conn(ctx)
	if err != nil {
		return nil, nil, err
	}
	return conn, conn.Close, nil
}

// UnpinnablePoolError is the error of a connection pool that Pin cannot
// reduce to one connection. Its gRPC code (status.Code) is
// FailedPrecondition.
type UnpinnablePoolError struct {
	Pool gorm.ConnPool // the pool GORM handed the migrator
}

func (e *UnpinnablePoolError) Error() string {
	return fmt.Sprintf("spannergorm: a DDL batch needs one connection, and connection pool %T gives no way to take one "+
		"(it is not a *sql.DB, *sql.Conn, transaction or gorm.PreparedStmtDB, and has neither Conn(ctx) nor GetDBConn); "+
		"pass a *sql.DB, or set DisableAutoMigrateBatching", e.Pool)
}

// GRPCStatus makes status.Code report FailedPrecondition.
func (e *UnpinnablePoolError) GRPCStatus() *status.Status {
	return status.New(codes.FailedPrecondition, e.Error())
}
