package connstate_test

import (
	"errors"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/spannerfast/spannerfast/dsn"
	"github.com/spannerfast/spannerfast/internal/connstate"
)

// TestEveryDeclaredProperty: the Store honours each property's declared
// scope: connection properties take SET, SET LOCAL and RESET; startup and
// read-only ones refuse them with FailedPrecondition; SHOW reads all (the
// PostgreSQL settings on a PostgreSQL-dialect database).
func TestEveryDeclaredProperty(t *testing.T) {
	for _, d := range dsn.Declarations() {
		cfg := dsn.NewConfig()
		if d.PostgreSQL {
			cfg.DatabaseDialect = dsn.DialectPostgreSQL
		}
		s := connstate.New(cfg)
		if _, err := s.Show(d.Name); err != nil {
			t.Errorf("Show(%s): %v", d.Name, err)
		}
		value := d.Default
		if d.Scope == dsn.ScopeReadOnly {
			value = "x"
		}
		s.BeginTransaction()
		errSet := s.Set(d.Name, value)
		errLocal := s.SetLocal(d.Name, value)
		local := s.IsLocal(d.Name)
		s.EndTransaction(true)
		errReset := s.Reset(d.Name)
		if d.Scope == dsn.ScopeConnection {
			if errSet != nil || errLocal != nil || !local || errReset != nil {
				t.Errorf("%s (connection): SET %v, SET LOCAL %v (local %v), RESET %v", d.Name, errSet, errLocal, local, errReset)
			}
			continue
		}
		for _, err := range []error{errSet, errLocal, errReset} {
			if status.Code(err) != codes.FailedPrecondition || !errors.Is(err, dsn.ErrReadOnly) {
				t.Errorf("%s (%v): %v, want ErrReadOnly with FailedPrecondition", d.Name, d.Scope, err)
			}
		}
		if local {
			t.Errorf("%s (%v): refused SET LOCAL left a local value", d.Name, d.Scope)
		}
	}
}
