package e2e

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/structpb"

	sfdriver "github.com/spannerfast/spannerfast/driver"
	"github.com/spannerfast/spannerfast/internal/fakespanner"
)

// sentParams is the SQL, parameters and parameter types of the last
// request the fake got.
func sentParams(t *testing.T, s *fakespanner.Server) (string, map[string]*structpb.Value, map[string]*spannerpb.Type) {
	t.Helper()
	req := lastRequest(t, s).ExecuteSQL()
	return req.GetSql(), req.GetParams().GetFields(), req.GetParamTypes()
}

// TestFakeParamBinding: arguments bind to parameters as go-sql-spanner binds
// them.
func TestFakeParamBinding(t *testing.T) {
	s := fakespanner.Start(t)
	answerEverything(s)
	db := openFake(t, s)
	ctx := context.Background()
	for _, c := range []struct {
		name  string
		query string
		args  []any
		want  map[string]*structpb.Value // exactly the parameters sent
	}{
		{"positional to named", "SELECT * FROM T WHERE id = @id", []any{7},
			map[string]*structpb.Value{"id": str("7")}},
		{"first appearance order", "SELECT * FROM T WHERE b = @b AND a = @a OR c = @b", []any{1, 2},
			map[string]*structpb.Value{"b": str("1"), "a": str("2")}},
		{"repeated name takes one value", "SELECT * FROM T WHERE a = @id OR b = @ID", []any{3},
			map[string]*structpb.Value{"id": str("3")}},
		{"names differing in case are two parameters", "SELECT * FROM T WHERE a = @id OR b = @ID", []any{sql.Named("id", 1), sql.Named("ID", 2)},
			map[string]*structpb.Value{"id": str("1"), "ID": str("2")}},
		{"named, other case", "SELECT * FROM T WHERE id = @id", []any{sql.Named("ID", 4)},
			map[string]*structpb.Value{"id": str("4")}},
		{"named and positional", "SELECT * FROM T WHERE a = @a AND b = @b", []any{5, sql.Named("B", 6)},
			map[string]*structpb.Value{"a": str("5"), "b": str("6")}},
		{"named not in the SQL is sent", "SELECT * FROM T WHERE a = @a", []any{sql.Named("a", 1), sql.Named("extra", 2)},
			map[string]*structpb.Value{"a": str("1"), "extra": str("2")}},
		{"extra positional ignored", "SELECT * FROM T WHERE a = ?", []any{1, 2},
			map[string]*structpb.Value{"p1": str("1")}},
		{"option argument does not shift positions", "SELECT * FROM T WHERE a = ? AND b = ?", []any{sfdriver.RawDecode(true), 1, 2},
			map[string]*structpb.Value{"p1": str("1"), "p2": str("2")}},
	} {
		if err := queryOne(ctx, db, c.query, c.args...); err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		_, got, _ := sentParams(t, s)
		if len(got) != len(c.want) {
			t.Errorf("%s: sent %v, want %v", c.name, got, c.want)
			continue
		}
		for n, v := range c.want {
			if !protoEq(got[n], v) {
				t.Errorf("%s: parameter %s = %s, want %s (sent %v)", c.name, n, protoText(got[n]), protoText(v), got)
			}
		}
	}
}

// TestFakeStringParamsUntyped: Go strings are sent without a type, as
// go-sql-spanner sends them, so Spanner can read them as DATE, TIMESTAMP,
// JSON or NUMERIC where the parameter stands; spanner.NullString stays typed.
func TestFakeStringParamsUntyped(t *testing.T) {
	s := fakespanner.Start(t)
	answerEverything(s)
	db := openFake(t, s)
	ctx := context.Background()
	if err := queryOne(ctx, db, "SELECT * FROM T WHERE d = ? AND s = ?", "2024-01-02", sql.NullString{String: "x", Valid: true}); err != nil {
		t.Fatal(err)
	}
	_, params, types := sentParams(t, s)
	if !protoEq(params["p1"], str("2024-01-02")) {
		t.Fatalf("p1 = %s", protoText(params["p1"]))
	}
	if _, ok := types["p1"]; ok {
		t.Fatalf("string parameter sent with type %s, want no type", protoText(types["p1"]))
	}
	if types["p2"].GetCode() != spannerpb.TypeCode_STRING {
		t.Fatalf("sql.NullString sent with type %s, want STRING", protoText(types["p2"]))
	}
}

