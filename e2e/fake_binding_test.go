package e2e

import (
	"context"
	"database/sql"
	"fmt"
	"maps"
	"strings"
	"sync"
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

// dialectBindCase is a WHERE clause with parameters, its arguments, the
// clause sent and every parameter sent (as its string value).
type dialectBindCase struct {
	name   string
	clause string
	args   []any
	sent   string
	want   map[string]string
}

// TestFakeParamBindingDialects: in each dialect, what is sent for each way
// of writing parameters and passing arguments, the same through QueryContext,
// ExecContext (DML) and a prepared statement's QueryContext and ExecContext.
// On PostgreSQL databases `$n` is the parameter pn; ? and @name become $1,
// $2... (sent as p1, p2...), in the order they first appear, and the n-th
// unnamed argument binds $n, as in PostgreSQL: `$2 ... $1` takes the first
// argument for $1 (go-sql-spanner gives it to $2).
func TestFakeParamBindingDialects(t *testing.T) {
	named := sql.Named
	for _, d := range []struct {
		dialect string
		cases   []dialectBindCase
	}{
		{"GOOGLE_STANDARD_SQL", []dialectBindCase{
			{"positional", "a = ? AND b = ?", []any{"x", "y"}, "a = @p1 AND b = @p2", map[string]string{"p1": "x", "p2": "y"}},
			{"named", "a = @id AND b = @value AND c = @id", []any{named("value", "v"), named("ID", "i")},
				"a = @id AND b = @value AND c = @id", map[string]string{"id": "i", "value": "v"}},
			{"@name positional", "a = @b AND b = @a", []any{"1", "2"}, "a = @b AND b = @a", map[string]string{"b": "1", "a": "2"}},
			{"$1 is not a parameter", "a = ? AND b = '$1'", []any{"x"}, "a = @p1 AND b = '$1'", map[string]string{"p1": "x"}},
			{"named not in the statement sent", "a = @a", []any{named("a", "1"), named("key", "k")}, "a = @a", map[string]string{"a": "1", "key": "k"}},
		}},
		{"POSTGRESQL", []dialectBindCase{
			{"$n", "a = $1 AND b = $2", []any{"x", "y"}, "a = $1 AND b = $2", map[string]string{"p1": "x", "p2": "y"}},
			{"$n reused", "a = $1 AND b = $2 AND c = $1", []any{"x", "y"}, "a = $1 AND b = $2 AND c = $1", map[string]string{"p1": "x", "p2": "y"}},
			{"$2 before $1", "a = $2 AND b = $1", []any{"first", "second"}, "a = $2 AND b = $1", map[string]string{"p1": "first", "p2": "second"}},
			{"$n named by number", "a = $2 AND b = $1", []any{named("p1", "one"), named("P2", "two")}, "a = $2 AND b = $1", map[string]string{"p1": "one", "p2": "two"}},
			{"positional ?", "a = ? AND b = ?", []any{"x", "y"}, "a = $1 AND b = $2", map[string]string{"p1": "x", "p2": "y"}},
			{"@name named", "a = @id AND b = @value AND c = @id", []any{named("value", "v"), named("ID", "i")},
				"a = $1 AND b = $2 AND c = $1", map[string]string{"p1": "i", "p2": "v"}},
			{"@name positional", "a = @id AND b = @value", []any{"i", "v"}, "a = $1 AND b = $2", map[string]string{"p1": "i", "p2": "v"}},
			{"@name by its $n name", "a = @id", []any{named("p1", "i")}, "a = $1", map[string]string{"p1": "i"}},
			{"named not in the statement sent", "a = @id", []any{named("id", "i"), named("key", "k")}, "a = $1", map[string]string{"p1": "i", "key": "k"}},
		}},
	} {
		s := fakespanner.Start(t)
		var mu sync.Mutex
		var last *spannerpb.ExecuteSqlRequest
		s.SetFallback(func(req *spannerpb.ExecuteSqlRequest) *fakespanner.Result {
			mu.Lock()
			last = req
			mu.Unlock()
			if strings.HasPrefix(req.GetSql(), "UPDATE") {
				return fakespanner.DML(1)
			}
			return fakespanner.Select1()
		})
		db := openFake(t, s, "database_dialect="+d.dialect)
		ctx := context.Background()
		for _, c := range d.cases {
			for _, way := range []string{"QueryContext", "ExecContext", "prepared QueryContext", "prepared ExecContext"} {
				if strings.HasPrefix(way, "prepared") && strings.Contains(c.name, "not in the statement") {
					continue // more arguments than parameters: database/sql refuses them (TestFakeParamBindingErrorsDialects)
				}
				prefix := "SELECT * FROM T WHERE "
				if strings.HasSuffix(way, "ExecContext") {
					prefix = "UPDATE T SET x = 1 WHERE "
				}
				var err error
				switch way {
				case "QueryContext":
					err = queryOne(ctx, db, prefix+c.clause, c.args...)
				case "ExecContext":
					_, err = db.ExecContext(ctx, prefix+c.clause, c.args...)
				default:
					var st *sql.Stmt
					if st, err = db.PrepareContext(ctx, prefix+c.clause); err != nil {
						break
					}
					if way == "prepared QueryContext" {
						err = queryStmt(ctx, st, c.args...)
					} else {
						_, err = st.ExecContext(ctx, c.args...)
					}
					st.Close()
				}
				if err != nil {
					t.Errorf("%s %s (%s): %v", d.dialect, c.name, way, err)
					continue
				}
				mu.Lock()
				req := last
				mu.Unlock()
				got := map[string]string{}
				for k, v := range req.GetParams().GetFields() {
					got[k] = v.GetStringValue()
				}
				if req.GetSql() != prefix+c.sent || !maps.Equal(got, c.want) {
					t.Errorf("%s %s (%s): sent %q %v, want %q %v", d.dialect, c.name, way, req.GetSql(), got, prefix+c.sent, c.want)
				}
			}
		}
	}
}

// TestFakeParamBindingErrorsDialects: in each dialect a missing value is
// InvalidArgument with go-sql-spanner's text naming the parameter as the
// statement writes it, mixed parameter styles are InvalidArgument with
// go-sql-spanner's text, and a prepared statement given more arguments than
// it has parameters fails in database/sql; nothing is sent for any of them.
func TestFakeParamBindingErrorsDialects(t *testing.T) {
	named := sql.Named
	for _, d := range []struct {
		dialect string
		cases   []struct {
			query string
			args  []any
			want  string
		}
	}{
		{"GOOGLE_STANDARD_SQL", []struct {
			query string
			args  []any
			want  string
		}{
			{"SELECT * FROM T WHERE a = @id AND b = @value", []any{named("id", 1), named("my_value", 2)}, "missing value for query parameter @value"},
			{"SELECT * FROM T WHERE a = ? AND b = ?", []any{1}, "missing value for query parameter @p2"},
			{"SELECT * FROM T WHERE a = @id AND b = ?", []any{named("id", 1), 2}, "statement must only use one parameter style (named or positional): SELECT * FROM T WHERE a = @id AND b = ?"},
		}},
		{"POSTGRESQL", []struct {
			query string
			args  []any
			want  string
		}{
			{"SELECT * FROM T WHERE a = @id AND b = @value", []any{named("value", 2)}, "missing value for query parameter @id"},
			{"SELECT * FROM T WHERE a = $1 AND b = $2", []any{1}, "missing value for query parameter @p2"},
			{"SELECT * FROM T WHERE a = $1 AND b = $2", []any{named("p2", 1)}, "missing value for query parameter @p1"},
			{"SELECT * FROM T WHERE a = ? AND b = ?", []any{1}, "missing value for query parameter @p2"},
			{"SELECT * FROM T WHERE a = $1 AND b = ?", []any{1, 2}, "statement must only use one parameter style (named or positional): SELECT * FROM T WHERE a = $1 AND b = ?"},
			{"SELECT * FROM T WHERE a = @id AND b = $1", []any{named("id", 1), 2}, "statement must only use one parameter style (named or positional): SELECT * FROM T WHERE a = @id AND b = $1"},
		}},
	} {
		s := fakespanner.Start(t)
		answerEverything(s)
		db := openFake(t, s, "database_dialect="+d.dialect)
		ctx := context.Background()
		for _, c := range d.cases {
			err := queryOne(ctx, db, c.query, c.args...)
			want := `spanner: code = "InvalidArgument", desc = "` + c.want + `"`
			if status.Code(err) != codes.InvalidArgument || errTextNoSQLState(err) != want {
				t.Errorf("%s %s %v: error %v, want %s", d.dialect, c.query, c.args, err, want)
			}
		}
		queries := []string{"SELECT * FROM T WHERE a = @a AND b = @b AND c = @a", "SELECT * FROM T WHERE a = ? AND b = ?"}
		if d.dialect == "POSTGRESQL" {
			queries = append(queries, "SELECT * FROM T WHERE a = $2 AND b = $1 AND c = $2")
		}
		for _, q := range queries {
			st, err := db.PrepareContext(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			if err := queryStmt(ctx, st, 1, 2, 3); err == nil || err.Error() != "sql: expected 2 arguments, got 3" {
				t.Errorf("%s %s with 3 arguments: %v, want database/sql's count error", d.dialect, q, err)
			}
			st.Close()
		}
		if n := len(s.RequestsFor("ExecuteStreamingSql")) + len(s.RequestsFor("ExecuteSql")); n != 0 {
			t.Errorf("%s: %d requests sent", d.dialect, n)
		}
	}
}

// errTextNoSQLState is err's text without a leading "[SQLSTATE xxxxx] ",
// which go-sql-spanner puts before errors on PostgreSQL databases (its own
// tests accept the text with or without it).
func errTextNoSQLState(err error) string {
	s := fmt.Sprint(err)
	if strings.HasPrefix(s, "[SQLSTATE ") && len(s) >= 18 && s[15:17] == "] " {
		return s[17:]
	}
	return s
}
