package e2e

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
)

// A connection that closes with a read-write transaction open rolls it
// back, so the transaction's locks go at once rather than when Spanner
// times it out.

// TestFakeCloseRollsBack: BEGIN (the statement) on a *sql.Conn, a DML that
// begins the transaction on the server, then Close without COMMIT or
// ROLLBACK: database/sql closes the connection (IsValid is false while a
// transaction is open) and exactly one Rollback of that transaction is
// sent. A transaction that began nothing on the server sends none.
func TestFakeCloseRollsBack(t *testing.T) {
	ctx := context.Background()
	s, db := startTxnFake(t)
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.ExecContext(ctx, "BEGIN"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ExecContext(ctx, txnInsert); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatalf("Close with a transaction open: %v", err)
	}
	rbs := s.RequestsFor("Rollback")
	if len(rbs) != 1 {
		t.Fatalf("%d Rollback requests after Close, want 1", len(rbs))
	}
	dml := s.RequestsFor("ExecuteSql")
	if len(dml) != 1 || len(s.RequestsFor("Commit")) != 0 {
		t.Fatalf("%d ExecuteSql, %d Commit requests; want 1 and 0", len(dml), len(s.RequestsFor("Commit")))
	}
	if got := rbs[0].Message.(*spannerpb.RollbackRequest).GetTransactionId(); len(got) == 0 {
		t.Fatal("the Rollback names no transaction")
	}

	// BEGIN and nothing else: nothing exists on the server to roll back.
	c2, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c2.ExecContext(ctx, "BEGIN"); err != nil {
		t.Fatal(err)
	}
	if err := c2.Close(); err != nil {
		t.Fatal(err)
	}
	if n := len(s.RequestsFor("Rollback")); n != 1 {
		t.Fatalf("%d Rollback requests after closing an unstarted transaction, want still 1", n)
	}
}

// TestFakeAbandonedTxRolledBackOnce: a Tx from BeginTx that its user never
// finishes holds its connection (database/sql does not close it); when
// the Tx's context ends, database/sql rolls it back and discards the
// connection, and the transaction is rolled back exactly once (the close
// that follows sends nothing more).
func TestFakeAbandonedTxRolledBackOnce(t *testing.T) {
	s, db := startTxnFake(t)
	c := dbConn(t, db)
	ctx, cancel := context.WithCancel(context.Background())
	tx, err := c.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.ExecContext(ctx, txnInsert); err != nil {
		t.Fatal(err)
	}
	cancel()
	deadline := time.Now().Add(10 * time.Second)
	for len(s.RequestsFor("Rollback")) == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if err := tx.Rollback(); err != sql.ErrTxDone {
		t.Fatalf("Rollback after the context ended: %v, want sql.ErrTxDone", err)
	}
	c.Close()
	if n := len(s.RequestsFor("Rollback")); n != 1 {
		t.Fatalf("%d Rollback requests, want 1", n)
	}
}
