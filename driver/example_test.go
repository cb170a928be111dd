package driver_test

import (
	"context"
	"database/sql"
	"fmt"
	"log"
	"time"

	"cloud.google.com/go/spanner"

	spannerdriver "github.com/spannerfast/spannerfast/driver"
	"github.com/spannerfast/spannerfast/spannerfasttest"
)

// startServer starts the embedded Spanner server with a Singers table of
// three rows, so that the examples run without a network or an account.
// Against Spanner, sql.Open takes a DSN such as
// "projects/p/instances/i/databases/d" instead of srv.DSN().
func startServer() *spannerfasttest.Server {
	ctx := context.Background()
	srv, err := spannerfasttest.Start()
	if err != nil {
		log.Fatal(err)
	}
	if err := srv.CreateTables(ctx,
		"CREATE TABLE Singers (SingerId INT64 NOT NULL, Name STRING(MAX)) PRIMARY KEY (SingerId)"); err != nil {
		log.Fatal(err)
	}
	db, err := sql.Open("spannerfast", srv.DSN())
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx,
		"INSERT INTO Singers (SingerId, Name) VALUES (1, 'Marc'), (2, 'Catalina'), (3, 'Alice')"); err != nil {
		log.Fatal(err)
	}
	return srv
}

// Open a database with the "spannerfast" driver and query it.
func Example() {
	ctx := context.Background()
	srv := startServer()
	defer srv.Close()

	db, err := sql.Open("spannerfast", srv.DSN())
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()

	rows, err := db.QueryContext(ctx,
		"SELECT SingerId, Name FROM Singers WHERE SingerId >= @min ORDER BY SingerId", sql.Named("min", 2))
	if err != nil {
		log.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var name string
		if err := rows.Scan(&id, &name); err != nil {
			log.Fatal(err)
		}
		fmt.Println(id, name)
	}
	if err := rows.Err(); err != nil {
		log.Fatal(err)
	}
	// Output:
	// 2 Catalina
	// 3 Alice
}

// A read-write transaction through database/sql: statements see the
// transaction's own writes, and Commit applies them. An aborted
// transaction is replayed by the driver.
func Example_transaction() {
	ctx := context.Background()
	srv := startServer()
	defer srv.Close()
	db, err := sql.Open("spannerfast", srv.DSN())
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()

	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		log.Fatal(err)
	}
	res, err := tx.ExecContext(ctx, "UPDATE Singers SET Name = ? WHERE SingerId = ?", "Marco", 1)
	if err != nil {
		log.Fatal(err)
	}
	n, _ := res.RowsAffected()
	var name string
	if err := tx.QueryRowContext(ctx, "SELECT Name FROM Singers WHERE SingerId = 1").Scan(&name); err != nil {
		log.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		log.Fatal(err)
	}
	fmt.Println(n, "row updated, now", name)
	// Output: 1 row updated, now Marco
}

// RunTransaction runs the function again when Spanner aborts the
// transaction.
func ExampleRunTransaction() {
	ctx := context.Background()
	srv := startServer()
	defer srv.Close()
	db, err := sql.Open("spannerfast", srv.DSN())
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()

	err = spannerdriver.RunTransaction(ctx, db, nil, func(ctx context.Context, tx *sql.Tx) error {
		var max int64
		if err := tx.QueryRowContext(ctx, "SELECT MAX(SingerId) FROM Singers").Scan(&max); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, "INSERT INTO Singers (SingerId, Name) VALUES (?, ?)", max+1, "Dave")
		return err
	})
	if err != nil {
		log.Fatal(err)
	}
	var count int64
	if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM Singers").Scan(&count); err != nil {
		log.Fatal(err)
	}
	fmt.Println(count, "singers")
	// Output: 4 singers
}

// ExecuteBatchDml sends the statements the function adds in one
// ExecuteBatchDml request, and returns one count per statement.
func ExampleExecuteBatchDml() {
	ctx := context.Background()
	srv := startServer()
	defer srv.Close()
	db, err := sql.Open("spannerfast", srv.DSN())
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()

	res, err := spannerdriver.ExecuteBatchDml(ctx, db, func(ctx context.Context, batch spannerdriver.DmlBatch) error {
		if err := batch.ExecContext(ctx, "INSERT INTO Singers (SingerId, Name) VALUES (?, ?)", 10, "Eve"); err != nil {
			return err
		}
		return batch.ExecContext(ctx, "UPDATE Singers SET Name = 'Marcus' WHERE SingerId <= 2")
	})
	if err != nil {
		log.Fatal(err)
	}
	counts, err := res.BatchRowsAffected()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("update counts:", counts)
	// Output: update counts: [1 2]
}

