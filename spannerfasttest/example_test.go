package spannerfasttest_test

import (
	"context"
	"database/sql"
	"fmt"
	"log"

	_ "github.com/spannerfast/spannerfast/driver"
	"github.com/spannerfast/spannerfast/spannerfasttest"
)

func Example() {
	ctx := context.Background()
	srv, err := spannerfasttest.Start()
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	if err := srv.CreateTables(ctx, "CREATE TABLE Singers (Id INT64 NOT NULL, Name STRING(MAX)) PRIMARY KEY (Id)"); err != nil {
		log.Fatal(err)
	}
	db, err := sql.Open("spannerfast", srv.DSN())
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	var n int64
	if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM Singers").Scan(&n); err != nil {
		log.Fatal(err)
	}
	fmt.Println(n, "singers")
	// Output: 0 singers
}

// In a test: one server per test (or per package, from TestMain), the
// schema made through the admin API, and connection properties appended to
// the DSN.
func ExampleServer_DSN() {
	ctx := context.Background()
	srv, err := spannerfasttest.Start()
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	if err := srv.CreateTables(ctx, "CREATE TABLE Singers (Id INT64 NOT NULL, Name STRING(MAX)) PRIMARY KEY (Id)"); err != nil {
		log.Fatal(err)
	}
	db, err := sql.Open("spannerfast", srv.DSN("statement_timeout=5s", "rpc_priority=LOW"))
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, "INSERT INTO Singers (Id, Name) VALUES (1, 'Ann'), (2, 'Bob')"); err != nil {
		log.Fatal(err)
	}
	var priority string
	if err := db.QueryRowContext(ctx, "SHOW VARIABLE rpc_priority").Scan(&priority); err != nil {
		log.Fatal(err)
	}
	var n int64
	if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM Singers").Scan(&n); err != nil {
		log.Fatal(err)
	}
	fmt.Println(n, "singers, rpc_priority", priority)
	// Output: 2 singers, rpc_priority PRIORITY_LOW
}
