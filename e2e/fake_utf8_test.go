package e2e

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"strings"
	"testing"

	"cloud.google.com/go/spanner"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	sfdriver "github.com/spannerfast/spannerfast/driver"
	"github.com/spannerfast/spannerfast/internal/fakespanner"
)

// TestFakeInvalidUTF8: a statement or a string argument that is not valid
// UTF-8 (which gRPC's marshalling would refuse with an Internal error
// naming nothing) is refused with InvalidArgument before anything is sent,
// naming the parameter (its name, or pN for the N-th unnamed argument, as
// other argument errors do, and the element of an array) or the
// statement's first invalid byte; never driver.ErrBadConn, so database/sql does not
// send it again. The same for a mutation's string value (Apply,
// BufferWrite), naming its table and column. Valid text after it runs.
func TestFakeInvalidUTF8(t *testing.T) {
	s := fakespanner.Start(t)
	answerEverything(s)
	db := openFake(t, s)
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := conn.PingContext(ctx); err != nil {
		t.Fatal(err)
	}
	bad := "a\xffb"
	check := func(what string, err error, words ...string) {
		t.Helper()
		if status.Code(err) != codes.InvalidArgument || errors.Is(err, driver.ErrBadConn) {
			t.Errorf("%s: %v, want InvalidArgument", what, err)
			return
		}
		for _, w := range words {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %q does not say %q", what, err, w)
			}
		}
	}
	before := len(s.Requests())
	query := func(q string, args ...any) error { return queryOne(ctx, conn, q, args...) }
	exec := func(q string, args ...any) error { _, err := conn.ExecContext(ctx, q, args...); return err }
	check("query text", query("SELECT '"+bad+"'"), "not valid UTF-8", "offset 9")
	check("DML text", exec("UPDATE T SET s = '"+bad+"' WHERE true"), "not valid UTF-8", "offset 19")
	check("DDL text", exec("CREATE TABLE "+bad+" (id INT64) PRIMARY KEY (id)"), "not valid UTF-8", "offset 14")
	check("client-side text", exec("SET statement_tag = '"+bad+"'"), "not valid UTF-8")
	check("string", query("SELECT @s", bad), "parameter @p1", "offset 1")
	check("positional", query("SELECT ?, ?", "ok", bad), "parameter @p2")
	check("*string", query("SELECT @s", &bad), "parameter @p1")
	check("named", query("SELECT @name", sql.Named("name", bad)), "parameter @name")
	check("[]string", query("SELECT @a", []string{"ok", "ok", bad}), "parameter @p1 element [2]")
	check("[]*string", query("SELECT @a", []*string{nil, &bad}), "parameter @p1 element [1]")
	check("spanner.NullString", query("SELECT @s", spanner.NullString{StringVal: bad, Valid: true}), "parameter @p1")
	check("[]spanner.NullString", query("SELECT @s", []spanner.NullString{{StringVal: bad, Valid: true}}), "parameter @p1 element [0]")
	check("sql.NullString", query("SELECT @s", sql.NullString{String: bad, Valid: true}), "parameter @p1")
	stmt, err := conn.PrepareContext(ctx, "SELECT @s")
	if err != nil {
		t.Fatal(err)
	}
	_, err = stmt.QueryContext(ctx, bad)
	stmt.Close()
	check("prepared", err, "parameter @p1")
	err = spannerConn(t, conn, func(sc sfdriver.SpannerConn) error {
		_, err := sc.Apply(ctx, []*spanner.Mutation{spanner.InsertOrUpdate("Singers", []string{"SingerId", "FirstName"}, []any{int64(1), bad})})
		return err
	})
	check("Apply", err, "column FirstName", "table Singers")
	err = spannerConn(t, conn, func(sc sfdriver.SpannerConn) error {
		_, err := sc.Apply(ctx, []*spanner.Mutation{spanner.Delete("Singers", spanner.Key{bad})})
		return err
	})
	check("Apply delete key", err, "table Singers")
	if got := s.Requests()[before:]; len(got) != 0 {
		var methods []string
		for _, r := range got {
			methods = append(methods, r.Method)
		}
		t.Errorf("requests sent for invalid UTF-8: %v, want none", methods)
	}
	if err := query("SELECT @s", "ünïcödé"); err != nil {
		t.Fatalf("valid text after the failures: %v", err)
	}
}