// AutoPartition reads a query as partitions, in parallel, into one
// *sql.Rows. Rows of different partitions interleave.
func ExampleAutoPartition() {
	ctx := context.Background()
	srv := startServer()
	defer srv.Close()
	db, err := sql.Open("spannerfast", srv.DSN())
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()

	rows, err := db.QueryContext(ctx, "SELECT SingerId FROM Singers", spannerdriver.AutoPartition(4))
	if err != nil {
		log.Fatal(err)
	}
	defer rows.Close()
	var sum int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			log.Fatal(err)
		}
		sum += id
	}
	if err := rows.Err(); err != nil {
		log.Fatal(err)
	}
	fmt.Println("sum of ids:", sum)
	// Output: sum of ids: 6
}

// A batch read-only transaction splits a query into partitions, which any
// *sql.DB on the database (another process, given the partition's bytes)
// can read.
func ExampleBeginBatchReadOnlyTransaction() {
	ctx := context.Background()
	srv := startServer()
	defer srv.Close()
	db, err := sql.Open("spannerfast", srv.DSN())
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()

	tx, err := spannerdriver.BeginBatchReadOnlyTransaction(ctx, db, spannerdriver.BatchReadOnlyTransactionOptions{
		TimestampBound: spanner.StrongRead(),
	})
	if err != nil {
		log.Fatal(err)
	}
	defer tx.Commit() // sends nothing; ends the transaction

	var pq spannerdriver.PartitionedQuery
	if err := tx.QueryRowContext(ctx, "SELECT SingerId FROM Singers", spannerdriver.PartitionQuery()).Scan(&pq); err != nil {
		log.Fatal(err)
	}
	total := 0
	for i := range pq.Partitions {
		rows, err := pq.Execute(ctx, i, db)
		if err != nil {
			log.Fatal(err)
		}
		for rows.Next() {
			total++
		}
		if err := rows.Close(); err != nil {
			log.Fatal(err)
		}
	}
	fmt.Println(total, "rows")
	// Output: 3 rows
}

// RawDecode(true) among a query's arguments decodes that query's rows
// without copying: a STRING value aliases the receive buffer until the next
// Next, so scan it into a string (which copies) or use it at once.
func ExampleRawDecode() {
	ctx := context.Background()
	srv := startServer()
	defer srv.Close()
	db, err := sql.Open("spannerfast", srv.DSN())
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()

	rows, err := db.QueryContext(ctx, "SELECT Name FROM Singers ORDER BY SingerId", spannerdriver.RawDecode(true))
	if err != nil {
		log.Fatal(err)
	}
	defer rows.Close()
	var total int
	for rows.Next() {
		var name sql.RawBytes // valid until the next Next
		if err := rows.Scan(&name); err != nil {
			log.Fatal(err)
		}
		total += len(name)
	}
	if err := rows.Err(); err != nil {
		log.Fatal(err)
	}
	fmt.Println(total, "bytes of names")
	// Output: 17 bytes of names
}

// Mutations go through the connection's SpannerConn, as with
// go-sql-spanner: Apply writes them atomically in a transaction of their
// own and returns the commit timestamp.
func ExampleSpannerConn_apply() {
	ctx := context.Background()
	srv := startServer()
	defer srv.Close()
	db, err := sql.Open("spannerfast", srv.DSN())
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()

	c, err := db.Conn(ctx)
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	var ts time.Time
	err = c.Raw(func(dc any) error {
		ts, err = dc.(spannerdriver.SpannerConn).Apply(ctx, []*spanner.Mutation{
			spanner.Insert("Singers", []string{"SingerId", "Name"}, []any{int64(4), "Bob"}),
			spanner.Delete("Singers", spanner.Key{int64(3)}),
		})
		return err
	})
	if err != nil {
		log.Fatal(err)
	}
	var names []string
	rows, err := db.QueryContext(ctx, "SELECT Name FROM Singers ORDER BY SingerId")
	if err != nil {
		log.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			log.Fatal(err)
		}
		names = append(names, name)
	}
	fmt.Println(names, "committed:", !ts.IsZero())
	// Output: [Marc Catalina Bob] committed: true
}
