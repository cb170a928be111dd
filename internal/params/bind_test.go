package params

import (
	"database/sql"
	"database/sql/driver"
	"errors"
	"maps"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/spannerfast/spannerfast/internal/sqlparse"
)

// bindCase is a statement, its arguments and what Bind makes of them:
// the text sent and every parameter sent (as its string value), or the
// parameter reported missing.
type bindCase struct {
	name    string
	sql     string
	args    []any // a sql.NamedArg is a named argument
	sent    string
	want    map[string]string
	missing string // the name in the MissingParamError, without the @
}

func bindArgs(args []any) []driver.NamedValue {
	out := make([]driver.NamedValue, len(args))
	for i, a := range args {
		out[i] = driver.NamedValue{Ordinal: i + 1, Value: a}
		if n, ok := a.(sql.NamedArg); ok {
			out[i].Name, out[i].Value = n.Name, n.Value
		}
	}
	return out
}

func checkBind(t *testing.T, d sqlparse.Dialect, cases []bindCase) {
	t.Helper()
	for _, c := range cases {
		st, err := sqlparse.ParseDialect(d, c.sql)
		if err != nil {
			t.Fatalf("%v %s: %v", d, c.name, err)
		}
		sent, params, _, err := Bind(st.SQL, NamesOf(&st), bindArgs(c.args), false)
		if c.missing != "" {
			var me *MissingParamError
			if !errors.As(err, &me) || me.Name != c.missing || status.Code(err) != codes.InvalidArgument {
				t.Errorf("%v %s: error %v, want InvalidArgument missing @%s", d, c.name, err, c.missing)
			}
			continue
		}
		if err != nil {
			t.Errorf("%v %s: %v", d, c.name, err)
			continue
		}
		got := map[string]string{}
		for k, v := range params.GetFields() {
			got[k] = v.GetStringValue()
		}
		if want := c.sent; want == "" && sent != c.sql || want != "" && sent != want {
			t.Errorf("%v %s: sent %q, want %q", d, c.name, sent, c.sent)
		}
		if !maps.Equal(got, c.want) {
			t.Errorf("%v %s: parameters %v, want %v", d, c.name, got, c.want)
		}
	}
}

// TestBindGoogleSQL: each binding rule on a GoogleSQL statement, as
// go-sql-spanner binds (its TestPositionalParametersWithGoogleSQL,
// TestNamedParametersWithGoogleSQL).
func TestBindGoogleSQL(t *testing.T) {
	named := sql.Named
	checkBind(t, sqlparse.GoogleSQL, []bindCase{
		{name: "positional ?", sql: "SELECT ?, ?", args: []any{"a", "b"}, sent: "SELECT @p1, @p2", want: map[string]string{"p1": "a", "p2": "b"}},
		{name: "positional to @name in order of first appearance", sql: "SELECT @b, @a, @b", args: []any{"1", "2"}, want: map[string]string{"b": "1", "a": "2"}},
		{name: "named", sql: "SELECT @id, @value", args: []any{named("value", "v"), named("id", "i")}, want: map[string]string{"id": "i", "value": "v"}},
		{name: "named, other case", sql: "SELECT @id, @VALUE", args: []any{named("ID", "i"), named("value", "v")}, want: map[string]string{"id": "i", "VALUE": "v"}},
		{name: "exact case first", sql: "SELECT @id, @ID", args: []any{named("ID", "2"), named("id", "1")}, want: map[string]string{"id": "1", "ID": "2"}},
		{name: "reused name takes one value", sql: "SELECT @id, @v, @v, @id", args: []any{named("id", "1"), named("v", "2")}, want: map[string]string{"id": "1", "v": "2"}},
		{name: "named not in the statement is sent", sql: "SELECT @a", args: []any{named("a", "1"), named("key", "k")}, want: map[string]string{"a": "1", "key": "k"}},
		{name: "extra positional ignored", sql: "SELECT ?, ?", args: []any{"1", "2", "3"}, sent: "SELECT @p1, @p2", want: map[string]string{"p1": "1", "p2": "2"}},
		{name: "positional and named", sql: "SELECT @a, @b", args: []any{"1", named("B", "2")}, want: map[string]string{"a": "1", "b": "2"}},
		// An unnamed argument binds the parameter at its own position
		// among all the arguments: here the second, @b (the last value
		// wins), so @a has none.
		{name: "unnamed binds at its own position", sql: "SELECT @a, @b", args: []any{named("b", "1"), "2"}, missing: "a"},
		{name: "SpannerNamedArg", sql: "SELECT @__x", args: []any{named("x", SpannerNamedArg{NameInQuery: "__x", Value: "1"})}, want: map[string]string{"__x": "1"}},
		{name: "$1 is not a parameter", sql: "SELECT ?, $1", args: []any{"1"}, sent: "SELECT @p1, $1", want: map[string]string{"p1": "1"}},
		{name: "missing named", sql: "SELECT @id, @value", args: []any{named("id", "1"), named("my_value", "2")}, missing: "value"},
		{name: "missing positional", sql: "SELECT ?, ?", args: []any{"1"}, missing: "p2"},
		{name: "missing, no arguments", sql: "SELECT @a", missing: "a"},
	})
}

