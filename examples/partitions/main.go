// Command partitions reads one query through partitions on the embedded
// server (or on a new database on the emulator when SPANNER_EMULATOR_HOST
// is set):
//
//	go run ./examples/partitions
//
// It shows the three ways in: a batch read-only transaction whose query is
// only partitioned (driver.PartitionQuery()) and whose partitions are read
// one by one, here by a second *sql.DB as another process would;
// RUN PARTITIONED QUERY, which reads every partition into one *sql.Rows; and
// PARTITION / RUN PARTITION with partition ids. The embedded server makes
// one partition per query; Spanner makes as many as the data needs.
package main

import (
	"context"
	"database/sql"
	"fmt"
	"log"

	sfdriver "github.com/spannerfast/spannerfast/driver"
	"github.com/spannerfast/spannerfast/internal/embedded"
)

func main() {
	total, err := run(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("read %d rows in all\n", total)
}

// run returns the number of rows read the three ways together.
func run(ctx context.Context) (int, error) {
	target, err := embedded.ForExample("partitions")
	if err != nil {
		return 0, err
	}
	defer target.Close()
	fmt.Println("running on", target)
	db, err := sql.Open("spannerfast", target.DSN())
	if err != nil {
		return 0, err
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, "CREATE TABLE Singers (SingerId INT64 NOT NULL, Name STRING(MAX)) PRIMARY KEY (SingerId)"); err != nil {
		return 0, err
	}
	for i := range 10 {
		if _, err := db.ExecContext(ctx, "INSERT INTO Singers (SingerId, Name) VALUES (?, ?)", int64(i), fmt.Sprintf("Singer %d", i)); err != nil {
			return 0, err
		}
	}

	// 1. Partition in a batch read-only transaction, read elsewhere.
	n1, err := partitionAndExecute(ctx, db, target.DSN())
	if err != nil {
		return 0, err
	}
	// 2. All partitions into one *sql.Rows, on Data Boost where it exists.
	rows, err := db.QueryContext(ctx, "RUN PARTITIONED QUERY SELECT SingerId, Name FROM Singers")
	if err != nil {
		return 0, err
	}
	n2, err := count(rows)
	if err != nil {
		return 0, err
	}
	fmt.Printf("RUN PARTITIONED QUERY: %d rows\n", n2)
	// 3. Partition ids as text.
	n3, err := partitionIDs(ctx, db)
	if err != nil {
		return 0, err
	}
	return n1 + n2 + n3, nil
}

func partitionAndExecute(ctx context.Context, db *sql.DB, dsn string) (int, error) {
	tx, err := sfdriver.BeginBatchReadOnlyTransaction(ctx, db, sfdriver.BatchReadOnlyTransactionOptions{})
	if err != nil {
		return 0, err
	}
	// Read-only: Commit sends nothing, but it ends the transaction and
	// gives the connection back.
	defer tx.Commit()
	var pq sfdriver.PartitionedQuery
	if err := tx.QueryRowContext(ctx, "SELECT SingerId, Name FROM Singers WHERE SingerId >= ?", int64(0), sfdriver.PartitionQuery()).Scan(&pq); err != nil {
		return 0, err
	}
	// The partitions travel as bytes; a second *sql.DB stands in for
	// another process. The batch transaction must stay open meanwhile.
	other, err := sql.Open("spannerfast", dsn)
	if err != nil {
		return 0, err
	}
	defer other.Close()
	total := 0
	for i, p := range pq.Partitions {
		b, err := p.MarshalBinary()
		if err != nil {
			return 0, err
		}
		received, err := sfdriver.DecodePartition(b)
		if err != nil {
			return 0, err
		}
		rows, err := sfdriver.ExecutePartition(ctx, other, received)
		if err != nil {
			return 0, err
		}
		n, err := count(rows)
		if err != nil {
			return 0, err
		}
		fmt.Printf("partition %d of %d (%d bytes): %d rows\n", i, len(pq.Partitions), len(b), n)
		total += n
	}
	return total, nil
}

func partitionIDs(ctx context.Context, db *sql.DB) (int, error) {
	rows, err := db.QueryContext(ctx, "PARTITION SELECT SingerId, Name FROM Singers")
	if err != nil {
		return 0, err
	}
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return 0, err
		}
		ids = append(ids, id)
	}
	if err := rows.Close(); err != nil {
		return 0, err
	}
	total := 0
	for _, id := range ids {
		rows, err := db.QueryContext(ctx, "RUN PARTITION '"+id+"'")
		if err != nil {
			return 0, err
		}
		n, err := count(rows)
		if err != nil {
			return 0, err
		}
		total += n
	}
	fmt.Printf("PARTITION / RUN PARTITION: %d ids, %d rows\n", len(ids), total)
	return total, nil
}

func count(rows *sql.Rows) (int, error) {
	defer rows.Close()
	n := 0
	for rows.Next() {
		var id int64
		var name string
		if err := rows.Scan(&id, &name); err != nil {
			return n, err
		}
		if name != fmt.Sprintf("Singer %d", id) {
			return n, fmt.Errorf("singer %d has name %q", id, name)
		}
		n++
	}
	return n, rows.Err()
}
