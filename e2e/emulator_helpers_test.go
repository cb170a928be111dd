package e2e

import (
	"context"
	"database/sql"
	"errors"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/spannerfast/spannerfast/internal/emulatortest"
)

// The emulator tier (emulator_*_test.go) runs through database/sql only,
// each test on a fresh emulatortest database (creating one takes a few
// milliseconds), so tests never see each other's rows and may run in
// parallel: the emulator runs one read-write transaction per database at a
// time, never across databases.

// emuDB opens a spannerfast *sql.DB on a fresh GoogleSQL database with ddl
// applied; props are extra DSN properties.
func emuDB(t *testing.T, ddl []string, props ...string) (*sql.DB, *emulatortest.Database) {
	t.Helper()
	edb := emulatortest.NewDatabase(t, emulatortest.WithDDL(ddl...))
	return emuOpen(t, edb.DSN(props...)), edb
}

// emuPGDB opens a spannerfast *sql.DB on a fresh PostgreSQL-dialect
// database with ddl (PostgreSQL DDL) applied; props are extra DSN
// properties.
func emuPGDB(t *testing.T, ddl []string, props ...string) (*sql.DB, *emulatortest.Database) {
	t.Helper()
	edb := emulatortest.NewDatabase(t, emulatortest.WithDialect(emulatortest.PostgreSQL), emulatortest.WithDDL(ddl...))
	return emuOpen(t, edb.DSN(props...)), edb
}

// openDSN opens dsn and closes the *sql.DB when t ends.
func emuOpen(t *testing.T, dsnString string) *sql.DB {
	t.Helper()
	db, err := sql.Open("spannerfast", dsnString)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// emuCtx bounds one emulator test: a hang fails instead of stalling CI.
func emuCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func emuExec(t *testing.T, ctx context.Context, db interface {
	ExecContext(context.Context, string, ...any) (sql.Result, error)
}, query string, args ...any) int64 {
	t.Helper()
	res, err := db.ExecContext(ctx, query, args...)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return -1
	}
	return n
}

// emuQuerier is what the emulator helpers query through: *sql.DB,
// *sql.Conn or *sql.Tx.
type emuQuerier interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}

// emuColumn runs a query of one column and returns its values as T.
func emuColumn[T any](t *testing.T, ctx context.Context, db emuQuerier, query string, args ...any) []T {
	t.Helper()
	rows, err := db.QueryContext(ctx, query, args...)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		var v T
		if err := rows.Scan(&v); err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// emuInt64s runs a query of one INT64 column.
func emuInt64s(t *testing.T, ctx context.Context, db emuQuerier, query string, args ...any) []int64 {
	t.Helper()
	return emuColumn[int64](t, ctx, db, query, args...)
}

// wantCode fails t unless err carries gRPC code want.
func emuWantCode(t *testing.T, err error, want codes.Code) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want %v", want)
	}
	var se interface{ GRPCStatus() *status.Status }
	if status.Code(err) != want && !(errors.As(err, &se) && se.GRPCStatus().Code() == want) {
		t.Fatalf("error %v has code %v, want %v", err, status.Code(err), want)
	}
}
