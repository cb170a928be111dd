package e2e

import (
	"context"
	"testing"

	"cloud.google.com/go/spanner"
)

// TestEmbeddedParams binds arguments of the types go-sql-spanner converts
// (small and named integers, pointers) positionally to @names against
// spannertest. Go strings are sent untyped, and spannertest cannot take an
// untyped string parameter (its parameter parser dereferences the missing
// type); the embedded server infers one, and strings here go as
// spanner.NullString anyway, which stays typed.
func TestEmbeddedParams(t *testing.T) {
	ctx := context.Background()
	db := openEmbedded(t)
	var (
		a, b, c int64
		s       string
	)
	err := db.QueryRowContext(ctx, "SELECT @a, @b, @c, @s, @a", int8(-3), userID(42), ptrTo(uint16(7)),
		spanner.NullString{StringVal: "typed", Valid: true}).Scan(&a, &b, &c, &s, new(int64))
	if err != nil {
		t.Fatal(err)
	}
	if a != -3 || b != 42 || c != 7 || s != "typed" {
		t.Fatalf("got %d %d %d %q; want -3 42 7 \"typed\"", a, b, c, s)
	}
}
