package gormcore

import (
	"errors"
	"slices"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// TestDropOrder: a table comes after those it must follow, the given
// order kept where free; a cycle (foreign keys referencing each other)
// reports false, so the keys go first.
func TestDropOrder(t *testing.T) {
	got, ok := dropOrder([]string{"parent", "other", "child"}, map[string][]string{"parent": {"child"}})
	if !ok || !slices.Equal(got, []string{"other", "child", "parent"}) {
		t.Errorf("order = %q, %v", got, ok)
	}
	if got, ok := dropOrder([]string{"a", "b"}, map[string][]string{"a": {"b"}, "b": {"a"}}); ok {
		t.Errorf("cycle ordered: %q", got)
	}
}

// TestDropTableError: the message names the blocker, the code is
// FailedPrecondition, errors.As finds it.
func TestDropTableError(t *testing.T) {
	var err error = &DropTableError{Dialector: "spannergorm", Table: "a", ForeignKey: "fk_b_a", ForeignKeyTable: "b"}
	var de *DropTableError
	if !errors.As(err, &de) || status.Code(err) != codes.FailedPrecondition {
		t.Fatalf("%v: code %v", err, status.Code(err))
	}
	want := `spannergorm: DropTable: table "a" is referenced by foreign key "fk_b_a" of table "b", which is not being dropped: drop both in one DropTable call, or drop the constraint first`
	if err.Error() != want {
		t.Errorf("message\n %s\nwant\n %s", err, want)
	}
}
