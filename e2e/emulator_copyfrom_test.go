package e2e

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	sfdriver "github.com/spannerfast/spannerfast/driver"
)

// CopyFrom on the emulator: every row loaded exactly once, a load that
// fails in the middle reports the rows committed exactly, and a resumed
// load completes it; in both dialects. The table has a secondary index,
// so the count of its columns is read from the emulator's
// INFORMATION_SCHEMA.

type copyDialect struct {
	name  string
	open  func(t *testing.T, ddl []string, props ...string) *sql.DB
	ddl   []string
	param string // the dialect's first positional parameter
}

var copyDialects = []copyDialect{
	{
		name: "GoogleSQL",
		open: func(t *testing.T, ddl []string, props ...string) *sql.DB { db, _ := emuDB(t, ddl, props...); return db },
		ddl: []string{
			"CREATE TABLE Loads (Id INT64 NOT NULL, Name STRING(MAX), Score FLOAT64, Active BOOL, Tag STRING(MAX)) PRIMARY KEY (Id)",
			"CREATE INDEX LoadsByName ON Loads (Name) STORING (Score)",
		},
		param: "@p1",
	},
	{
		name: "PostgreSQL",
		open: func(t *testing.T, ddl []string, props ...string) *sql.DB {
			db, _ := emuPGDB(t, ddl, props...)
			return db
		},
		ddl: []string{
			"CREATE TABLE Loads (Id bigint NOT NULL PRIMARY KEY, Name varchar, Score float8, Active boolean, Tag varchar)",
			"CREATE INDEX LoadsByName ON Loads (Name) INCLUDE (Score)",
		},
		param: "$1",
	},
}

var loadCols = []string{"Id", "Name", "Score", "Active", "Tag"}

// loadRow is row i of the test's source.
func loadRow(i int64) []any {
	return []any{i, fmt.Sprintf("name-%d", i%977), float64(i % 1000), i%2 == 0, fmt.Sprintf("t%d", i)}
}

// loadSource gives rows [0, n) one at a time, reusing one slice.
func loadSource(n int64) sfdriver.CopyFromSource {
	var i int64 = -1
	row := make([]any, len(loadCols))
	return sfdriver.CopyFromFunc(func() ([]any, bool, error) {
		i++
		if i >= n {
			return nil, false, nil
		}
		copy(row, loadRow(i))
		return row, true, nil
	})
}

// loadChecksum is what the table holds: the count of rows and sums of
// their values; wantChecksum is the same for rows [0, n).
func loadChecksum(t *testing.T, ctx context.Context, db *sql.DB) string {
	t.Helper()
	var count, ids, actives, names int64
	var scores float64
	const q = "SELECT COUNT(*), COALESCE(SUM(Id), 0), COALESCE(SUM(Score), 0), COALESCE(SUM(CASE WHEN Active THEN 1 ELSE 0 END), 0), " +
		"COALESCE(SUM(LENGTH(Name) + LENGTH(Tag)), 0) FROM Loads"
	if err := db.QueryRowContext(ctx, q).Scan(&count, &ids, &scores, &actives, &names); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprint(count, ids, int64(scores), actives, names)
}

func wantChecksum(n int64) string {
	var ids, scores, actives, names int64
	for i := range n {
		r := loadRow(i)
		ids += i
		scores += int64(r[2].(float64))
		if r[3].(bool) {
			actives++
		}
		names += int64(len(r[1].(string)) + len(r[4].(string)))
	}
	return fmt.Sprint(n, ids, scores, actives, names)
}

// TestEmulatorCopyFromExactlyOnce loads 200,000 rows (20,000 on a
// PostgreSQL-dialect database) and checks the count and a checksum of the
// table.
//
// The DSN does not say it is the emulator, so four commits are in flight
// (the emulator aborts the ones that meet another, and they are sent
// again); TestEmulatorCopyFromFailureAndResume says it (auto_config_emulator)
// and its commits go one at a time.
func TestEmulatorCopyFromExactlyOnce(t *testing.T) {
	for _, d := range copyDialects {
		t.Run(d.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute) // 200,000 rows on a shared machine
			defer cancel()
			rows := int64(200_000)
			if d.name == "PostgreSQL" {
				rows = 20_000
			}
			db := d.open(t, d.ddl)
			n, err := sfdriver.CopyFrom(ctx, db, "Loads", loadCols, loadSource(rows))
			if err != nil || n != rows {
				t.Fatalf("CopyFrom: %d, %v; want %d rows", n, err, rows)
			}
			if got := loadChecksum(t, ctx, db); got != wantChecksum(rows) {
				t.Fatalf("the table holds %s (count and sums), want %s", got, wantChecksum(rows))
			}
		})
	}
}

