// Command ddl creates and migrates a schema entirely through database/sql:
// CREATE TABLE, CREATE INDEX, a DDL batch, several DDL statements in one
// string, ALTER TABLE ADD COLUMN, INFORMATION_SCHEMA inspection, writes and
// reads on the new schema, and DROP.
//
//	go run ./examples/ddl
//
// It starts the embedded server (spannerfasttest) in-process, or uses a new
// database on the emulator when SPANNER_EMULATOR_HOST is set; with a DSN
// for a real database the code is the same (and the same as with
// go-sql-spanner, but for the driver name and import).
package main

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"log"
	"os"
	"strings"

	_ "github.com/spannerfast/spannerfast/driver"
	"github.com/spannerfast/spannerfast/internal/embedded"
)

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, w io.Writer) error {
	target, err := embedded.ForExample("ddl")
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
	// A DDL batch lives on one connection: START BATCH and RUN BATCH must
	// reach the same one, so the example holds one *sql.Conn throughout.
	c, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer c.Close()

	for _, s := range []struct {
		name string
		run  func(context.Context, *sql.Conn, io.Writer) error
	}{
		{"create a table and an index", create},
		{"a DDL batch", batch},
		{"several DDL statements in one string", multi},
		{"add a column", alter},
		{"inspect the schema", inspect},
		{"write and read", writeRead},
		{"drop", drop},
		{"inspect the schema", inspect},
	} {
		fmt.Fprintf(w, "== %s\n", s.name)
		if err := s.run(ctx, c, w); err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
	}
	return nil
}

func exec(ctx context.Context, c *sql.Conn, stmts ...string) error {
	for _, s := range stmts {
		if _, err := c.ExecContext(ctx, s); err != nil {
			return err
		}
	}
	return nil
}

// create runs each statement on its own: one UpdateDatabaseDdl each,
// ExecContext returning once the schema change is done.
func create(ctx context.Context, c *sql.Conn, _ io.Writer) error {
	return exec(ctx, c,
		`CREATE TABLE Singers (
			SingerId  INT64 NOT NULL,
			FirstName STRING(1024),
			LastName  STRING(1024),
		) PRIMARY KEY (SingerId)`,
		"CREATE INDEX SingersByLastName ON Singers (LastName)")
}

// batch sends two statements in one UpdateDatabaseDdl at RUN BATCH.
func batch(ctx context.Context, c *sql.Conn, _ io.Writer) error {
	return exec(ctx, c,
		"START BATCH DDL",
		`CREATE TABLE Albums (
			SingerId INT64 NOT NULL,
			AlbumId  INT64 NOT NULL,
			Title    STRING(MAX),
		) PRIMARY KEY (SingerId, AlbumId), INTERLEAVE IN PARENT Singers ON DELETE CASCADE`,
		"CREATE INDEX AlbumsByTitle ON Albums (Title)",
		"RUN BATCH")
}

// multi runs a string of statements: consecutive DDL goes as one batch too.
func multi(ctx context.Context, c *sql.Conn, _ io.Writer) error {
	return exec(ctx, c, `
		CREATE TABLE Venues (VenueId INT64 NOT NULL, Name STRING(MAX)) PRIMARY KEY (VenueId);
		CREATE INDEX VenuesByName ON Venues (Name);
	`)
}

func alter(ctx context.Context, c *sql.Conn, _ io.Writer) error {
	return exec(ctx, c, "ALTER TABLE Singers ADD COLUMN Rating INT64")
}

// inspect lists tables, the columns of Singers and the indexes from
// INFORMATION_SCHEMA.
func inspect(ctx context.Context, c *sql.Conn, w io.Writer) error {
	for _, q := range []struct{ label, sql string }{
		{"tables", "SELECT TABLE_NAME FROM INFORMATION_SCHEMA.TABLES WHERE TABLE_SCHEMA = '' ORDER BY TABLE_NAME"},
		{"Singers columns", "SELECT COLUMN_NAME, SPANNER_TYPE FROM INFORMATION_SCHEMA.COLUMNS " +
			"WHERE TABLE_SCHEMA = '' AND TABLE_NAME = 'Singers' ORDER BY ORDINAL_POSITION"},
		{"indexes", "SELECT TABLE_NAME, INDEX_NAME FROM INFORMATION_SCHEMA.INDEXES " +
			"WHERE TABLE_SCHEMA = '' AND INDEX_TYPE = 'INDEX' ORDER BY TABLE_NAME, INDEX_NAME"},
	} {
		lines, err := queryLines(ctx, c, q.sql)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "%s: %s\n", q.label, strings.Join(lines, ", "))
	}
	return nil
}

// queryLines reads every row of a query whose columns are strings, each row
// as its values joined by a space.
func queryLines(ctx context.Context, c *sql.Conn, query string) ([]string, error) {
	rows, err := c.QueryContext(ctx, query)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	var out []string
	for rows.Next() {
		vals := make([]string, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		out = append(out, strings.Join(vals, " "))
	}
	return out, rows.Err()
}

// writeRead uses the new column and the interleaved table.
func writeRead(ctx context.Context, c *sql.Conn, w io.Writer) error {
	if err := exec(ctx, c,
		"INSERT INTO Singers (SingerId, FirstName, LastName, Rating) VALUES (1, 'Marc', 'Richards', 9), (2, 'Catalina', 'Smith', 7)",
		"INSERT INTO Albums (SingerId, AlbumId, Title) VALUES (1, 1, 'Total Junk'), (1, 2, 'Go, Go, Go'), (2, 1, 'Green')",
	); err != nil {
		return err
	}
	rows, err := c.QueryContext(ctx, `SELECT s.LastName, s.Rating, COUNT(*) AS Albums
		FROM Singers AS s JOIN Albums AS a ON a.SingerId = s.SingerId
		GROUP BY s.LastName, s.Rating ORDER BY s.LastName`)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var name string
		var rating, albums int64
		if err := rows.Scan(&name, &rating, &albums); err != nil {
			return err
		}
		fmt.Fprintf(w, "%s rating %d, %d albums\n", name, rating, albums)
	}
	return rows.Err()
}

// drop removes what the example created but Singers and its index, child
// objects first.
func drop(ctx context.Context, c *sql.Conn, _ io.Writer) error {
	return exec(ctx, c, "DROP INDEX AlbumsByTitle; DROP TABLE Albums; DROP INDEX VenuesByName; DROP TABLE Venues")
}
