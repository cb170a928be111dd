package e2e

import (
	"testing"

	"github.com/spannerfast/spannerfast/internal/emulatortest"
)

// TestEmulatorPostgreSQLUntypedStringParameter: what go-sql-spanner's
// connect-pg and postgresql examples do, on a PostgreSQL-dialect database
// opened by its path alone with SPANNER_EMULATOR_HOST naming the emulator:
// a Go string bound to a bare `$1` (its type left to Spanner) and to
// `$1::varchar` comes back as that string. Not parallel: it sets the
// environment.
func TestEmulatorPostgreSQLUntypedStringParameter(t *testing.T) {
	ctx := emuCtx(t)
	edb := emulatortest.NewDatabase(t, emulatortest.WithDialect(emulatortest.PostgreSQL))
	t.Setenv(emulatortest.EmulatorHostEnv, edb.Endpoint)
	db := emuOpen(t, edb.Path())
	for _, query := range []string{"select $1", "SELECT $1::varchar as message"} {
		want := "Hello from Spanner PostgreSQL"
		var got string
		if err := db.QueryRowContext(ctx, query, want).Scan(&got); err != nil {
			t.Fatalf("%s: %v", query, err)
		}
		if got != want {
			t.Errorf("%s: %q, want %q", query, got, want)
		}
	}
}