// TestBindPostgreSQL: each binding rule on a PostgreSQL statement, as
// go-sql-spanner binds (its TestIndexedParametersWithPG,
// TestNamedParametersWithPG, TestPositionalParametersWithPG) but for one:
// $n is the parameter pn, which the n-th unnamed argument binds whatever
// the order of the $n; @name and ? are rewritten to $1, $2... in order.
func TestBindPostgreSQL(t *testing.T) {
	named := sql.Named
	checkBind(t, sqlparse.PostgreSQL, []bindCase{
		{name: "$n positional", sql: "SELECT $1, $2", args: []any{"a", "b"}, want: map[string]string{"p1": "a", "p2": "b"}},
		{name: "$n reused", sql: "SELECT $1, $2, $2, $1", args: []any{"a", "b"}, want: map[string]string{"p1": "a", "p2": "b"}},
		// The n-th unnamed argument binds $n, whatever the order the $n
		// appear in, as in PostgreSQL (go-sql-spanner binds them in order
		// of first appearance: its TestIndexedParametersWithPG,
		// input_out_of_order, gives "first" to $2).
		{name: "$2 before $1, positional", sql: "SELECT $2, $1", args: []any{"first", "second"}, want: map[string]string{"p1": "first", "p2": "second"}},
		{name: "$1, $3, $2", sql: "INSERT INTO people (id, last_name, first_name) VALUES ($1, $3, $2)", args: []any{1, "John", "Smith"},
			want: map[string]string{"p1": "1", "p2": "John", "p3": "Smith"}},
		{name: "$n reused out of order", sql: "SELECT $2, $1, $2", args: []any{"a", "b"}, want: map[string]string{"p1": "a", "p2": "b"}},
		{name: "$10 after $9", sql: "SELECT $10, $2, $1", args: []any{"1", "2", "3", "4", "5", "6", "7", "8", "9", "10"},
			want: map[string]string{"p1": "1", "p2": "2", "p10": "10"}},
		{name: "$n gap: the skipped argument is not sent", sql: "SELECT $3, $1", args: []any{"a", "b", "c"}, want: map[string]string{"p1": "a", "p3": "c"}},
		{name: "$n gap, named", sql: "SELECT $3, $1", args: []any{named("p3", "c"), named("p1", "a")}, want: map[string]string{"p1": "a", "p3": "c"}},
		{name: "$n gap, too few: the lowest missing", sql: "SELECT $3, $1", args: []any{"a", "b"}, missing: "p3"},
		{name: "$01 is $1", sql: "SELECT $01, $2", args: []any{"a", "b"}, want: map[string]string{"p01": "a", "p2": "b"}},
		{name: "$n positional and named", sql: "SELECT $2, $1", args: []any{"a", named("p2", "b")}, want: map[string]string{"p1": "a", "p2": "b"}},
		{name: "$n named overrides positional", sql: "SELECT $2, $1", args: []any{"a", "b", named("p1", "c")}, want: map[string]string{"p1": "c", "p2": "b"}},
		{name: "$2 before $1, named by number", sql: "SELECT $2, $1", args: []any{named("p1", "one"), named("p2", "two")}, want: map[string]string{"p1": "one", "p2": "two"}},
		{name: "$n named, other case", sql: "SELECT $1", args: []any{named("P1", "one")}, want: map[string]string{"p1": "one"}},
		{name: "$n extra positional ignored", sql: "SELECT $1, $2", args: []any{"1", "2", "3"}, want: map[string]string{"p1": "1", "p2": "2"}},
		{name: "$n missing", sql: "SELECT $1, $2", args: []any{"1"}, missing: "p2"},
		{name: "$n missing, named", sql: "SELECT $1, $2", args: []any{named("p2", "1")}, missing: "p1"},
		{name: "? becomes $n", sql: "SELECT ?, ?", args: []any{"a", "b"}, sent: "SELECT $1, $2", want: map[string]string{"p1": "a", "p2": "b"}},
		{name: "? missing", sql: "SELECT ?, ?", args: []any{"a"}, missing: "p2"},
		{name: "@name named", sql: "SELECT @id, @value, @value, @id", args: []any{named("value", "v"), named("id", "i")},
			sent: "SELECT $1, $2, $2, $1", want: map[string]string{"p1": "i", "p2": "v"}},
		{name: "@name named, other case", sql: "SELECT @ID, @value", args: []any{named("id", "i"), named("VALUE", "v")},
			sent: "SELECT $1, $2", want: map[string]string{"p1": "i", "p2": "v"}},
		{name: "@name positional", sql: "SELECT @id, @value", args: []any{"i", "v"}, sent: "SELECT $1, $2", want: map[string]string{"p1": "i", "p2": "v"}},
		{name: "@name bound by its $n name", sql: "SELECT @id", args: []any{named("p1", "i")}, sent: "SELECT $1", want: map[string]string{"p1": "i"}},
		{name: "@name as written before the $n name", sql: "SELECT @p2, @p1", args: []any{named("p1", "x"), named("p2", "y")},
			sent: "SELECT $1, $2", want: map[string]string{"p2": "x", "p1": "y"}},
		{name: "@name not in the statement is sent as it is", sql: "SELECT @id, @value", args: []any{named("id", "1"), named("value", "2"), named("key", "k")},
			want: map[string]string{"p1": "1", "p2": "2", "key": "k"}, sent: "SELECT $1, $2"},
		{name: "@name missing names it as written", sql: "SELECT @id, @value", args: []any{named("value", "v")}, missing: "id"},
		{name: "@name missing, second", sql: "SELECT @id, @Value", args: []any{named("id", "i")}, missing: "Value"},
		{name: "@id and @ID are two", sql: "SELECT @id, @ID", args: []any{named("id", "i")}, missing: "ID"},
	})
}

