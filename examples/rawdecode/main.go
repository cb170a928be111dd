// Command rawdecode shows spannerfast's two ownership modes on the embedded
// server (or on a new database on the emulator when SPANNER_EMULATOR_HOST is
// set):
//
//	go run ./examples/rawdecode
//
// Safe mode (the default) hands out values that stay valid forever. Raw mode
// (rawDecode=true in the DSN, SET RAW_DECODE = true on a connection, or
// driver.RawDecode(true) as a query argument) decodes without copying: STRING
// and BYTES values alias the receive buffer and every value is valid only
// until the next Next. Scan into *string, *[]byte or *any copies string and
// bytes values, so those are safe to keep; sql.RawBytes is not.
package main

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"log"

	sfdriver "github.com/spannerfast/spannerfast/driver"
	"github.com/spannerfast/spannerfast/internal/embedded"
)

func main() {
	if err := run(context.Background()); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context) error {
	target, err := embedded.ForExample("rawdecode")
	if err != nil {
		return err
	}
	defer target.Close()
	fmt.Println("running on", target)
	safe, err := sql.Open("spannerfast", target.DSN())
	if err != nil {
		return err
	}
	defer safe.Close()
	if _, err := safe.ExecContext(ctx, "CREATE TABLE Notes (Id INT64 NOT NULL, Body STRING(MAX)) PRIMARY KEY (Id)"); err != nil {
		return err
	}
	for i := range 5 {
		if _, err := safe.ExecContext(ctx, "INSERT INTO Notes (Id, Body) VALUES (?, ?)", i, fmt.Sprintf("note number %d", i)); err != nil {
			return err
		}
	}

	// 1. Safe mode: keep whatever you scan.
	kept, err := bodies(ctx, safe, func(rows *sql.Rows) (string, error) {
		var s string
		return s, rows.Scan(&s)
	})
	if err != nil {
		return err
	}
	fmt.Println("safe mode, kept strings:", kept)

	// 2. Raw mode from the DSN, with poisoning on so that misuse shows: Scan
	// into *string copies, so keeping the strings is correct.
	raw, err := sql.Open("spannerfast", target.DSN("rawDecode=true", "poison_raw_buffers=true"))
	if err != nil {
		return err
	}
	defer raw.Close()
	kept, err = bodies(ctx, raw, func(rows *sql.Rows) (string, error) {
		var s string
		return s, rows.Scan(&s)
	})
	if err != nil {
		return err
	}
	fmt.Println("raw mode, Scan(*string) copies:", kept)

	// 3. sql.RawBytes aliases the receive buffer: use it before Next, never
	// keep it. Here the bytes are kept on purpose to show the poison.
	var aliases []sql.RawBytes
	var used []string
	_, err = bodies(ctx, raw, func(rows *sql.Rows) (string, error) {
		var b sql.RawBytes
		err := rows.Scan(&b)
		used = append(used, string(b)) // correct: copied before Next
		aliases = append(aliases, b)   // wrong: kept past Next
		return "", err
	})
	if err != nil {
		return err
	}
	fmt.Println("raw mode, RawBytes used before Next:", used)
	fmt.Printf("raw mode, RawBytes kept past Next (poisoned): %q\n", aliases[0])
	if len(aliases[0]) == 0 || bytes.Count(aliases[0], []byte{0xAA}) != len(aliases[0]) {
		return fmt.Errorf("a RawBytes kept past Next should read the poison pattern, got %q", aliases[0])
	}

	// 4. Raw decode for one query only, on a safe connection.
	kept, err = bodies(ctx, safe, func(rows *sql.Rows) (string, error) {
		var s string
		return s, rows.Scan(&s)
	}, sfdriver.RawDecode(true))
	if err != nil {
		return err
	}
	fmt.Println("per-query raw decode:", kept)

	// 5. SET RAW_DECODE on one connection.
	c, err := safe.Conn(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	if _, err := c.ExecContext(ctx, "SET RAW_DECODE = true"); err != nil {
		return err
	}
	var mode string
	if err := c.QueryRowContext(ctx, "SHOW VARIABLE RAW_DECODE").Scan(&mode); err != nil {
		return err
	}
	fmt.Println("SHOW VARIABLE RAW_DECODE on that connection:", mode)
	return nil
}

// bodies reads Notes.Body through scan for each row.
func bodies(ctx context.Context, db *sql.DB, scan func(*sql.Rows) (string, error), args ...any) ([]string, error) {
	rows, err := db.QueryContext(ctx, "SELECT Body FROM Notes ORDER BY Id", args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		s, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}
