package e2e

import (
	"context"
	"database/sql"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// TestEmulatorPGNumberedParams: on a PostgreSQL database $n is the n-th
// argument, as in PostgreSQL, whatever the order the $n appear in
// (go-sql-spanner binds them in order of first appearance and would store
// first_name "Smith" here): an INSERT writing $1, $3, $2, a query reading
// with $2 before $1, a $1 used twice, and a statement skipping $2, directly
// and prepared (which takes three unnamed arguments, or two too few).
func TestEmulatorPGNumberedParams(t *testing.T) {
	t.Parallel()
	ctx := emuCtx(t)
	db, _ := emuPGDB(t, []string{"CREATE TABLE people (id bigint primary key, last_name varchar, first_name varchar)"})
	emuExec(t, ctx, db, "INSERT INTO people (id, last_name, first_name) VALUES ($1, $3, $2)", int64(1), "John", "Smith")
	var last, first string
	if err := db.QueryRowContext(ctx, "SELECT last_name, first_name FROM people WHERE id = 1").Scan(&last, &first); err != nil || last != "Smith" || first != "John" {
		t.Fatalf("last_name, first_name = %q, %q %v; want Smith, John ($3, $2)", last, first, err)
	}
	var id int64
	if err := db.QueryRowContext(ctx, "SELECT id FROM people WHERE first_name = $2 AND last_name = $1", "Smith", "John").Scan(&id); err != nil || id != 1 {
		t.Fatalf("query with $2 before $1: %d %v, want 1", id, err)
	}
	if n := emuExec(t, ctx, db, "UPDATE people SET first_name = $1, last_name = $1 WHERE id = $2", "Jo", int64(1)); n != 1 {
		t.Fatalf("UPDATE with $1 twice: %d rows", n)
	}
	if err := db.QueryRowContext(ctx, "SELECT last_name, first_name FROM people WHERE id = $1 AND last_name = $2 AND first_name = $2", int64(1), "Jo").Scan(&last, &first); err != nil || last != "Jo" || first != "Jo" {
		t.Fatalf("after the UPDATE: %q, %q %v; want Jo, Jo", last, first, err)
	}
	gap := "SELECT $3::text, $1::text"
	st, err := db.PrepareContext(ctx, gap)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for _, q := range []interface {
		QueryRowContext(context.Context, ...any) *sql.Row
	}{st, rowQuerier{db, gap}} {
		var a, c string
		if err := q.QueryRowContext(ctx, "a", "b", "c").Scan(&c, &a); err != nil || c != "c" || a != "a" {
			t.Errorf("%s with a, b, c: %q %q %v; want c a", gap, c, a, err)
		}
		if err := q.QueryRowContext(ctx, sql.Named("p3", "c"), sql.Named("p1", "a")).Scan(&c, &a); err != nil || c != "c" || a != "a" {
			t.Errorf("%s named p3, p1: %q %q %v; want c a", gap, c, a, err)
		}
		err := q.QueryRowContext(ctx, "a", "b").Scan(&c, &a)
		if status.Code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), "missing value for query parameter @p3") {
			t.Errorf("%s with two arguments: %v, want InvalidArgument naming @p3", gap, err)
		}
	}
}

// rowQuerier runs one statement's text through a *sql.DB.
type rowQuerier struct {
	db  *sql.DB
	sql string
}

func (r rowQuerier) QueryRowContext(ctx context.Context, args ...any) *sql.Row {
	return r.db.QueryRowContext(ctx, r.sql, args...)
}
