package e2e

import (
	"context"
	"database/sql"
	"testing"
)

// connTx takes one connection of db (dbConn: closed when the test ends)
// and begins a read-write transaction on it: the tests that reach the
// connection's SpannerConn methods (Raw, ExecuteBatchDmlOnConn) or its
// SHOW VARIABLEs while the transaction is open need both.
func connTx(t *testing.T, ctx context.Context, db *sql.DB) (*sql.Conn, *sql.Tx) {
	t.Helper()
	c := dbConn(t, db)
	tx, err := c.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	return c, tx
}
