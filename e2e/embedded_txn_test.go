package e2e

import (
	"context"
	"database/sql"
	"fmt"
	"testing"

	"cloud.google.com/go/civil"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	sfdriver "github.com/spannerfast/spannerfast/driver"
	"github.com/spannerfast/spannerfast/spannerfasttest"
)

// Writes end to end on the embedded server (spannerfasttest): DML in
// autocommit mode and in read-write transactions, THEN-less inserts of
// several rows, read-only transactions, and the rows read back.

// openEmbedded starts the embedded server with the given tables and opens a
// database/sql handle on it; both end with the test.
func openEmbedded(t *testing.T, ddl ...string) *sql.DB {
	t.Helper()
	srv, err := spannerfasttest.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	if len(ddl) > 0 {
		if err := srv.CreateTables(context.Background(), ddl...); err != nil {
			t.Fatal(err)
		}
	}
	db, err := sql.Open("spannerfast", srv.DSN())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func startEmbeddedSingers(t *testing.T) *sql.DB {
	return openEmbedded(t, `CREATE TABLE Singers (
		SingerId INT64 NOT NULL,
		Name STRING(MAX),
		Born DATE,
	) PRIMARY KEY (SingerId)`)
}

func singers(t *testing.T, q queryerCtx) string {
	t.Helper()
	rows := mustQuery(t, q, "SELECT SingerId, Name FROM Singers ORDER BY SingerId")
	defer rows.Close()
	out := ""
	for rows.Next() {
		var id int64
		var name sql.NullString
		if err := rows.Scan(&id, &name); err != nil {
			t.Fatal(err)
		}
		out += fmt.Sprintf("%d:%s ", id, name.String)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestEmbeddedDML(t *testing.T) {
	ctx := context.Background()
	db := startEmbeddedSingers(t)

	res, err := db.ExecContext(ctx, "INSERT INTO Singers (SingerId, Name, Born) VALUES (?, ?, ?), (?, ?, ?)",
		1, "Alice", civil.Date{Year: 1990, Month: 1, Day: 2}, 2, "Bob", nil)
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := res.RowsAffected(); n != 2 {
		t.Fatalf("INSERT of two rows: RowsAffected %d", n)
	}
	res, err = db.ExecContext(ctx, "UPDATE Singers SET Name = @name WHERE SingerId = @id", sql.Named("name", "Bobby"), sql.Named("id", 2))
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		t.Fatalf("UPDATE: RowsAffected %d", n)
	}
	if got := singers(t, db); got != "1:Alice 2:Bobby " {
		t.Fatalf("rows %q", got)
	}
	// Go strings are sent without a type, as go-sql-spanner sends them.
	var id int64
	if err := db.QueryRowContext(ctx, "SELECT SingerId FROM Singers WHERE Name = ?", "Alice").Scan(&id); err != nil || id != 1 {
		t.Fatalf("query with an untyped string parameter: %d, %v", id, err)
	}
	if _, err := db.ExecContext(ctx, "INSERT INTO Singers (SingerId, Name) VALUES (1, 'Again')"); status.Code(err) != codes.AlreadyExists {
		t.Fatalf("duplicate key: %v, want AlreadyExists", err)
	}

	// A read-write transaction: its writes commit together.
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.ExecContext(ctx, "INSERT INTO Singers (SingerId, Name) VALUES (3, 'Carol')"); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.ExecContext(ctx, "DELETE FROM Singers WHERE SingerId = 1"); err != nil {
		t.Fatal(err)
	}
	if got := singers(t, tx); got != "2:Bobby 3:Carol " {
		t.Fatalf("rows inside the transaction %q", got)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := singers(t, db); got != "2:Bobby 3:Carol " {
		t.Fatalf("rows after commit %q", got)
	}

	// RunTransaction and a read-only transaction.
	err = sfdriver.RunTransaction(ctx, db, nil, func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, "UPDATE Singers SET Name = 'Caroline' WHERE SingerId = 3")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	ro, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := singers(t, ro); got != "2:Bobby 3:Caroline " {
		t.Fatalf("rows in a read-only transaction %q", got)
	}
	if err := ro.Commit(); err != nil {
		t.Fatal(err)
	}
	var ts any
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.ExecContext(ctx, "DELETE FROM Singers WHERE SingerId = 2"); err != nil {
		t.Fatal(err)
	}
	if err := c.QueryRowContext(ctx, "SHOW VARIABLE commit_timestamp").Scan(&ts); err != nil || ts == nil {
		t.Fatalf("commit_timestamp after autocommit DML: %v, %v", ts, err)
	}
}
