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
