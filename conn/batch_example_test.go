package conn_test

import (
	"context"
	"database/sql"
	"fmt"
	"log"

	"cloud.google.com/go/spanner"

	"github.com/spannerfast/spannerfast/conn"
	_ "github.com/spannerfast/spannerfast/driver"
	"github.com/spannerfast/spannerfast/spannerfasttest"
)

// Example_batches makes a schema in one DDL batch, then writes in one DML
// batch and reads the per-statement update counts through sql.Conn.Raw.
func Example_batches() {
	ctx := context.Background()
	srv, err := spannerfasttest.Start()
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	db, err := sql.Open("spannerfast", srv.DSN())
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	c, err := db.Conn(ctx) // batches belong to one connection
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()

	must := func(_ sql.Result, err error) {
		if err != nil {
			log.Fatal(err)
		}
	}
	must(c.ExecContext(ctx, "START BATCH DDL"))
	must(c.ExecContext(ctx, "CREATE TABLE Singers (SingerId INT64 NOT NULL, Name STRING(MAX)) PRIMARY KEY (SingerId)"))
	must(c.ExecContext(ctx, "CREATE INDEX SingersByName ON Singers (Name)"))
	must(c.ExecContext(ctx, "RUN BATCH")) // one UpdateDatabaseDdl

	name := func(s string) spanner.NullString { return spanner.NullString{StringVal: s, Valid: true} }
	must(c.ExecContext(ctx, "START BATCH DML"))
	must(c.ExecContext(ctx, "INSERT INTO Singers (SingerId, Name) VALUES (1, @n)", name("Ann")))
	must(c.ExecContext(ctx, "INSERT INTO Singers (SingerId, Name) VALUES (2, @n)", name("Bob")))
	must(c.ExecContext(ctx, "UPDATE Singers SET Name = 'Anna' WHERE SingerId = 1"))
	err = c.Raw(func(dc any) error {
		res, err := dc.(*conn.Conn).RunDmlBatch(ctx) // one ExecuteBatchDml, committed
		if err != nil {
			return err
		}
		counts, _ := res.BatchRowsAffected()
		fmt.Println("update counts:", counts)
		return nil
	})
	if err != nil {
		log.Fatal(err)
	}
	// Output: update counts: [1 1 1]
}
