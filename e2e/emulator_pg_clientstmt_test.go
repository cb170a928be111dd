package e2e

import (
	"context"
	"database/sql"
	"reflect"
	"testing"

	"google.golang.org/grpc/codes"
)

// The client-side statements in their PostgreSQL forms on a
// PostgreSQL-dialect database of the emulator, through database/sql, as
// go-sql-spanner accepts them there (fake_pg_clientstmt_test.go holds the
// request shapes): SET [SESSION | LOCAL] name {= | TO} value, SHOW name,
// RESET name, BEGIN / START TRANSACTION with their options, SET
// TRANSACTION, COMMIT / END, ROLLBACK / ABORT, and the PostgreSQL settings.

var emuPGClientDDL = []string{"CREATE TABLE kv (k bigint primary key, v varchar)"}

// pgShow runs SHOW name (PostgreSQL's form) and returns its one value as
// text.
func pgShow(t *testing.T, ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}, name string) string {
	t.Helper()
	var v string
	if err := q.QueryRowContext(ctx, "SHOW "+name).Scan(&v); err != nil {
		t.Fatalf("SHOW %s: %v", name, err)
	}
	return v
}

// TestEmulatorPGSetShowReset: SET in each PostgreSQL form changes a
// property, SHOW (with or without the spanner. prefix) reads it, RESET and
// SET ... TO DEFAULT put back the DSN's value; the PostgreSQL settings show
// their defaults, take the values go-sql-spanner takes and refuse the
// others; the read-only ones refuse SET.
func TestEmulatorPGSetShowReset(t *testing.T) {
	t.Parallel()
	ctx := emuCtx(t)
	db, _ := emuPGDB(t, emuPGClientDDL, "statement_timeout=30s")
	c := dbConn(t, db)

	for _, tc := range []struct{ set, show, want string }{
		{"SET spanner.retry_aborts_internally = false", "spanner.retry_aborts_internally", "false"},
		{"SET spanner.retry_aborts_internally TO true", "retry_aborts_internally", "true"},
		{"SET SESSION spanner.read_only_staleness TO 'exact_staleness 10s'", "spanner.read_only_staleness", "(exactStaleness: 10s)"},
		{"set session autocommit_dml_mode = 'partitioned_non_atomic'", "spanner.autocommit_dml_mode", "Partitioned_Non_Atomic"},
		{"SET statement_timeout = 1500", "statement_timeout", "1.5s"},
		{"SET statement_timeout TO '10s'", "spanner.statement_timeout", "10s"},
		{"RESET statement_timeout", "statement_timeout", "30s"},
		{"SET statement_timeout = '5s'", "statement_timeout", "5s"},
		{"SET statement_timeout TO DEFAULT", "statement_timeout", "30s"},
		{"RESET spanner.autocommit_dml_mode", "autocommit_dml_mode", "Transactional"},
		{"RESET spanner.read_only_staleness", "read_only_staleness", "(strong)"},
		// The PostgreSQL settings.
		{"SET application_name = 'my-awesome-app'", "application_name", "my-awesome-app"},
		{"SET application_name TO 'it''s mine'", "application_name", "it's mine"},
		{"RESET application_name", "application_name", ""},
		{"SET timezone TO 'Asia/Kolkata'", "timezone", "Asia/Kolkata"},
		{"SET client_min_messages = warning", "client_min_messages", "warning"},
		{"SET client_encoding TO 'utf8'", "client_encoding", "UTF8"},
		{"SET default_transaction_isolation = 'repeatable_read'", "default_transaction_isolation", "repeatable read"},
		{"SET SESSION default_transaction_isolation TO 'serializable'", "default_transaction_isolation", "serializable"},
	} {
		emuExec(t, ctx, c, tc.set)
		if got := pgShow(t, ctx, c, tc.show); got != tc.want {
			t.Errorf("%s; SHOW %s = %q, want %q", tc.set, tc.show, got, tc.want)
		}
	}
	for name, want := range map[string]string{
		"server_version": "14.1", "server_version_num": "140001", "transaction_isolation": "serializable",
		"database_dialect": "POSTGRESQL", "dialect": "", "isolation_level": "serializable",
	} {
		if got := pgShow(t, ctx, c, name); got != want {
			t.Errorf("SHOW %s = %q, want %q", name, got, want)
		}
	}
	for _, tc := range []struct {
		stmt string
		code codes.Code
	}{
		{"SET server_version_num = '150000'", codes.FailedPrecondition},
		{"SET transaction_isolation = 'serializable'", codes.FailedPrecondition},
		{"SET default_transaction_isolation = 'read committed'", codes.InvalidArgument},
		{"SET client_encoding = 'LATIN1'", codes.InvalidArgument},
		{"SET statement_timeout = 'soon'", codes.InvalidArgument},
		{"SET no_such_setting = 1", codes.InvalidArgument},
		{"RESET ALL", codes.InvalidArgument},
		{"SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY", codes.InvalidArgument},
		{"SET TIME ZONE 'UTC'", codes.InvalidArgument},
		{"BEGIN ISOLATION LEVEL READ COMMITTED", codes.InvalidArgument},
	} {
		_, err := c.ExecContext(ctx, tc.stmt)
		emuWantCode(t, err, tc.code)
	}
	if got := pgShow(t, ctx, c, "default_transaction_isolation"); got != "serializable" {
		t.Errorf("default_transaction_isolation after refused SETs = %q", got)
	}
	// GoogleSQL's SHOW VARIABLE works here too.
	if got := pgShow(t, ctx, c, "VARIABLE spanner.client_encoding"); got != "UTF8" {
		t.Errorf("SHOW VARIABLE spanner.client_encoding = %q", got)
	}
}

