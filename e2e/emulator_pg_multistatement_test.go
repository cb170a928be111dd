package e2e

import (
	"context"
	"database/sql"
	"reflect"
	"testing"

	"google.golang.org/grpc/codes"
)

// emuResultSets reads every result set of rows, each value as its text
// (fmtAny), and closes rows.
func emuResultSets(t *testing.T, rows *sql.Rows) [][]string {
	t.Helper()
	defer rows.Close()
	var sets [][]string
	for {
		var set []string
		for rows.Next() {
			var v any
			if err := rows.Scan(&v); err != nil {
				t.Fatal(err)
			}
			set = append(set, fmtAny(v))
		}
		sets = append(sets, set)
		if !rows.NextResultSet() {
			break
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return sets
}

// emuWantLaterStatementFails: in a string of several statements on db (a
// Singers table holding row 1) whose second fails (a duplicate key),
// rows.Err reports the failure with its code once the result sets are read
// (the same text in both dialects).
func emuWantLaterStatementFails(t *testing.T, ctx context.Context, db *sql.DB) {
	t.Helper()
	rows, err := db.QueryContext(ctx, "SELECT 1; INSERT INTO Singers (SingerId, Name) VALUES (1, 'dup'); SELECT 2")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
	}
	for rows.NextResultSet() {
		for rows.Next() {
		}
	}
	emuWantCode(t, rows.Err(), codes.AlreadyExists)
}

// TestEmulatorPGMultiStatement: TestEmulatorMultiStatement on PostgreSQL:
// $1 means the first argument in each statement of the string, ? numbers
// from 1 again in each, Exec sums the counts, Query returns a result set
// per statement (DML with RETURNING its rows), a later failure reaches
// rows.Err with its code, and semicolons in dollar-quoted strings, escape
// strings, quoted identifiers and comments do not split the string.
func TestEmulatorPGMultiStatement(t *testing.T) {
	t.Parallel()
	ctx := emuCtx(t)
	db, _ := emuPGDB(t, emuPGSingersDDL)
	res, err := db.ExecContext(ctx, "INSERT INTO Singers (SingerId, Name) VALUES (1, $1); INSERT INTO Singers (SingerId, Name) VALUES (2, $1)", "m")
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := res.RowsAffected(); n != 2 {
		t.Fatalf("RowsAffected %d, want 2", n)
	}
	// Each statement's first ? is the first argument.
	emuExec(t, ctx, db, "INSERT INTO Singers (SingerId, Name) VALUES (?, ?); UPDATE Singers SET Name = Name || Name WHERE SingerId = ?", 3, "c")
	emuExec(t, ctx, db, "INSERT INTO Singers (SingerId, Name) VALUES (4, $$a;b$$); "+
		"INSERT INTO Singers (SingerId, Name) VALUES (5, $tag$c;$$;d$tag$) /* ; */; -- ;\n"+
		`INSERT INTO Singers (SingerId, "name") VALUES (6, E'e\';f')`)
	got := emuColumn[string](t, ctx, db, "SELECT Name FROM Singers WHERE SingerId > 3 ORDER BY SingerId")
	if want := []string{"a;b", "c;$$;d", "e';f"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("quoted semicolons: %q, want %q", got, want)
	}
	rows, err := db.QueryContext(ctx, "SELECT COUNT(*) FROM Singers; UPDATE Singers SET Name = 'u' WHERE SingerId = 1; "+
		"UPDATE Singers SET Name = 'r' WHERE SingerId = 2 RETURNING Name; SELECT Name FROM Singers WHERE SingerId <= $1 ORDER BY SingerId", 3)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := emuResultSets(t, rows), [][]string{{"6"}, nil, {"r"}, {"u", "r", "cc"}}; !reflect.DeepEqual(got, want) {
		t.Fatalf("result sets %q, want %q", got, want)
	}
	emuWantLaterStatementFails(t, ctx, db)
}

// TestEmulatorPGMultiStatementTransactions:
// TestEmulatorMultiStatementImplicitTransaction on PostgreSQL, with
// PostgreSQL's own statements: a failure rolls back the string's implicit
// transaction, COMMIT (and END) in the string keeps what came before, a
// query after DML sees it; BEGIN ... COMMIT in the string is a
// transaction; DDL in the string commits what came before and runs as a
// batch with the DDL next to it, and the DML after it sees its tables.
func TestEmulatorPGMultiStatementTransactions(t *testing.T) {
	t.Parallel()
	ctx := emuCtx(t)
	db, _ := emuPGDB(t, emuPGSingersDDL)
	emuExec(t, ctx, db, "INSERT INTO Singers (SingerId, Name) VALUES (1, 'a')")
	count := func(where string) int64 {
		t.Helper()
		return emuInt64s(t, ctx, db, "SELECT COUNT(*) FROM Singers WHERE "+where)[0]
	}

	_, err := db.ExecContext(ctx, "INSERT INTO Singers (SingerId, Name) VALUES (10, 'b'); INSERT INTO Singers (SingerId, Name) VALUES (1, 'dup')")
	emuWantCode(t, err, codes.AlreadyExists)
	if n := count("SingerId = 10"); n != 0 {
		t.Fatalf("row 10 kept after the string failed: the statements were not one transaction")
	}
	for i, end := range []string{"COMMIT", "END"} {
		id := 20 + i
		_, err = db.ExecContext(ctx, "INSERT INTO Singers (SingerId, Name) VALUES ($1, 'c'); "+end+"; INSERT INTO Singers (SingerId, Name) VALUES (1, 'dup')", id)
		emuWantCode(t, err, codes.AlreadyExists)
		if n := count("SingerId = " + fmtAny(int64(id))); n != 1 {
			t.Fatalf("row %d lost: %s in the string did not commit it", id, end)
		}
	}
	rows, err := db.QueryContext(ctx, "INSERT INTO Singers (SingerId, Name) VALUES (30, 'd'); SELECT COUNT(*) FROM Singers WHERE SingerId = 30")
	if err != nil {
		t.Fatal(err)
	}
	if got := emuResultSets(t, rows); !reflect.DeepEqual(got, [][]string{nil, {"1"}}) {
		t.Fatalf("the query after the INSERT: %q, want [[] [1]] (the same transaction)", got)
	}
	if n := count("SingerId = 30"); n != 1 {
		t.Fatalf("row 30 not committed at the end of the string")
	}
	// BEGIN ... ROLLBACK in the string: nothing of it stays.
	emuExec(t, ctx, db, "BEGIN; INSERT INTO Singers (SingerId, Name) VALUES (40, 'e'); ROLLBACK")
	if n := count("SingerId = 40"); n != 0 {
		t.Fatalf("row 40 kept after ROLLBACK in the string")
	}
	// DDL among DML: the DML before it is committed, the two DDL
	// statements go as one batch, the DML after sees the new table.
	emuExec(t, ctx, db, "INSERT INTO Singers (SingerId, Name) VALUES (50, 'f'); "+
		"CREATE TABLE Tracks (TrackId bigint NOT NULL PRIMARY KEY, Title varchar); "+
		"CREATE INDEX TracksByTitle ON Tracks (Title); "+
		"INSERT INTO Tracks (TrackId, Title) VALUES (1, $$x;y$$); INSERT INTO Tracks (TrackId, Title) VALUES (2, 'z')")
	if n := count("SingerId = 50"); n != 1 {
		t.Fatalf("row 50 lost")
	}
	if got := emuColumn[string](t, ctx, db, "SELECT Title FROM Tracks ORDER BY Title"); !reflect.DeepEqual(got, []string{"x;y", "z"}) {
		t.Fatalf("Tracks: %q", got)
	}
	// A failing DDL statement stops the string; the DML before it was
	// committed by then.
	_, err = db.ExecContext(ctx, "INSERT INTO Singers (SingerId, Name) VALUES (60, 'g'); CREATE TABLE Tracks (TrackId bigint PRIMARY KEY); "+
		"INSERT INTO Singers (SingerId, Name) VALUES (61, 'h')")
	if err == nil {
		t.Fatal("CREATE TABLE of an existing table succeeded")
	}
	if n := count("SingerId IN (60, 61)"); n != 1 {
		t.Fatalf("%d of rows 60 and 61, want 1 (60 committed before the DDL, 61 not run)", n)
	}
}
