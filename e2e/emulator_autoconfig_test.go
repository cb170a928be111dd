package e2e

import (
	"crypto/rand"
	"encoding/hex"
	"testing"

	"github.com/spannerfast/spannerfast/internal/emulatortest"
)

// freshName returns an instance or database id no one has used.
func emuName(prefix string) string {
	var b [5]byte
	_, _ = rand.Read(b[:])
	return prefix + hex.EncodeToString(b[:])
}

// TestEmulatorAutoConfigDDLFirst: with autoConfigEmulator=true the first
// statement may be DDL; the instance and database it names do not exist yet
// and are created before it runs.
func TestEmulatorAutoConfigDDLFirst(t *testing.T) {
	t.Parallel()
	ctx := emuCtx(t)
	ep := emulatortest.Endpoint(t)
	inst, dbID := emuName("ac-"), emuName("acdb-")
	db := emuOpen(t, ep+"/projects/autoconfig/instances/"+inst+"/databases/"+dbID+";autoConfigEmulator=true")
	emuExec(t, ctx, db, "CREATE TABLE Notes (Id INT64 NOT NULL, Body STRING(MAX)) PRIMARY KEY (Id)")
	emuExec(t, ctx, db, "INSERT INTO Notes (Id, Body) VALUES (1, 'a'), (2, 'b')")
	if got := emuInt64s(t, ctx, db, "SELECT COUNT(*) FROM Notes"); len(got) != 1 || got[0] != 2 {
		t.Fatalf("count = %v, want [2]", got)
	}
	var dialect string
	if err := db.QueryRowContext(ctx, "SELECT OPTION_VALUE FROM INFORMATION_SCHEMA.DATABASE_OPTIONS WHERE OPTION_NAME = 'database_dialect'").Scan(&dialect); err != nil {
		t.Fatal(err)
	}
	if dialect != "GOOGLE_STANDARD_SQL" {
		t.Fatalf("dialect %q, want GOOGLE_STANDARD_SQL", dialect)
	}
}

// TestEmulatorAutoConfigPostgreSQL: dialect=POSTGRESQL makes the database
// autoConfigEmulator creates a PostgreSQL one: PostgreSQL DDL runs first and
// information_schema says so.
func TestEmulatorAutoConfigPostgreSQL(t *testing.T) {
	t.Parallel()
	ctx := emuCtx(t)
	ep := emulatortest.Endpoint(t)
	inst, dbID := emuName("ac-"), emuName("acpg-")
	db := emuOpen(t, ep+"/projects/autoconfig/instances/"+inst+"/databases/"+dbID+";autoConfigEmulator=true;dialect=POSTGRESQL")
	emuExec(t, ctx, db, "CREATE TABLE notes (id bigint primary key, body varchar)")
	var dialect string
	if err := db.QueryRowContext(ctx, "SELECT option_value FROM information_schema.database_options WHERE option_name = 'database_dialect'").Scan(&dialect); err != nil {
		t.Fatal(err)
	}
	if dialect != "POSTGRESQL" {
		t.Fatalf("dialect %q, want POSTGRESQL", dialect)
	}
}

// TestEmulatorCreateDatabaseDialect: CREATE DATABASE on a connection with
// dialect=POSTGRESQL creates a PostgreSQL database.
func TestEmulatorCreateDatabaseDialect(t *testing.T) {
	t.Parallel()
	ctx := emuCtx(t)
	edb := emulatortest.NewDatabase(t)
	db := emuOpen(t, edb.DSN("dialect=POSTGRESQL"))
	id := emuName("cdpg-")
	emuExec(t, ctx, db, `CREATE DATABASE "`+id+`"`)
	t.Cleanup(func() { db.ExecContext(ctx, "DROP DATABASE "+id) })
	pg := emuOpen(t, edb.Endpoint+"/projects/"+edb.Project+"/instances/"+edb.Instance+"/databases/"+id+";usePlainText=true")
	var dialect string
	if err := pg.QueryRowContext(ctx, "SELECT option_value FROM information_schema.database_options WHERE option_name = 'database_dialect'").Scan(&dialect); err != nil {
		t.Fatal(err)
	}
	if dialect != "POSTGRESQL" {
		t.Fatalf("dialect %q, want POSTGRESQL", dialect)
	}
}
