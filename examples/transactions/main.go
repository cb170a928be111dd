// Command transactions writes to Spanner through spannerfast: a read-write
// transaction, RunTransaction, a DML batch, mutations, and a read-only
// transaction at a timestamp.
//
//	go run ./examples/transactions
//
// It starts the embedded server (spannerfasttest) in-process (or uses a new
// database on the emulator when SPANNER_EMULATOR_HOST is set), creates its
// table through database/sql and runs each step against it. The code is
// what it would be with go-sql-spanner, but for the driver name and import.
package main

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"log"
	"os"
	"time"

	"cloud.google.com/go/spanner"

	spannerdriver "github.com/spannerfast/spannerfast/driver"
	"github.com/spannerfast/spannerfast/internal/embedded"
)

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		log.Fatal(err)
	}
}

// out receives what the example prints.
var out io.Writer = os.Stdout

func run(ctx context.Context, w io.Writer) error {
	out = w
	target, err := embedded.ForExample("transactions")
	if err != nil {
		return err
	}
	defer target.Close()
	fmt.Fprintln(w, "running on", target)
	db, err := sql.Open("spannerfast", target.DSN())
	if err != nil {
		return err
	}
	defer db.Close()

	steps := []struct {
		name string
		run  func(context.Context, *sql.DB) error
	}{
		{"create the table", createTable},
		{"read-write transaction", readWrite},
		{"RunTransaction", runTransaction},
		{"DML batch", dmlBatch},
		{"mutations", mutations},
		{"read-only transaction at a timestamp", readOnlyAtTimestamp},
	}
	for _, s := range steps {
		if err := s.run(ctx, db); err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
	}
	return nil
}

func createTable(ctx context.Context, db *sql.DB) error {
	_, err := db.ExecContext(ctx, `CREATE TABLE Accounts (
		Id      INT64 NOT NULL,
		Owner   STRING(MAX),
		Balance INT64,
	) PRIMARY KEY (Id)`)
	return err
}

// readWrite moves money between two accounts: reads and writes in one
// transaction, committed together. If Spanner aborts it, the driver replays
// it and commits only if the replay read the same data.
func readWrite(ctx context.Context, db *sql.DB) error {
	if _, err := db.ExecContext(ctx, "INSERT INTO Accounts (Id, Owner, Balance) VALUES (1, 'alice', 100), (2, 'bob', 50)"); err != nil {
		return err
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback() // a no-op after Commit
	var balance int64
	if err := tx.QueryRowContext(ctx, "SELECT Balance FROM Accounts WHERE Id = ?", 1).Scan(&balance); err != nil {
		return err
	}
	if balance < 30 {
		return fmt.Errorf("alice has only %d", balance)
	}
	if _, err := tx.ExecContext(ctx, "UPDATE Accounts SET Balance = Balance - 30 WHERE Id = 1"); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "UPDATE Accounts SET Balance = Balance + 30 WHERE Id = 2"); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	return printAccounts(ctx, db, "after the transfer")
}

// runTransaction runs a function that RunTransaction repeats whole if
// Spanner aborts it.
func runTransaction(ctx context.Context, db *sql.DB) error {
	return spannerdriver.RunTransaction(ctx, db, nil, func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, "UPDATE Accounts SET Owner = @owner WHERE Id = @id", sql.Named("owner", "Bob"), sql.Named("id", 2))
		return err
	})
}

// dmlBatch sends three statements in one ExecuteBatchDml request.
func dmlBatch(ctx context.Context, db *sql.DB) error {
	c, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	if _, err := c.ExecContext(ctx, "START BATCH DML"); err != nil {
		return err
	}
	for id := 3; id <= 5; id++ {
		if _, err := c.ExecContext(ctx, "INSERT INTO Accounts (Id, Owner, Balance) VALUES (?, ?, ?)", id, fmt.Sprintf("owner-%d", id), 10*id); err != nil {
			return err
		}
	}
	res, err := c.ExecContext(ctx, "RUN BATCH")
	if err != nil {
		return err
	}
	n, _ := res.RowsAffected()
	fmt.Fprintf(out, "DML batch: %d rows inserted in one request\n", n)
	return nil
}

// mutations writes with the official client's Mutation values: Apply
// outside a transaction, BufferWrite inside one.
func mutations(ctx context.Context, db *sql.DB) error {
	c, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	err = c.Raw(func(dc any) error {
		ts, err := dc.(spannerdriver.SpannerConn).Apply(ctx, []*spanner.Mutation{
			spanner.InsertOrUpdate("Accounts", []string{"Id", "Owner", "Balance"}, []any{int64(6), "carol", int64(75)}),
		})
		if err == nil {
			fmt.Fprintln(out, "Apply committed at", ts.UTC().Format(time.RFC3339Nano))
		}
		return err
	})
	if err != nil {
		return err
	}
	tx, err := c.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	err = c.Raw(func(dc any) error {
		return dc.(spannerdriver.SpannerConn).BufferWrite([]*spanner.Mutation{
			spanner.Delete("Accounts", spanner.Key{int64(5)}),
		})
	})
	if err != nil {
		return err
	}
	return tx.Commit()
}

// readOnlyAtTimestamp reads the accounts as they were at the last commit,
// in a read-only transaction at that timestamp.
func readOnlyAtTimestamp(ctx context.Context, db *sql.DB) error {
	c, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	if _, err := c.ExecContext(ctx, "UPDATE Accounts SET Balance = Balance + 1 WHERE true"); err != nil {
		return err
	}
	var committed time.Time
	if err := c.QueryRowContext(ctx, "SHOW VARIABLE commit_timestamp").Scan(&committed); err != nil {
		return err
	}
	if _, err := c.ExecContext(ctx, "SET READ_ONLY_STALENESS = 'READ_TIMESTAMP "+committed.UTC().Format(time.RFC3339Nano)+"'"); err != nil {
		return err
	}
	tx, err := c.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := printAccounts(ctx, tx, "read-only at "+committed.UTC().Format(time.RFC3339Nano)); err != nil {
		return err
	}
	return tx.Commit()
}

type queryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

func printAccounts(ctx context.Context, q queryer, title string) error {
	rows, err := q.QueryContext(ctx, "SELECT Id, Owner, Balance FROM Accounts ORDER BY Id")
	if err != nil {
		return err
	}
	defer rows.Close()
	fmt.Fprintln(out, title+":")
	for rows.Next() {
		var (
			id, balance int64
			owner       string
		)
		if err := rows.Scan(&id, &owner, &balance); err != nil {
			return err
		}
		fmt.Fprintf(out, "  %d %-8s %4d\n", id, owner, balance)
	}
	return rows.Err()
}
