// Command postgresql uses a PostgreSQL-dialect Spanner database through
// database/sql and spannerfast: PostgreSQL DDL, $1 parameters, an INSERT
// with RETURNING, numeric and jsonb values, a transaction and a query.
//
//	go run ./examples/postgresql
//
// The embedded server (spannerfasttest) speaks only GoogleSQL, so this
// example runs on the Cloud Spanner emulator: the one SPANNER_EMULATOR_HOST
// names, or else one it starts itself from the installed emulator_main
// (found on PATH, under the gcloud SDK root or where the
// google-cloud-cli-spanner-emulator package puts it) and stops at the end.
// Without either it exits with a message saying what to install. The DSN
// carries autoConfigEmulator=true;dialect=POSTGRESQL, which creates the
// instance and a PostgreSQL-dialect database on the first statement. The
// code is what it would be with go-sql-spanner, but for the driver name and
// import.
package main

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"log"
	"os"

	"cloud.google.com/go/spanner"

	_ "github.com/spannerfast/spannerfast/driver"
	"github.com/spannerfast/spannerfast/internal/embedded"
)

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, w io.Writer) error {
	target, err := embedded.ForPostgreSQLExample("postgresql")
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
		run  func(context.Context, *sql.DB, io.Writer) error
	}{
		{"the dialect", showDialect},
		{"create the table", createTable},
		{"insert with RETURNING", insertReturning},
		{"transaction", transfer},
		{"query", query},
	}
	for _, s := range steps {
		if err := s.run(ctx, db, w); err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
	}
	return nil
}

// showDialect prints the dialect the driver read from the database when it
// first connected: statements are parsed as PostgreSQL from then on. SHOW
// without VARIABLE is the PostgreSQL form of the client-side statement.
func showDialect(ctx context.Context, db *sql.DB, w io.Writer) error {
	// The first statement creates the database (autoConfigEmulator).
	var dialect string
	if err := db.QueryRowContext(ctx, "SHOW database_dialect").Scan(&dialect); err != nil {
		return err
	}
	fmt.Fprintln(w, "database dialect:", dialect)
	return nil
}

// createTable runs PostgreSQL DDL through database/sql: numeric and jsonb
// columns, a primary key written the PostgreSQL way.
func createTable(ctx context.Context, db *sql.DB, w io.Writer) error {
	_, err := db.ExecContext(ctx, `CREATE TABLE accounts (
		id      bigint NOT NULL PRIMARY KEY,
		owner   varchar(100) NOT NULL,
		balance numeric NOT NULL,
		details jsonb
	)`)
	if err != nil {
		return err
	}
	fmt.Fprintln(w, "created table accounts")
	return nil
}

// insertReturning inserts rows with $1..$n parameters and reads back what
// the database stored, in the same statement (DML with RETURNING is a query
// for database/sql).
func insertReturning(ctx context.Context, db *sql.DB, w io.Writer) error {
	accounts := []struct {
		id      int64
		owner   string
		balance string
		details any
	}{
		{1, "alice", "100.50", map[string]any{"tier": "gold", "tags": []string{"early"}}},
		{2, "bob", "20.25", map[string]any{"tier": "silver"}},
		{3, "carol", "NaN", nil}, // PostgreSQL's numeric has NaN
	}
	for _, a := range accounts {
		var (
			id      int64
			balance spanner.PGNumeric
			details spanner.PGJsonB
		)
		err := db.QueryRowContext(ctx,
			`INSERT INTO accounts (id, owner, balance, details) VALUES ($1, $2, $3, $4)
			 RETURNING id, balance, details`,
			a.id, a.owner,
			spanner.PGNumeric{Numeric: a.balance, Valid: true},
			spanner.PGJsonB{Value: a.details, Valid: a.details != nil},
		).Scan(&id, &balance, &details)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "inserted %d %-6s balance %s details %s\n", id, a.owner, balance, jsonText(details))
	}
	return nil
}

// transfer moves 10 from alice to bob in a read-write transaction: both
// updates commit together, or neither does.
func transfer(ctx context.Context, db *sql.DB, w io.Writer) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback() // after Commit, a no-op
	amount := spanner.PGNumeric{Numeric: "10", Valid: true}
	for _, u := range []struct {
		sign string
		id   int64
	}{{"-", 1}, {"+", 2}} {
		res, err := tx.ExecContext(ctx, "UPDATE accounts SET balance = balance "+u.sign+" $1 WHERE id = $2", amount, u.id)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n != 1 {
			return fmt.Errorf("update of account %d: %d rows (%v)", u.id, n, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	fmt.Fprintln(w, "transferred 10 from alice to bob in one transaction")
	return nil
}

// query reads the accounts whose jsonb details name a tier, with a
// parameter and PostgreSQL's jsonb operator and cast.
func query(ctx context.Context, db *sql.DB, w io.Writer) error {
	rows, err := db.QueryContext(ctx,
		`SELECT id, owner, balance, details->>'tier' AS tier
		   FROM accounts
		  WHERE details IS NOT NULL AND id <= $1::bigint
		  ORDER BY id`, 10)
	if err != nil {
		return err
	}
	defer rows.Close()
	fmt.Fprintln(w, "accounts with a tier:")
	for rows.Next() {
		var (
			id      int64
			owner   string
			balance spanner.PGNumeric
			tier    sql.NullString
		)
		if err := rows.Scan(&id, &owner, &balance, &tier); err != nil {
			return err
		}
		fmt.Fprintf(w, "  %d %-6s %8s %s\n", id, owner, balance.Numeric, tier.String)
	}
	return rows.Err()
}

// jsonText is a jsonb value as text, "null" for SQL NULL.
func jsonText(j spanner.PGJsonB) string {
	if !j.Valid {
		return "null"
	}
	return j.String()
}
