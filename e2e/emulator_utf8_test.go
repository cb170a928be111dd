package e2e

import (
	"database/sql/driver"
	"errors"
	"strings"
	"testing"

	"cloud.google.com/go/spanner"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// TestEmulatorInvalidUTF8: on the emulator, through database/sql, a
// statement or a string argument that is not valid UTF-8 fails with
// InvalidArgument naming it (not the Internal error of gRPC's
// marshalling, not driver.ErrBadConn), the table is unchanged, and the
// connection goes on working.
func TestEmulatorInvalidUTF8(t *testing.T) {
	t.Parallel()
	ctx := emuCtx(t)
	db, _ := emuDB(t, []string{"CREATE TABLE U (id INT64, s STRING(MAX), a ARRAY<STRING(MAX)>) PRIMARY KEY (id)"})
	bad := "x\xc3("
	for _, c := range []struct {
		sql  string
		args []any
		says string
	}{
		{"INSERT INTO U (id, s) VALUES (1, '" + bad + "')", nil, "offset 35"},
		{"INSERT INTO U (id, s) VALUES (1, @s)", []any{bad}, "parameter @p1"},
		{"INSERT INTO U (id, a) VALUES (1, @a)", []any{[]string{"ok", bad}}, "element [1]"},
		{"INSERT INTO U (id, s) VALUES (1, @s)", []any{spanner.NullString{StringVal: bad, Valid: true}}, "parameter @p1"},
	} {
		_, err := db.ExecContext(ctx, c.sql, c.args...)
		if status.Code(err) != codes.InvalidArgument || errors.Is(err, driver.ErrBadConn) || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%q %q: %v, want InvalidArgument saying %q", c.sql, c.args, err, c.says)
		}
	}
	var n int64
	if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM U WHERE s = @s", "ünï").Scan(&n); err != nil || n != 0 {
		t.Fatalf("after the failures: %d %v, want 0 rows", n, err)
	}
}