// TestBindErrorText: the errors of binding have go-sql-spanner's text (in
// the official client's format, which programs written for it compare),
// name the parameter, and keep InvalidArgument with the description as
// the status message.
func TestBindErrorText(t *testing.T) {
	_, _, _, err := Build("SELECT @id, @value", bindArgs([]any{sql.Named("id", 1)}))
	if got, want := err.Error(), `spanner: code = "InvalidArgument", desc = "missing value for query parameter @value"`; got != want {
		t.Errorf("missing: %q, want %q", got, want)
	}
	if s := status.Convert(err); s.Code() != codes.InvalidArgument || s.Message() != "missing value for query parameter @value" {
		t.Errorf("missing: status %v %q", s.Code(), s.Message())
	}
	for _, d := range []sqlparse.Dialect{sqlparse.GoogleSQL, sqlparse.PostgreSQL} {
		q := "insert into t (id, value) values (@id, ?)"
		_, err := sqlparse.ParseDialect(d, q)
		want := `spanner: code = "InvalidArgument", desc = "statement must only use one parameter style (named or positional): ` + q + `"`
		if !errors.Is(err, sqlparse.ErrMixedParams) || err.Error() != want {
			t.Errorf("%v mixed: %v, want %s", d, err, want)
		}
		if s := status.Convert(err); s.Code() != codes.InvalidArgument || s.Message() != "statement must only use one parameter style (named or positional): "+q {
			t.Errorf("%v mixed: status %v %q", d, s.Code(), s.Message())
		}
	}
}

