package benchserver

import (
	"testing"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/protobuf/types/known/structpb"
)

// TestBindParams: each @name with a parameter becomes its value; names
// without one, and a lone @, stay; a longer name is not cut at a shorter
// one (@p1 inside @p10).
func TestBindParams(t *testing.T) {
	params := map[string]*structpb.Value{
		"p1":  structpb.NewStringValue("10"),
		"p10": structpb.NewStringValue("100"),
		"f":   structpb.NewNumberValue(1.5),
		"b":   structpb.NewBoolValue(true),
		"n":   structpb.NewNullValue(),
	}
	for in, want := range map[string]string{
		"SELECT * FROM `t` LIMIT @p1":           "SELECT * FROM `t` LIMIT 10",
		"x IN (@p1,@p10) AND y = @other":        "x IN (10,100) AND y = @other",
		"@f @b @n @ @p1@p10":                    "1.5 TRUE NULL @ 10100",
		"SELECT * FROM `t` WHERE a = 'x@y.com'": "SELECT * FROM `t` WHERE a = 'x@y.com'",
	} {
		if got := bindParams(in, params); got != want {
			t.Errorf("bindParams(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestParameterizedQuery: GORM's LIMIT ? reaches the result stored under
// the literal LIMIT, streamed and unary; an unknown value is refused.
func TestParameterizedQuery(t *testing.T) {
	_, c, ws := start(t, "gorm10k", 0.01)
	w := ws[0]
	sess, err := c.CreateSession(t.Context(), &spannerpb.CreateSessionRequest{Database: "projects/p/instances/i/databases/d"})
	if err != nil {
		t.Fatal(err)
	}
	req := func(limit string) *spannerpb.ExecuteSqlRequest {
		return &spannerpb.ExecuteSqlRequest{Session: sess.Name, Sql: "SELECT * FROM `bench_gorm` LIMIT @p1",
			Params: &structpb.Struct{Fields: map[string]*structpb.Value{"p1": structpb.NewStringValue(limit)}}}
	}
	limit := w.SQL[len("SELECT * FROM `bench_gorm` LIMIT "):]
	msgs, err := readAll(t, c, req(limit))
	if err != nil {
		t.Fatal(err)
	}
	var vals int
	for _, m := range msgs {
		vals += len(m.GetValues())
	}
	if vals != w.Rows*len(w.Columns) {
		t.Fatalf("streamed %d values, want %d", vals, w.Rows*len(w.Columns))
	}
	rs, err := c.ExecuteSql(t.Context(), req(limit))
	if err != nil || len(rs.GetRows()) != w.Rows {
		t.Fatalf("ExecuteSql: %d rows, %v; want %d", len(rs.GetRows()), err, w.Rows)
	}
	if _, err := readAll(t, c, req("7")); err == nil {
		t.Fatal("a LIMIT without a stored result was served")
	}
}
