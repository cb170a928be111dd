package e2e

import (
	"context"
	"database/sql"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// TestEmbeddedWrongTypeParams: a parameter of the wrong type for the column
// it is compared with fails with InvalidArgument naming it, as on Spanner,
// instead of crashing the test process (the engine, spannertest, panics on
// such a comparison); the server goes on serving, its writer lock is free
// (a read-write transaction and an autocommit write both run) and the row
// is unchanged. A numeric string still binds to the INT64 key, as Spanner
// infers the untyped parameter's type.
func TestEmbeddedWrongTypeParams(t *testing.T) {
	ctx := context.Background()
	db := openEmbedded(t, "CREATE TABLE T (Id INT64 NOT NULL, Score INT64, Name STRING(MAX), Ok BOOL) PRIMARY KEY (Id)")
	if _, err := db.ExecContext(ctx, "INSERT INTO T (Id, Score, Name, Ok) VALUES (1, 10, 'a', true)"); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		sql   string
		args  []any
		param string
	}{
		{"UPDATE T SET Score = @Score WHERE Id = @Id", []any{sql.Named("Score", 5), sql.Named("Id", "extra")}, "@Id"},
		{"SELECT Name FROM T WHERE Id = @Id", []any{"extra"}, "@Id"},
		{"SELECT Name FROM T WHERE @Id < Id", []any{"1.5"}, "@Id"},
		{"SELECT Name FROM T WHERE Ok = @Ok", []any{"maybe"}, "@Ok"},
		{"SELECT Name FROM T WHERE Name = @n", []any{int64(3)}, "@n"},
		{"DELETE FROM T WHERE Ok = @Ok", []any{int64(1)}, "@Ok"},
		{"SELECT Name FROM T WHERE Id IN (@a, @b)", []any{int64(1), true}, "@b"},
	} {
		var err error
		if strings.HasPrefix(c.sql, "SELECT") {
			var name string
			err = db.QueryRowContext(ctx, c.sql, c.args...).Scan(&name)
		} else {
			_, err = db.ExecContext(ctx, c.sql, c.args...)
		}
		if status.Code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), c.param) {
			t.Errorf("%s %v: %v, want InvalidArgument naming %s", c.sql, c.args, err, c.param)
		}
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.ExecContext(ctx, "UPDATE T SET Score = @Score WHERE Id = @Id", sql.Named("Score", 6), sql.Named("Id", "1")); err != nil {
		t.Fatalf("UPDATE with a numeric string key in a transaction after the failures: %v", err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, "UPDATE T SET Name = @Name WHERE Id = @Id", sql.Named("Name", "b"), sql.Named("Id", int64(1))); err != nil {
		t.Fatalf("autocommit UPDATE after the failures: %v", err)
	}
	var score int64
	var name string
	if err := db.QueryRowContext(ctx, "SELECT Score, Name FROM T WHERE Id = 1").Scan(&score, &name); err != nil || score != 6 || name != "b" {
		t.Fatalf("row: %d %q %v, want 6 \"b\"", score, name, err)
	}
}
