package e2e

import (
	"testing"

	"github.com/spannerfast/spannerfast/internal/emulatortest"
)

// TestEmulatorDialectDetected: a connection learns the dialect of the
// database it connects to (GoogleSQL or PostgreSQL) and SHOW VARIABLE
// database_dialect reports it; database_dialect in the DSN is taken as is.
func TestEmulatorDialectDetected(t *testing.T) {
	t.Parallel()
	ctx := emuCtx(t)
	for _, d := range []emulatortest.Dialect{emulatortest.GoogleSQL, emulatortest.PostgreSQL} {
		edb := emulatortest.NewDatabase(t, emulatortest.WithDialect(d))
		db := emuOpen(t, edb.DSN())
		if got := showText(t, ctx, db, "database_dialect"); got != d.String() {
			t.Errorf("%s database: SHOW VARIABLE database_dialect = %q", d, got)
		}
		if err := db.PingContext(ctx); err != nil {
			t.Fatalf("%s database: Ping: %v", d, err)
		}
		given := emuOpen(t, edb.DSN("database_dialect="+d.String()))
		if got := showText(t, ctx, given, "database_dialect"); got != d.String() {
			t.Errorf("%s database, database_dialect given: SHOW VARIABLE database_dialect = %q", d, got)
		}
	}
}

// TestEmulatorDialectConnectionStateDefault: on a PostgreSQL-dialect
// database connection_state_type DEFAULT is TRANSACTIONAL (a rollback undoes
// SET), on a GoogleSQL one NON_TRANSACTIONAL, as in go-sql-spanner.
func TestEmulatorDialectConnectionStateDefault(t *testing.T) {
	t.Parallel()
	ctx := emuCtx(t)
	for _, d := range []emulatortest.Dialect{emulatortest.GoogleSQL, emulatortest.PostgreSQL} {
		edb := emulatortest.NewDatabase(t, emulatortest.WithDialect(d))
		c, err := emuOpen(t, edb.DSN()).Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, st := range []string{"BEGIN", "SET optimizer_version = '5'"} {
			if _, err := c.ExecContext(ctx, st); err != nil {
				t.Fatalf("%s: %s: %v", d, st, err)
			}
		}
		if got := emuInt64s(t, ctx, c, "SELECT 1"); len(got) != 1 || got[0] != 1 {
			t.Fatalf("%s: SELECT 1 = %v", d, got)
		}
		if _, err := c.ExecContext(ctx, "ROLLBACK"); err != nil {
			t.Fatalf("%s: ROLLBACK: %v", d, err)
		}
		want := "5"
		if d == emulatortest.PostgreSQL {
			want = ""
		}
		if got := showText(t, ctx, c, "optimizer_version"); got != want {
			t.Errorf("%s: optimizer_version after ROLLBACK = %q, want %q", d, got, want)
		}
		c.Close()
	}
}

// TestEmulatorCreateDatabaseSameDialect: CREATE DATABASE without dialect
// creates a database of the current database's dialect, as go-sql-spanner
// does: on a PostgreSQL database, a PostgreSQL one.
func TestEmulatorCreateDatabaseSameDialect(t *testing.T) {
	t.Parallel()
	ctx := emuCtx(t)
	edb := emulatortest.NewDatabase(t, emulatortest.WithDialect(emulatortest.PostgreSQL))
	db := emuOpen(t, edb.DSN())
	id := emuName("cdsame-")
	emuExec(t, ctx, db, `CREATE DATABASE "`+id+`"`)
	t.Cleanup(func() { db.ExecContext(ctx, "DROP DATABASE "+id) })
	created := emuOpen(t, edb.Endpoint+"/projects/"+edb.Project+"/instances/"+edb.Instance+"/databases/"+id+";usePlainText=true")
	if got := showText(t, ctx, created, "database_dialect"); got != "POSTGRESQL" {
		t.Fatalf("the new database's dialect is %q, want POSTGRESQL", got)
	}
}

// TestEmulatorPostgreSQLParameters: on a PostgreSQL database statements
// are read as PostgreSQL: $1..$n parameters bind the arguments in order,
// ? is rewritten to $n, and a string of several statements splits on
// PostgreSQL's lexical rules (a dollar-quoted string holds a semicolon).
func TestEmulatorPostgreSQLParameters(t *testing.T) {
	t.Parallel()
	ctx := emuCtx(t)
	edb := emulatortest.NewDatabase(t, emulatortest.WithDialect(emulatortest.PostgreSQL),
		emulatortest.WithDDL("CREATE TABLE users (id bigint primary key, name varchar)"))
	db := emuOpen(t, edb.DSN())
	emuExec(t, ctx, db, "INSERT INTO users (id, name) VALUES ($1, $2)", 1, "alice")
	emuExec(t, ctx, db, "INSERT INTO users (id, name) VALUES (?, ?)", 2, "bob")
	emuExec(t, ctx, db, "INSERT INTO users (id, name) VALUES (3, $$c;d$$); INSERT INTO users (id, name) VALUES (4, 'e')")
	if got := emuColumn[string](t, ctx, db, "SELECT name FROM users WHERE id = $1", 1); len(got) != 1 || got[0] != "alice" {
		t.Errorf("SELECT ... WHERE id = $1 (1): %q, want [alice]", got)
	}
	if got := emuColumn[string](t, ctx, db, "SELECT name FROM users WHERE id = $1 OR name = $2 ORDER BY id", 3, "bob"); len(got) != 2 || got[0] != "bob" || got[1] != "c;d" {
		t.Errorf("SELECT ... WHERE id = $1 OR name = $2: %q, want [bob c;d]", got)
	}
	if got := emuInt64s(t, ctx, db, "SELECT count(*) FROM users"); len(got) != 1 || got[0] != 4 {
		t.Errorf("count = %v, want [4]", got)
	}
	// database_dialect given: the same, without asking the database.
	given := emuOpen(t, edb.DSN("database_dialect=POSTGRESQL"))
	if got := emuColumn[string](t, ctx, given, "SELECT name FROM users WHERE id = $1", 2); len(got) != 1 || got[0] != "bob" {
		t.Errorf("database_dialect=POSTGRESQL: %q, want [bob]", got)
	}
}
