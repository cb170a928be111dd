package e2e

import (
	"context"
	"database/sql"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/spannerfast/spannerfast/internal/emulatortest"
)

// How arguments bind to parameters, on the emulator, in both dialects:
// each case writes the statement's three parameters (the row's id and the
// values of columns a and b) its own way, and runs it four ways: a query
// that returns the values bound to a and b (QueryContext), an UPDATE that
// stores them (ExecContext, read back), and both as prepared statements.
// The rules are go-sql-spanner's (internal/params.Bind).

// emuBindWays are the four ways each case runs.
var emuBindWays = []string{"QueryContext", "ExecContext", "prepared QueryContext", "prepared ExecContext"}

// emuBindStatements are the query and the UPDATE of dialect d, with {a},
// {b} and {id} where a case's parameters go (in that order in both).
func emuBindStatements(d emulatortest.Dialect) (query, update string) {
	if d == emulatortest.PostgreSQL {
		return "SELECT {a}::text, {b}::text FROM p WHERE id = {id}", "UPDATE p SET a = {a}, b = {b} WHERE id = {id}"
	}
	return "SELECT CAST({a} AS STRING), CAST({b} AS STRING) FROM P WHERE id = {id}", "UPDATE P SET a = {a}, b = {b} WHERE id = {id}"
}

// emuBindDB opens a fresh database of dialect d with table P holding the
// row id 1.
func emuBindDB(t *testing.T, ctx context.Context, d emulatortest.Dialect) *sql.DB {
	t.Helper()
	var db *sql.DB
	if d == emulatortest.PostgreSQL {
		db, _ = emuPGDB(t, []string{"CREATE TABLE p (id bigint primary key, a varchar, b varchar)"})
	} else {
		db, _ = emuDB(t, []string{"CREATE TABLE P (id INT64, a STRING(MAX), b STRING(MAX)) PRIMARY KEY (id)"})
	}
	emuExec(t, ctx, db, "INSERT INTO P (id, a, b) VALUES (1, '', '')")
	return db
}

// emuBindRun runs the case's statement one way and returns the values
// bound to a and b (for an UPDATE, read back from the row, which is reset
// first if reset).
func emuBindRun(ctx context.Context, db *sql.DB, d emulatortest.Dialect, way string, refs [3]string, args []any, reset bool) ([2]string, error) {
	var got [2]string
	query, update := emuBindStatements(d)
	r := strings.NewReplacer("{a}", refs[0], "{b}", refs[1], "{id}", refs[2])
	text := r.Replace(query)
	exec := strings.HasSuffix(way, "ExecContext")
	if exec {
		text = r.Replace(update)
	}
	if exec && reset {
		if _, err := db.ExecContext(ctx, "UPDATE P SET a = '', b = '' WHERE id = 1"); err != nil {
			return got, err
		}
	}
	var st *sql.Stmt
	if strings.HasPrefix(way, "prepared") {
		var err error
		if st, err = db.PrepareContext(ctx, text); err != nil {
			return got, err
		}
		defer st.Close()
	}
	var err error
	switch {
	case exec && st != nil:
		_, err = st.ExecContext(ctx, args...)
	case exec:
		_, err = db.ExecContext(ctx, text, args...)
	case st != nil:
		err = st.QueryRowContext(ctx, args...).Scan(&got[0], &got[1])
	default:
		err = db.QueryRowContext(ctx, text, args...).Scan(&got[0], &got[1])
	}
	if err == nil && exec && reset {
		err = db.QueryRowContext(ctx, "SELECT a, b FROM P WHERE id = 1").Scan(&got[0], &got[1])
	}
	return got, err
}

// emuBindCase is one way of writing the parameters of a, b and the id,
// its arguments and the values a and b get.
type emuBindCase struct {
	name   string
	refs   [3]string // a, b, id
	args   []any
	want   [2]string
	direct bool // more arguments than parameters: not for prepared statements (database/sql counts them)
}