// TestEmulatorPGTransactionStatements: every way PostgreSQL begins and ends
// a transaction works on the emulator: the changes of a committed one stay
// and a rolled-back one's go; a read-only transaction refuses DML; SHOW
// TRANSACTION ... reports the transaction's own options while it runs.
func TestEmulatorPGTransactionStatements(t *testing.T) {
	t.Parallel()
	ctx := emuCtx(t)
	db, _ := emuPGDB(t, emuPGClientDDL)
	c := dbConn(t, db)
	k := int64(0)
	for _, begin := range []string{
		"BEGIN", "begin transaction", "BEGIN WORK", "START", "START TRANSACTION", "start work",
		"BEGIN READ WRITE", "BEGIN ISOLATION LEVEL SERIALIZABLE", "START TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ WRITE",
		"BEGIN TRANSACTION ISOLATION LEVEL REPEATABLE READ NOT DEFERRABLE",
	} {
		for _, end := range []string{"COMMIT", "COMMIT WORK", "END", "END TRANSACTION", "ROLLBACK", "ROLLBACK TRANSACTION", "ABORT", "ABORT WORK"} {
			k++
			emuExec(t, ctx, c, begin)
			emuExec(t, ctx, c, "INSERT INTO kv (k, v) VALUES ($1, $2)", k, begin)
			emuExec(t, ctx, c, end)
			committed := end[0] == 'C' || end[0] == 'E'
			got := emuInt64s(t, ctx, db, "SELECT count(*) FROM kv WHERE k = $1", k)
			if want := map[bool]int64{true: 1, false: 0}[committed]; !reflect.DeepEqual(got, []int64{want}) {
				t.Errorf("%s; INSERT; %s: %v rows, want %d", begin, end, got, want)
			}
		}
	}

	// Read-only transactions, however they are asked for, refuse DML.
	for _, stmts := range [][]string{
		{"BEGIN READ ONLY"}, {"START TRANSACTION READ ONLY, NOT DEFERRABLE"}, {"BEGIN TRANSACTION READ ONLY DEFERRABLE"},
		{"BEGIN", "SET TRANSACTION READ ONLY"}, {"START TRANSACTION", "SET LOCAL spanner.transaction_read_only TO true"},
	} {
		for _, st := range stmts {
			emuExec(t, ctx, c, st)
		}
		if got := pgShow(t, ctx, c, "TRANSACTION READ ONLY"); got != "true" {
			t.Errorf("%q: SHOW TRANSACTION READ ONLY = %q", stmts, got)
		}
		if got := emuInt64s(t, ctx, c, "SELECT count(*) FROM kv WHERE k = 1"); !reflect.DeepEqual(got, []int64{1}) {
			t.Errorf("%q: read %v", stmts, got)
		}
		_, err := c.ExecContext(ctx, "UPDATE kv SET v = 'x' WHERE k = 1")
		emuWantCode(t, err, codes.FailedPrecondition)
		emuExec(t, ctx, c, "COMMIT")
		if got := pgShow(t, ctx, c, "TRANSACTION READ ONLY"); got != "false" {
			t.Errorf("%q: after the transaction SHOW TRANSACTION READ ONLY = %q", stmts, got)
		}
	}

	// The isolation level reaches Spanner: a repeatable-read transaction
	// runs and commits on the emulator, and SHOW reports its level while
	// it runs.
	for _, tc := range []struct {
		stmts []string
		want  string
	}{
		{[]string{"BEGIN ISOLATION LEVEL REPEATABLE READ"}, "repeatable read"},
		{[]string{"START TRANSACTION", "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ"}, "repeatable read"},
		{[]string{"SET default_transaction_isolation TO 'repeatable read'", "BEGIN"}, "repeatable read"},
		{[]string{"BEGIN ISOLATION LEVEL SERIALIZABLE"}, "serializable"},
	} {
		k++
		for _, st := range tc.stmts {
			emuExec(t, ctx, c, st)
		}
		for _, name := range []string{"TRANSACTION ISOLATION LEVEL", "transaction_isolation"} {
			if got := pgShow(t, ctx, c, name); got != tc.want {
				t.Errorf("%q: SHOW %s = %q, want %q", tc.stmts, name, got, tc.want)
			}
		}
		emuExec(t, ctx, c, "INSERT INTO kv (k, v) VALUES ($1, 'iso')", k)
		if got := emuInt64s(t, ctx, c, "SELECT count(*) FROM kv WHERE v = 'iso'"); len(got) != 1 || got[0] == 0 {
			t.Errorf("%q: the transaction does not see its own insert: %v", tc.stmts, got)
		}
		emuExec(t, ctx, c, "COMMIT")
		emuExec(t, ctx, c, "RESET default_transaction_isolation")
	}
	if got := emuInt64s(t, ctx, db, "SELECT count(*) FROM kv WHERE v = 'iso'"); !reflect.DeepEqual(got, []int64{4}) {
		t.Errorf("isolation transactions committed %v rows, want 4", got)
	}

	// Transaction statements in the wrong place fail and leave the
	// connection usable.
	_, err := c.ExecContext(ctx, "SET TRANSACTION READ ONLY")
	emuWantCode(t, err, codes.FailedPrecondition)
	emuExec(t, ctx, c, "BEGIN")
	emuInt64s(t, ctx, c, "SELECT 1")
	_, err = c.ExecContext(ctx, "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
	emuWantCode(t, err, codes.FailedPrecondition)
	_, err = c.ExecContext(ctx, "BEGIN")
	emuWantCode(t, err, codes.FailedPrecondition)
	emuExec(t, ctx, c, "END")
}

// TestEmulatorPGTransactionalSettings: on a PostgreSQL database the
// connection's settings are TRANSACTIONAL by default (as in
// go-sql-spanner): SET and RESET in a transaction are kept by its commit
// and undone by its rollback (ROLLBACK or ABORT), SET LOCAL lasts until the
// transaction ends, and BEGIN's options are the transaction's own.
func TestEmulatorPGTransactionalSettings(t *testing.T) {
	t.Parallel()
	ctx := emuCtx(t)
	db, _ := emuPGDB(t, emuPGClientDDL)
	c := dbConn(t, db)
	emuExec(t, ctx, c, "SET application_name = 'before'")
	emuExec(t, ctx, c, "SET spanner.optimizer_version = '1'")
	for _, end := range []string{"ROLLBACK", "ABORT", "COMMIT"} {
		emuExec(t, ctx, c, "BEGIN")
		emuExec(t, ctx, c, "SET application_name TO 'inside'")
		emuExec(t, ctx, c, "SET SESSION timezone = 'Europe/Oslo'")
		emuExec(t, ctx, c, "RESET spanner.optimizer_version")
		emuExec(t, ctx, c, "SET LOCAL client_min_messages TO 'error'")
		emuExec(t, ctx, c, "SET LOCAL spanner.retry_aborts_internally = false")
		for name, want := range map[string]string{
			"application_name": "inside", "timezone": "Europe/Oslo", "optimizer_version": "",
			"client_min_messages": "error", "retry_aborts_internally": "false",
		} {
			if got := pgShow(t, ctx, c, name); got != want {
				t.Errorf("%s: in the transaction SHOW %s = %q, want %q", end, name, got, want)
			}
		}
		emuExec(t, ctx, c, end)
		want := map[string]string{
			"application_name": "before", "timezone": "UTC", "optimizer_version": "1",
			"client_min_messages": "notice", "retry_aborts_internally": "true",
		}
		if end == "COMMIT" {
			want["application_name"], want["timezone"], want["optimizer_version"] = "inside", "Europe/Oslo", ""
		}
		for name, w := range want {
			if got := pgShow(t, ctx, c, name); got != w {
				t.Errorf("after %s: SHOW %s = %q, want %q", end, name, got, w)
			}
		}
	}

	// BEGIN's options last as long as their transaction.
	emuExec(t, ctx, c, "BEGIN ISOLATION LEVEL REPEATABLE READ, NOT DEFERRABLE")
	for _, name := range []string{"TRANSACTION ISOLATION LEVEL", "spanner.isolation_level", "TRANSACTION DEFERRABLE", "transaction_read_only"} {
		want := map[string]string{"TRANSACTION ISOLATION LEVEL": "repeatable read", "spanner.isolation_level": "repeatable read",
			"TRANSACTION DEFERRABLE": "false", "transaction_read_only": "false"}[name]
		if got := pgShow(t, ctx, c, name); got != want {
			t.Errorf("in BEGIN ISOLATION LEVEL REPEATABLE READ: SHOW %s = %q, want %q", name, got, want)
		}
	}
	emuExec(t, ctx, c, "ROLLBACK")
	if got := pgShow(t, ctx, c, "TRANSACTION ISOLATION LEVEL"); got != "serializable" {
		t.Errorf("after the transaction SHOW TRANSACTION ISOLATION LEVEL = %q", got)
	}
}
