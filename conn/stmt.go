package conn

import (
	"context"
	"database/sql/driver"

	"github.com/spannerfast/spannerfast/internal/stmtopts"
)

// stmt is a prepared statement: the SQL text kept for later execution.
type stmt struct {
	conn    *Conn
	query   string
	pending stmtopts.Pending // database/sql checks a prepared statement's arguments here

	numInput int // NumInput's answer, once counted (0: not yet; else count+1)
}

var (
	_ driver.StmtQueryContext  = (*stmt)(nil)
	_ driver.StmtExecContext   = (*stmt)(nil)
	_ driver.NamedValueChecker = (*stmt)(nil)
)

func (s *stmt) Close() error { return nil }

// NumInput is the number of distinct parameters in the statement (`?`
// marks, or @names; @a and @A are two, as in go-sql-spanner), so database/sql checks the number of
// arguments as go-sql-spanner's statements make it do. A statement whose
// parameters cannot be parsed answers -1 and fails when it runs; so does
// a PostgreSQL statement whose $n skip a number (params.Names.NumInput).
func (s *stmt) NumInput() int {
	if s.numInput == 0 {
		// Through the connector's cache: the parse is the one the
		// statement runs with (same dialect), and it is kept for then.
		st, err := s.conn.parse(s.query)
		s.numInput = st.names.NumInput() + 1
		if err != nil || st.multi {
			// Several statements share the arguments (multistatement.go):
			// no one count applies, so database/sql does not check it.
			s.numInput = 0
		}
	}
	return s.numInput - 1
}

func (s *stmt) CheckNamedValue(nv *driver.NamedValue) error {
	return s.pending.Check(nv, s.conn.convert)
}

func (s *stmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	opts, args := s.pending.Take(args)
	scope, err := s.conn.withStatementOptions(opts)
	defer scope.end()
	if err != nil {
		return nil, s.conn.statementFailed(err)
	}
	r, err := s.conn.query(ctx, s.query, args, opts)
	return r, s.conn.statementFailed(err)
}

func (s *stmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	opts, args := s.pending.Take(args)
	scope, err := s.conn.withStatementOptions(opts)
	defer scope.end()
	if err != nil {
		return nil, s.conn.statementFailed(err)
	}
	r, err := s.conn.exec(ctx, s.query, args)
	return r, s.conn.statementFailed(err)
}

func (s *stmt) Exec(args []driver.Value) (driver.Result, error) {
	return s.ExecContext(context.Background(), named(args))
}

func (s *stmt) Query(args []driver.Value) (driver.Rows, error) {
	return s.QueryContext(context.Background(), named(args))
}

func named(args []driver.Value) []driver.NamedValue {
	out := make([]driver.NamedValue, len(args))
	for i, a := range args {
		out[i] = driver.NamedValue{Ordinal: i + 1, Value: a}
	}
	return out
}