// TestEmulatorParamsBinding: named, positional, reused, out-of-order and
// extra arguments bind as go-sql-spanner binds them, on a GoogleSQL and on
// a PostgreSQL database, through QueryContext, ExecContext and prepared
// statements. On PostgreSQL, the n-th unnamed argument binds $n whatever
// the order the $n appear in (`$2 ... $1` gives the first argument to $1,
// where go-sql-spanner gives it to $2), and sql.Named("p1", v) binds $1.
func TestEmulatorParamsBinding(t *testing.T) {
	t.Parallel()
	named := sql.Named
	one := int64(1)
	cases := map[emulatortest.Dialect][]emuBindCase{
		emulatortest.GoogleSQL: {
			{name: "named, any order and case", refs: [3]string{"@a", "@b", "@id"}, args: []any{named("b", "y"), named("ID", one), named("a", "x")}, want: [2]string{"x", "y"}},
			{name: "positional ?", refs: [3]string{"?", "?", "?"}, args: []any{"x", "y", one}, want: [2]string{"x", "y"}},
			{name: "@name positional, in order of appearance", refs: [3]string{"@b", "@a", "@id"}, args: []any{"x", "y", one}, want: [2]string{"x", "y"}},
			{name: "@name reused", refs: [3]string{"@v", "@v", "@id"}, args: []any{named("v", "x"), named("id", one)}, want: [2]string{"x", "x"}},
			{name: "extra named argument", refs: [3]string{"@a", "@b", "@id"}, args: []any{named("a", "x"), named("b", "y"), named("id", one), named("key", "k")}, want: [2]string{"x", "y"}, direct: true},
			{name: "extra positional argument", refs: [3]string{"?", "?", "?"}, args: []any{"x", "y", one, "extra"}, want: [2]string{"x", "y"}, direct: true},
		},
		emulatortest.PostgreSQL: {
			{name: "$n", refs: [3]string{"$1", "$2", "$3"}, args: []any{"x", "y", one}, want: [2]string{"x", "y"}},
			{name: "$n reused", refs: [3]string{"$1", "$1", "$2"}, args: []any{"x", one}, want: [2]string{"x", "x"}},
			{name: "$2 before $1, positional: by number", refs: [3]string{"$2", "$1", "$3"}, args: []any{"first", "second", one}, want: [2]string{"second", "first"}},
			{name: "$2 before $1, named by number", refs: [3]string{"$2", "$1", "$3"}, args: []any{named("p1", "one"), named("p2", "two"), named("p3", one)}, want: [2]string{"two", "one"}},
			{name: "positional ?", refs: [3]string{"?", "?", "?"}, args: []any{"x", "y", one}, want: [2]string{"x", "y"}},
			{name: "@name named, any order and case", refs: [3]string{"@a", "@b", "@id"}, args: []any{named("b", "y"), named("ID", one), named("a", "x")}, want: [2]string{"x", "y"}},
			{name: "@name positional", refs: [3]string{"@a", "@b", "@id"}, args: []any{"x", "y", one}, want: [2]string{"x", "y"}},
			{name: "@name reused", refs: [3]string{"@v", "@v", "@id"}, args: []any{named("v", "x"), named("id", one)}, want: [2]string{"x", "x"}},
			{name: "@name by its $n name", refs: [3]string{"@a", "@b", "@id"}, args: []any{named("p2", "y"), named("p1", "x"), named("p3", one)}, want: [2]string{"x", "y"}},
			{name: "extra named argument", refs: [3]string{"$1", "$2", "$3"}, args: []any{"x", "y", one, named("key", "k")}, want: [2]string{"x", "y"}, direct: true},
			{name: "extra positional argument", refs: [3]string{"@a", "@b", "@id"}, args: []any{"x", "y", one, "extra"}, want: [2]string{"x", "y"}, direct: true},
		},
	}
	emuEachDialect(t, func(t *testing.T, ctx context.Context, d emulatortest.Dialect) {
		db := emuBindDB(t, ctx, d)
		for _, c := range cases[d] {
			for _, way := range emuBindWays {
				got, err := emuBindRun(ctx, db, d, way, c.refs, c.args, true)
				if c.direct && strings.HasPrefix(way, "prepared") {
					if err == nil || !strings.Contains(err.Error(), "sql: expected ") {
						t.Errorf("%s (%s): %v, want database/sql's argument count error", c.name, way, err)
					}
					continue
				}
				if err != nil || got != c.want {
					t.Errorf("%s (%s): a, b = %q %v, want %q", c.name, way, got, err, c.want)
				}
			}
		}
	})
}

