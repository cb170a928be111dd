// Command bulkload loads rows into Spanner with spannerfast's CopyFrom: a
// load of 50,000 rows in commits under Spanner's limits, a load that fails
// part way (one row exists already), and its resumption from the rows the
// error says were committed.
//
//	go run ./examples/bulkload
//
// It starts the embedded server (spannerfasttest) in-process (or uses a new
// database on the emulator when SPANNER_EMULATOR_HOST is set) and creates
// its table, with a secondary index, through database/sql.
package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"log"
	"os"

	"google.golang.org/grpc/status"

	spannerdriver "github.com/spannerfast/spannerfast/driver"
	"github.com/spannerfast/spannerfast/internal/embedded"
)

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		log.Fatal(err)
	}
}

var columns = []string{"Id", "Name", "Score"}

// rows is the data to load: rows [from, to).
func rows(from, to int64) [][]any {
	out := make([][]any, 0, to-from)
	for i := from; i < to; i++ {
		out = append(out, []any{i, fmt.Sprintf("player-%d", i), float64(i % 100)})
	}
	return out
}

func run(ctx context.Context, w io.Writer) error {
	target, err := embedded.ForExample("bulkload")
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
		"CREATE TABLE Players (Id INT64 NOT NULL, Name STRING(MAX), Score FLOAT64) PRIMARY KEY (Id)",
		"CREATE INDEX PlayersByName ON Players (Name)",
	} {
		if _, err := db.ExecContext(ctx, ddl); err != nil {
			return err
		}
	}

	// A load: CopyFrom counts each row as 3 columns plus 1 index column
	// and fills each commit up to 80,000 such mutations (20,000 rows).
	n, err := spannerdriver.CopyFrom(ctx, db, "Players", columns, spannerdriver.CopyFromRows(rows(0, 50_000)))
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "loaded %d rows\n", n)

	// A load that fails: row 70,000 exists already. Each commit is atomic,
	// so the error says exactly which rows are in the table.
	if _, err := db.ExecContext(ctx, "INSERT INTO Players (Id, Name) VALUES (70000, 'early')"); err != nil {
		return err
	}
	data := rows(50_000, 100_000) // source rows are numbered from 0: row 20,000 is Id 70,000
	_, err = spannerdriver.CopyFrom(ctx, db, "Players", columns, spannerdriver.CopyFromRows(data), spannerdriver.CopyMaxInFlight(1))
	var ce *spannerdriver.CopyError
	if !errors.As(err, &ce) {
		return fmt.Errorf("the second load: %v, want a CopyError", err)
	}
	// The rows committed are the whole commits before the one that
	// failed; how far the source was read by then depends on timing.
	fmt.Fprintf(w, "the second load failed with %v: rows committed %v, rows from %d on not committed\n",
		status.Code(err), ce.Committed, ce.NotCommitted[0].Start)

	// Resume: remove the row in the way and load the same source again,
	// leaving out the rows the error says were committed.
	if _, err := db.ExecContext(ctx, "DELETE FROM Players WHERE Id = 70000"); err != nil {
		return err
	}
	n, err = spannerdriver.CopyFrom(ctx, db, "Players", columns, spannerdriver.CopyFromRows(data), spannerdriver.CopyResume(err))
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "resumed: loaded the other %d rows\n", n)

	var count, sum int64
	if err := db.QueryRowContext(ctx, "SELECT COUNT(*), SUM(Id) FROM Players").Scan(&count, &sum); err != nil {
		return err
	}
	fmt.Fprintf(w, "the table holds %d rows, ids summing to %d\n", count, sum)
	return nil
}
