package e2e

import (
	"context"
	"testing"

	"cloud.google.com/go/spanner/apiv1/spannerpb"

	"github.com/spannerfast/spannerfast/driver"
	"github.com/spannerfast/spannerfast/internal/fakespanner"
)

// TestFakeSendTypedStrings: send_typed_strings (go-sql-spanner's property)
// decides whether string arguments (string, *string, []string, []*string)
// are sent untyped, the default, for Spanner to infer their type, or as
// STRING and ARRAY<STRING>, whether it is set in the DSN, with SET, or for
// one statement through ExecOptions.PropertyValues; queries and DML alike.
// Other arguments keep their types either way.
func TestFakeSendTypedStrings(t *testing.T) {
	s := fakespanner.Start(t)
	const query = "SELECT ?, ?, ?, ?, ?"
	const dml = "UPDATE T SET a = @p1 WHERE b = @p2 AND c IN UNNEST(@p3) AND d IN UNNEST(@p4) AND e = @p5"
	answerEverything(s)
	s.AddResult(dml, fakespanner.DML(1))
	ctx := context.Background()
	str := "b"
	args := func(extra ...any) []any {
		return append([]any{"a", &str, []string{"c"}, []*string{nil, &str}, int64(7)}, extra...)
	}
	stringT := &spannerpb.Type{Code: spannerpb.TypeCode_STRING}
	arrayT := &spannerpb.Type{Code: spannerpb.TypeCode_ARRAY, ArrayElementType: stringT}
	int64T := &spannerpb.Type{Code: spannerpb.TypeCode_INT64}
	check := func(t *testing.T, req *spannerpb.ExecuteSqlRequest, typed bool) {
		t.Helper()
		want := map[string]*spannerpb.Type{"p5": int64T}
		if typed {
			want["p1"], want["p2"], want["p3"], want["p4"] = stringT, stringT, arrayT, arrayT
		}
		got := req.GetParamTypes()
		if len(got) != len(want) {
			t.Fatalf("param_types %v, want %v", got, want)
		}
		for n, w := range want {
			if !protoEq(got[n], w) {
				t.Fatalf("param_types[%s] = %s, want %s", n, protoText(got[n]), protoText(w))
			}
		}
		if v := req.GetParams().GetFields()["p1"].GetStringValue(); v != "a" {
			t.Fatalf("p1 = %q, want a", v)
		}
	}
	lastDML := func(t *testing.T) *spannerpb.ExecuteSqlRequest {
		t.Helper()
		reqs := s.RequestsFor("ExecuteSql")
		if len(reqs) == 0 {
			t.Fatal("no ExecuteSql request")
		}
		return reqs[len(reqs)-1].ExecuteSQL()
	}

	for _, tc := range []struct {
		name  string
		props []string
		typed bool
	}{
		{"default", nil, false},
		{"dsn false", []string{"send_typed_strings=false"}, false},
		{"dsn true", []string{"sendTypedStrings=true"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := openFake(t, s, tc.props...)
			if err := queryOne(ctx, db, query, args()...); err != nil {
				t.Fatal(err)
			}
			check(t, lastRequest(t, s).ExecuteSQL(), tc.typed)
			if _, err := db.ExecContext(ctx, dml, args()...); err != nil {
				t.Fatal(err)
			}
			check(t, lastDML(t), tc.typed)
		})
	}

	t.Run("SET and one statement", func(t *testing.T) {
		db := openFake(t, s)
		c, err := db.Conn(ctx) // SET lasts while the connection is held
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		one := driver.ExecOptions{PropertyValues: []driver.PropertyValue{driver.CreatePropertyValue("send_typed_strings", "true")}}
		if err := queryOne(ctx, c, query, args(one)...); err != nil {
			t.Fatal(err)
		}
		check(t, lastRequest(t, s).ExecuteSQL(), true)
		if err := queryOne(ctx, c, query, args()...); err != nil { // that statement only
			t.Fatal(err)
		}
		check(t, lastRequest(t, s).ExecuteSQL(), false)
		if _, err := c.ExecContext(ctx, "SET send_typed_strings = true"); err != nil {
			t.Fatal(err)
		}
		if err := queryOne(ctx, c, query, args()...); err != nil {
			t.Fatal(err)
		}
		check(t, lastRequest(t, s).ExecuteSQL(), true)
		var shown bool
		if err := c.QueryRowContext(ctx, "SHOW VARIABLE send_typed_strings").Scan(&shown); err != nil || !shown {
			t.Fatalf("SHOW VARIABLE send_typed_strings = %v, %v; want true", shown, err)
		}
	})

	t.Run("batch", func(t *testing.T) {
		db := openFake(t, s, "send_typed_strings=true")
		c, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if _, err := c.ExecContext(ctx, "START BATCH DML"); err != nil {
			t.Fatal(err)
		}
		if _, err := c.ExecContext(ctx, dml, args()...); err != nil {
			t.Fatal(err)
		}
		if _, err := c.ExecContext(ctx, "RUN BATCH"); err != nil {
			t.Fatal(err)
		}
		reqs := s.RequestsFor("ExecuteBatchDml")
		if len(reqs) == 0 {
			t.Fatal("no ExecuteBatchDml request")
		}
		st := reqs[len(reqs)-1].Message.(*spannerpb.ExecuteBatchDmlRequest).GetStatements()[0]
		check(t, &spannerpb.ExecuteSqlRequest{Params: st.GetParams(), ParamTypes: st.GetParamTypes()}, true)
	})
}
