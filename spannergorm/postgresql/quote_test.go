package spannerpg

import (
	"strings"
	"testing"

	"gorm.io/driver/postgres"
)

// TestQuoteToPostgreSQL: the dialector quotes by PostgreSQL's rule (a
// quote doubled, where GORM's own QuoteTo wrote `"."` and left the rest
// unquoted), and WithoutQuotingCheck writes the name as given, as the
// option says.
func TestQuoteToPostgreSQL(t *testing.T) {
	hostile := `". FROM t; DELETE FROM t; --`
	for _, c := range []struct {
		without    bool
		name, want string
	}{
		{false, hostile, `""". FROM t; DELETE FROM t; --"`},
		{false, "s.t", `"s"."t"`},
		{true, "s.t", "s.t"},
	} {
		d := New(postgres.Config{WithoutQuotingCheck: c.without}).(*Dialector)
		var b strings.Builder
		d.QuoteTo(&b, c.name)
		if b.String() != c.want {
			t.Errorf("WithoutQuotingCheck %v: QuoteTo(%q) = %q, want %q", c.without, c.name, b.String(), c.want)
		}
	}
}
