package conn

import (
	"database/sql/driver"
	"testing"

	"cloud.google.com/go/spanner"
	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/spannerfast/spannerfast/internal/params"
	"github.com/spannerfast/spannerfast/internal/sqlparse"
)

// TestArgumentsConvertedInTheDialect: a connection to a PostgreSQL
// database reads a GenericColumnValue holding PostgreSQL's text of a BOOL
// (params.ConvertPostgreSQL); one to a GoogleSQL database sends the text.
// The choice is made with the parse cache, through New and SetDatabase,
// and prepared statements share it.
func TestArgumentsConvertedInTheDialect(t *testing.T) {
	arg := spanner.GenericColumnValue{Type: &spannerpb.Type{Code: spannerpb.TypeCode_BOOL}, Value: structpb.NewStringValue("yes")}
	sent := func(check func(*driver.NamedValue) error) *structpb.Value {
		t.Helper()
		nv := driver.NamedValue{Ordinal: 1, Value: arg}
		if err := check(&nv); err != nil {
			t.Fatal(err)
		}
		_, ps, _, err := params.Bind("SELECT @p1", params.Names{Sent: []string{"p1"}}, []driver.NamedValue{nv}, false)
		if err != nil {
			t.Fatal(err)
		}
		return ps.GetFields()["p1"]
	}
	c := &Conn{}
	for _, tc := range []struct {
		cache *sqlparse.Cache
		bool  bool // sent as a bool, else as the text
	}{
		{sqlparse.NewDialectCache(0, sqlparse.PostgreSQL), true},
		{sqlparse.NewCache(0), false},
		{nil, false},
		{sqlparse.NewDialectCache(0, sqlparse.PostgreSQL), true},
	} {
		c.setStatements(tc.cache)
		s := &stmt{conn: c}
		for _, check := range []func(*driver.NamedValue) error{c.CheckNamedValue, s.CheckNamedValue} {
			v := sent(check)
			if _, isBool := v.GetKind().(*structpb.Value_BoolValue); isBool != tc.bool || (isBool && !v.GetBoolValue()) {
				t.Errorf("%v: sent %v, want a bool: %v", tc.cache.Dialect(), v, tc.bool)
			}
		}
	}
}
