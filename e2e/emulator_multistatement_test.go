package e2e

import (
	"testing"

	"google.golang.org/grpc/codes"
)

// TestEmulatorMultiStatementImplicitTransaction: the implicit transaction
// of a string of several statements on the emulator: DML that fails later
// in the string takes the earlier DML with it (one transaction, rolled
// back); a COMMIT in the string keeps what came before; a query after DML
// in the string sees that DML (same transaction) and it is committed at the
// end.
func TestEmulatorMultiStatementImplicitTransaction(t *testing.T) {
	t.Parallel()
	ctx := emuCtx(t)
	db, _ := emuDB(t, emuSingersDDL)
	emuExec(t, ctx, db, "INSERT INTO Singers (SingerId, Name) VALUES (1, 'a')")

	_, err := db.ExecContext(ctx, "INSERT INTO Singers (SingerId, Name) VALUES (10, 'b'); INSERT INTO Singers (SingerId, Name) VALUES (1, 'dup')")
	emuWantCode(t, err, codes.AlreadyExists)
	if got := emuInt64s(t, ctx, db, "SELECT COUNT(*) FROM Singers WHERE SingerId = 10"); got[0] != 0 {
		t.Fatalf("row 10 kept after the string failed: the statements were not one transaction")
	}

	_, err = db.ExecContext(ctx, "INSERT INTO Singers (SingerId, Name) VALUES (20, 'c'); COMMIT; INSERT INTO Singers (SingerId, Name) VALUES (1, 'dup')")
	emuWantCode(t, err, codes.AlreadyExists)
	if got := emuInt64s(t, ctx, db, "SELECT COUNT(*) FROM Singers WHERE SingerId = 20"); got[0] != 1 {
		t.Fatalf("row 20 lost: COMMIT in the string did not commit it")
	}

	rows, err := db.QueryContext(ctx, "INSERT INTO Singers (SingerId, Name) VALUES (30, 'd'); SELECT COUNT(*) FROM Singers WHERE SingerId = 30")
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	if !rows.NextResultSet() || !rows.Next() {
		t.Fatalf("no count: %v", rows.Err())
	}
	if err := rows.Scan(&n); err != nil {
		t.Fatal(err)
	}
	rows.Close()
	if n != 1 {
		t.Fatalf("the query after the INSERT saw %d rows, want 1 (the same transaction)", n)
	}
	if got := emuInt64s(t, ctx, db, "SELECT COUNT(*) FROM Singers WHERE SingerId = 30"); got[0] != 1 {
		t.Fatalf("row 30 not committed at the end of the string")
	}
}