// TestEmulatorParamsBindingErrors: a parameter without a value and a
// statement mixing parameter styles fail before anything is sent, with
// InvalidArgument and go-sql-spanner's text (naming the parameter as the
// statement writes it), through each way, and the row is left as it was.
// A prepared statement given fewer arguments than its parameters fails in
// database/sql's count first.
func TestEmulatorParamsBindingErrors(t *testing.T) {
	t.Parallel()
	named := sql.Named
	one := int64(1)
	type errCase struct {
		name    string
		refs    [3]string
		args    []any
		want    string // the start of the description
		counted bool   // fewer arguments than parameters
	}
	missing := "missing value for query parameter "
	mixed := "statement must only use one parameter style (named or positional): "
	cases := map[emulatortest.Dialect][]errCase{
		emulatortest.GoogleSQL: {
			{"missing named", [3]string{"@a", "@b", "@id"}, []any{named("a", "x"), named("my_b", "y"), named("id", one)}, missing + "@b\"", false},
			{"missing positional", [3]string{"?", "?", "?"}, []any{"x", "y"}, missing + "@p3\"", true},
			{"mixed ? and @name", [3]string{"@a", "?", "@id"}, []any{named("a", "x"), "y", named("id", one)}, mixed, false},
		},
		emulatortest.PostgreSQL: {
			{"missing @name", [3]string{"@a", "@b", "@id"}, []any{named("a", "x"), named("my_b", "y"), named("id", one)}, missing + "@b\"", false},
			{"missing $n", [3]string{"$1", "$2", "$3"}, []any{"x", "y"}, missing + "@p3\"", true},
			{"missing $n, named", [3]string{"$1", "$2", "$3"}, []any{named("p1", "x"), named("p3", one), named("p4", "z")}, missing + "@p2\"", false},
			{"missing ?", [3]string{"?", "?", "?"}, []any{"x"}, missing + "@p2\"", true},
			{"mixed $n and ?", [3]string{"$1", "?", "$2"}, []any{"x", "y", one}, mixed, false},
			{"mixed @name and $n", [3]string{"@a", "$1", "@id"}, []any{named("a", "x"), "y", named("id", one)}, mixed, false},
		},
	}
	emuEachDialect(t, func(t *testing.T, ctx context.Context, d emulatortest.Dialect) {
		db := emuBindDB(t, ctx, d)
		for _, c := range cases[d] {
			for _, way := range emuBindWays {
				emuExec(t, ctx, db, "UPDATE P SET a = 'kept', b = 'kept' WHERE id = 1")
				_, err := emuBindRun(ctx, db, d, way, c.refs, c.args, false)
				if c.counted && strings.HasPrefix(way, "prepared") {
					if err == nil || !strings.HasPrefix(err.Error(), "sql: expected 3 arguments") {
						t.Errorf("%s (%s): %v, want database/sql's argument count error", c.name, way, err)
					}
					continue
				}
				if status.Code(err) != codes.InvalidArgument || !strings.HasPrefix(errTextNoSQLState(err), `spanner: code = "InvalidArgument", desc = "`+c.want) {
					t.Errorf("%s (%s): %v, want InvalidArgument %q", c.name, way, err, c.want)
				}
				var a, b string
				if err := db.QueryRowContext(ctx, "SELECT a, b FROM P WHERE id = 1").Scan(&a, &b); err != nil || a != "kept" || b != "kept" {
					t.Errorf("%s (%s): row after the failure: %q %q %v, want kept kept", c.name, way, a, b, err)
				}
			}
		}
	})
}