// TestBindPostgreSQLAllocs: binding a PostgreSQL statement's arguments,
// named or not, allocates what binding the GoogleSQL statement's does:
// what the dialect needs (the names as written) came from the parse.
func TestBindPostgreSQLAllocs(t *testing.T) {
	allocs := func(d sqlparse.Dialect, sql string, args []any) float64 {
		st, err := sqlparse.ParseDialect(d, sql)
		if err != nil {
			t.Fatal(err)
		}
		nv := bindArgs(args)
		for i := range nv {
			if err := Convert(&nv[i]); err != nil {
				t.Fatal(err)
			}
		}
		return testing.AllocsPerRun(200, func() {
			if _, _, _, err := Bind(st.SQL, NamesOf(&st), nv, false); err != nil {
				t.Fatal(err)
			}
		})
	}
	named := []any{sql.Named("b", "y"), sql.Named("ID", int64(1)), sql.Named("a", "x")}
	positional := []any{"x", "y", int64(1)}
	gsql := allocs(sqlparse.GoogleSQL, "SELECT * FROM T WHERE a = @a AND b = @b AND id = @id", named)
	for _, c := range []struct {
		sql  string
		args []any
	}{
		{"SELECT * FROM t WHERE a = @a AND b = @b AND id = @id", named},
		{"SELECT * FROM t WHERE a = @a AND b = @b AND id = @id", positional},
		{"SELECT * FROM t WHERE a = $2 AND b = $1 AND id = $3", positional},
		{"SELECT * FROM t WHERE a = ? AND b = ? AND id = ?", positional},
	} {
		if got := allocs(sqlparse.PostgreSQL, c.sql, c.args); got != gsql {
			t.Errorf("PostgreSQL %s %v: %v allocations, GoogleSQL named %v", c.sql, c.args, got, gsql)
		}
	}
}

// TestNamesNumInput: what a prepared statement's NumInput answers: its
// distinct parameters, or -1 (no count for database/sql to check) for a
// PostgreSQL statement whose $n skip a number, which takes its highest
// number of unnamed arguments or fewer named ones.
func TestNamesNumInput(t *testing.T) {
	for _, c := range []struct {
		d    sqlparse.Dialect
		sql  string
		want int
	}{
		{sqlparse.GoogleSQL, "SELECT @b, @a, @b", 2},
		{sqlparse.GoogleSQL, "SELECT ?, ?", 2},
		{sqlparse.PostgreSQL, "SELECT $2, $1, $2", 2},
		{sqlparse.PostgreSQL, "SELECT $3, $1", -1},
		{sqlparse.PostgreSQL, "SELECT $1, $01", -1},
		{sqlparse.PostgreSQL, "SELECT @b, @a", 2},
		{sqlparse.PostgreSQL, "SELECT 1", 0},
	} {
		st, err := sqlparse.ParseDialect(c.d, c.sql)
		if err != nil {
			t.Fatal(err)
		}
		if got := NamesOf(&st).NumInput(); got != c.want {
			t.Errorf("%v %s: NumInput %d, want %d", c.d, c.sql, got, c.want)
		}
	}
}
