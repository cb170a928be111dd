// Command structs reads ARRAY<STRUCT> query results into Go structs with
// driver.Structs:
//
//	go run ./examples/structs
//
// The embedded server (spannerfasttest) cannot evaluate ARRAY(SELECT AS
// STRUCT ...), so this example runs on the Cloud Spanner emulator: the one
// SPANNER_EMULATOR_HOST names, or else one it starts itself from the
// installed emulator_main, and stops at the end.
//
// database/sql cannot let a driver fill a struct it does not know, so
// rows.Scan(&orders) cannot work; rows.Scan(driver.Structs(&orders)) wraps
// the slice in a sql.Scanner that decodes the column's STRUCT elements by
// the official client's rules (a `spanner:"name"` tag, else the field
// name, ignoring case). Without it, the column is a []spanner.NullRow to be
// copied element by element with Row.ToStruct.
package main

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"log"
	"os"

	"cloud.google.com/go/spanner"

	sfdriver "github.com/spannerfast/spannerfast/driver"
	"github.com/spannerfast/spannerfast/internal/embedded"
)

// Track is one element of a singer's ARRAY<STRUCT> of tracks.
type Track struct {
	Title  string `spanner:"title"`
	Length int64  // matches the STRUCT field "length", ignoring case
	Rating *float64
}

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, w io.Writer) error {
	target, err := embedded.ForEmulatorExample("structs", "ARRAY(SELECT AS STRUCT ...), which the embedded server cannot evaluate")
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
	for _, ddl := range []string{
		"CREATE TABLE Singers (SingerId INT64 NOT NULL, Name STRING(MAX)) PRIMARY KEY (SingerId)",
		"CREATE TABLE Tracks (SingerId INT64 NOT NULL, TrackId INT64 NOT NULL, Title STRING(MAX), Length INT64, Rating FLOAT64) PRIMARY KEY (SingerId, TrackId), INTERLEAVE IN PARENT Singers",
	} {
		if _, err := db.ExecContext(ctx, ddl); err != nil {
			return err
		}
	}
	for _, q := range []string{
		"INSERT INTO Singers (SingerId, Name) VALUES (1, 'Alice'), (2, 'Bob')",
		"INSERT INTO Tracks (SingerId, TrackId, Title, Length, Rating) VALUES (1, 1, 'Intro', 95, 4.5), (1, 2, 'Outro', 180, NULL), (2, 1, 'Solo', 240, 3)",
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			return err
		}
	}

	const query = `SELECT s.Name,
		ARRAY(SELECT AS STRUCT t.Title AS title, t.Length AS length, t.Rating AS rating
		      FROM Tracks t WHERE t.SingerId = s.SingerId ORDER BY t.TrackId) AS tracks
		FROM Singers s ORDER BY s.SingerId`
	rows, err := db.QueryContext(ctx, query)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var name string
		var tracks []Track
		if err := rows.Scan(&name, sfdriver.Structs(&tracks)); err != nil {
			return err
		}
		fmt.Fprintf(w, "%s:", name)
		for _, t := range tracks {
			rating := "unrated"
			if t.Rating != nil {
				rating = fmt.Sprint(*t.Rating)
			}
			fmt.Fprintf(w, " %s (%ds, %s)", t.Title, t.Length, rating)
		}
		fmt.Fprintln(w)
	}
	if err := rows.Err(); err != nil {
		return err
	}

	// The same column still scans into []spanner.NullRow, as before.
	var raw []spanner.NullRow
	if err := db.QueryRowContext(ctx, query).Scan(new(string), &raw); err != nil {
		return err
	}
	var first Track
	if err := raw[0].Row.ToStruct(&first); err != nil {
		return err
	}
	fmt.Fprintln(w, "by hand:", first.Title)

	// A mismatch is an error naming the column, the Go field and the
	// STRUCT field.
	type lengthAsText struct {
		Title, Length string
		Rating        *float64
	}
	var wrong []lengthAsText
	err = db.QueryRowContext(ctx, query).Scan(new(string), sfdriver.Structs(&wrong))
	if err == nil {
		return fmt.Errorf("scan into a mismatched struct succeeded")
	}
	fmt.Fprintln(w, "mismatch:", err)
	return nil
}