// TestEmulatorCopyFromFailureAndResume loads rows into a table where one
// of them exists already: the load fails with ALREADY_EXISTS, the error's
// committed ranges are exactly what the table holds, and after the row is
// removed CopyResume loads the rest, every row once.
func TestEmulatorCopyFromFailureAndResume(t *testing.T) {
	for _, d := range copyDialects {
		t.Run(d.name, func(t *testing.T) {
			ctx := emuCtx(t)
			rows, conflict := int64(60_000), int64(41_234)
			db := d.open(t, d.ddl, "autoConfigEmulator=true")
			if _, err := sfdriver.CopyFrom(ctx, db, "Loads", loadCols, sfdriver.CopyFromRows([][]any{loadRow(conflict)})); err != nil {
				t.Fatal(err)
			}
			n, err := sfdriver.CopyFrom(ctx, db, "Loads", loadCols, loadSource(rows))
			var ce *sfdriver.CopyError
			if !errors.As(err, &ce) || status.Code(err) != codes.AlreadyExists {
				t.Fatalf("CopyFrom over an existing row: %d, %v; want a CopyError with ALREADY_EXISTS", n, err)
			}
			if n != ce.CommittedRows() || n == 0 || len(ce.Unknown) != 0 {
				t.Fatalf("%d rows committed, the error says %d (unknown: %v): %v", n, ce.CommittedRows(), ce.Unknown, err)
			}
			// The table holds the committed rows and the one that was there.
			held := emuInt64s(t, ctx, db, "SELECT COUNT(*) FROM Loads")[0]
			if held != n+1 {
				t.Fatalf("the table holds %d rows, want the %d committed and the one before: %v", held, n, err)
			}
			for _, r := range ce.Committed {
				if r.Start <= conflict && conflict < r.End {
					t.Fatalf("committed ranges %v include the row that failed, %d", ce.Committed, conflict)
				}
			}
			if _, err := db.ExecContext(ctx, "DELETE FROM Loads WHERE Id = "+d.param, conflict); err != nil {
				t.Fatal(err)
			}
			m, err := sfdriver.CopyFrom(ctx, db, "Loads", loadCols, loadSource(rows), sfdriver.CopyResume(err))
			if err != nil || n+m != rows {
				t.Fatalf("resumed CopyFrom: %d, %v; want the other %d rows", m, err, rows-n)
			}
			if got := loadChecksum(t, ctx, db); got != wantChecksum(rows) {
				t.Fatalf("after the resume the table holds %s, want %s", got, wantChecksum(rows))
			}
		})
	}
}

// TestEmulatorCopyFromCountsIndexColumns: CopyFrom reads the table's index
// columns from INFORMATION_SCHEMA (the index on Name, storing Score: 2)
// and counts them in each row's mutations, so a limit of 6 mutations
// refuses a row of 5 columns, naming the count.
func TestEmulatorCopyFromCountsIndexColumns(t *testing.T) {
	for _, d := range copyDialects {
		t.Run(d.name, func(t *testing.T) {
			ctx := emuCtx(t)
			db := d.open(t, d.ddl)
			_, err := sfdriver.CopyFrom(ctx, db, "Loads", loadCols, loadSource(1), sfdriver.CopyMaxMutations(6))
			if status.Code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), "one row counts 7 mutations (5 columns and 2 index columns)") {
				t.Fatalf("CopyFrom with a limit of 6: %v; want InvalidArgument counting 5 columns and 2 index columns", err)
			}
			if n, err := sfdriver.CopyFrom(ctx, db, "Loads", loadCols, loadSource(1), sfdriver.CopyMaxMutations(7)); err != nil || n != 1 {
				t.Fatalf("CopyFrom with a limit of 7: %d, %v", n, err)
			}
		})
	}
}

// TestEmulatorCopyFromInsertOrUpdate loads rows, then loads them again
// with CopyInsertOrUpdate and new scores: the rows are updated in place,
// none added.
func TestEmulatorCopyFromInsertOrUpdate(t *testing.T) {
	for _, d := range copyDialects {
		t.Run(d.name, func(t *testing.T) {
			ctx := emuCtx(t)
			db := d.open(t, d.ddl)
			if _, err := sfdriver.CopyFrom(ctx, db, "Loads", loadCols, loadSource(2000)); err != nil {
				t.Fatal(err)
			}
			var rows [][]any
			for i := range int64(3000) { // 1,000 new rows, 2,000 updated
				r := loadRow(i)
				r[2] = float64(1)
				rows = append(rows, r)
			}
			n, err := sfdriver.CopyFrom(ctx, db, "Loads", loadCols, sfdriver.CopyFromRows(rows), sfdriver.CopyInsertOrUpdate())
			if err != nil || n != 3000 {
				t.Fatalf("CopyFrom with CopyInsertOrUpdate: %d, %v", n, err)
			}
			if got := emuInt64s(t, ctx, db, "SELECT COUNT(*) FROM Loads WHERE Score = 1")[0]; got != 3000 {
				t.Fatalf("%d rows have the new score, want 3000", got)
			}
			if got := emuInt64s(t, ctx, db, "SELECT COUNT(*) FROM Loads")[0]; got != 3000 {
				t.Fatalf("the table holds %d rows, want 3000", got)
			}
		})
	}
}
