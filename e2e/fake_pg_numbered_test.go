package e2e

import (
	"context"
	"database/sql"
	"testing"

	"google.golang.org/protobuf/types/known/structpb"

	"github.com/spannerfast/spannerfast/internal/fakespanner"
)

// TestFakePGNumberedParams: on a PostgreSQL database the request carries
// $n as the parameter pn holding the n-th unnamed argument, whatever the
// order the $n appear in; a $n used twice is one parameter, an argument
// whose number the statement skips is not sent, and a named pn binds $n.
func TestFakePGNumberedParams(t *testing.T) {
	s := fakespanner.Start(t)
	answerEverything(s)
	db := openFake(t, s, "database_dialect=POSTGRESQL")
	ctx := context.Background()
	for _, c := range []struct {
		query string
		args  []any
		want  map[string]*structpb.Value // exactly the parameters sent
	}{
		{"INSERT INTO people (id, last_name, first_name) VALUES ($1, $3, $2)", []any{1, "John", "Smith"},
			map[string]*structpb.Value{"p1": str("1"), "p2": str("John"), "p3": str("Smith")}},
		{"SELECT id FROM people WHERE first_name = $2 AND last_name = $1", []any{"Smith", "John"},
			map[string]*structpb.Value{"p1": str("Smith"), "p2": str("John")}},
		{"SELECT $1, $1, $2", []any{"a", "b"}, map[string]*structpb.Value{"p1": str("a"), "p2": str("b")}},
		{"SELECT $3, $1", []any{"a", "b", "c"}, map[string]*structpb.Value{"p1": str("a"), "p3": str("c")}},
		{"SELECT $2, $1", []any{"a", sql.Named("p2", "b")}, map[string]*structpb.Value{"p1": str("a"), "p2": str("b")}},
	} {
		if err := queryOne(ctx, db, c.query, c.args...); err != nil {
			t.Errorf("%s: %v", c.query, err)
			continue
		}
		sent, got, _ := sentParams(t, s)
		if sent != c.query || len(got) != len(c.want) {
			t.Errorf("%s: sent %q with %v, want the text unchanged with %v", c.query, sent, got, c.want)
			continue
		}
		for n, v := range c.want {
			if !protoEq(got[n], v) {
				t.Errorf("%s: parameter %s = %s, want %s", c.query, n, protoText(got[n]), protoText(v))
			}
		}
	}
}