// TestFakeMissingParam: a parameter without a value fails on the client,
// naming it, and nothing is sent.
func TestFakeMissingParam(t *testing.T) {
	s := fakespanner.Start(t)
	answerEverything(s)
	db := openFake(t, s)
	ctx := context.Background()
	if err := db.PingContext(ctx); err != nil {
		t.Fatal(err)
	}
	sent := len(s.RequestsFor("ExecuteStreamingSql"))
	for _, c := range []struct {
		query string
		args  []any
		param string
	}{
		{"SELECT * FROM T WHERE a = @a AND b = @b", []any{sql.Named("a", 1)}, "@b"},
		{"SELECT * FROM T WHERE a = @a", nil, "@a"},
		{"SELECT ?, ?", []any{1}, "@p2"},
		{"SELECT * FROM T WHERE a = @a AND b = @b", []any{sql.Named("b", 1), sql.Named("c", 2)}, "@a"},
	} {
		err := queryOne(ctx, db, c.query, c.args...)
		if status.Code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), "missing value for query parameter "+c.param) {
			t.Errorf("%s %v: error %v, want InvalidArgument naming %s", c.query, c.args, err, c.param)
		}
	}
	if n := len(s.RequestsFor("ExecuteStreamingSql")); n != sent {
		t.Fatalf("%d requests sent for statements with missing values", n-sent)
	}
}

// TestFakeNumInput: prepared statements report their number of distinct
// parameters, so database/sql checks the number of arguments before
// anything is sent; option arguments do not count.
func TestFakeNumInput(t *testing.T) {
	s := fakespanner.Start(t)
	answerEverything(s)
	db := openFake(t, s)
	ctx := context.Background()
	for _, c := range []struct {
		query string
		n     int
	}{
		{"SELECT 1", 0},
		{"SELECT ?, '?' -- ?", 1},
		{"SELECT ?, ?", 2},
		// Names that differ in case are distinct, as in go-sql-spanner.
		{"SELECT * FROM T WHERE a = @a OR b = @A OR c = @c OR d = @a", 3},
	} {
		st, err := db.PrepareContext(ctx, c.query)
		if err != nil {
			t.Fatal(err)
		}
		args := make([]any, c.n)
		for i := range args {
			args[i] = i
		}
		if err := queryStmt(ctx, st, args...); err != nil {
			t.Errorf("%s with %d arguments: %v", c.query, c.n, err)
		}
		if err := queryStmt(ctx, st, append(args, sfdriver.RawDecode(true))...); err != nil {
			t.Errorf("%s with %d arguments and an option: %v", c.query, c.n, err)
		}
		sent := len(s.RequestsFor("ExecuteStreamingSql"))
		for _, n := range []int{c.n - 1, c.n + 1} {
			if n < 0 {
				continue
			}
			err := queryStmt(ctx, st, make([]any, n)...)
			if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("expected %d arguments, got %d", c.n, n)) {
				t.Errorf("%s with %d arguments: error %v, want the argument count error", c.query, n, err)
			}
		}
		if got := len(s.RequestsFor("ExecuteStreamingSql")); got != sent {
			t.Errorf("%s: %d requests sent with wrong argument counts", c.query, got-sent)
		}
		st.Close()
	}
}

// queryStmt runs a prepared statement and reads all its rows.
func queryStmt(ctx context.Context, st *sql.Stmt, args ...any) error {
	rows, err := st.QueryContext(ctx, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
	}
	return rows.Err()
}
