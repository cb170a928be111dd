package conn

import (
	"context"
	"database/sql/driver"
	"fmt"
	"io"
	"reflect"

	"google.golang.org/grpc/status"

	"github.com/spannerfast/spannerfast/internal/sqlparse"
)

// Several statements in one string, separated by semicolons, as
// go-sql-spanner runs them:
//
//   - They run in order on the connection as it is (autocommit, an open
//     transaction, a batch); BEGIN, COMMIT, SET ... among them act on the
//     statements after them. Unlike go-sql-spanner, spannerfast does not
//     wrap the statements in an implicit transaction: each statement
//     outside a transaction commits on its own, as it would when run alone.
//   - Consecutive DDL statements go to Spanner as one UpdateDatabaseDdl
//     (outside transactions and batches), as go-sql-spanner sends them.
//   - Every statement receives the whole argument list, go-sql-spanner's
//     rule: named arguments bind by name in whichever statements use them,
//     and `?` numbers from 1 again in each statement.
//   - The first failure stops the rest; its *StatementError says which
//     statement failed and keeps the gRPC code.
//
// The parser marks such text (sqlparse.Statement.Multi) while scanning it
// once for the cache, so a single statement costs nothing more.

// StatementError is the failure of one statement of a string holding
// several. The statements before it ran.
type StatementError struct {
	Index int    // the failing statement, from 0 (the first of a DDL group)
	Last  int    // the last statement of a DDL group sent as one; Index otherwise
	Count int    // statements in the string
	SQL   string // the failing statement (the group's first)
	Err   error
}

func (e *StatementError) Error() string {
	which := fmt.Sprintf("statement %d of %d", e.Index+1, e.Count)
	if e.Last > e.Index {
		which = fmt.Sprintf("DDL statements %d-%d of %d (sent as one batch)", e.Index+1, e.Last+1, e.Count)
	}
	return fmt.Sprintf("spannerfast: %s failed: %v (statement: %q)", which, e.Err, e.SQL)
}

func (e *StatementError) Unwrap() error { return e.Err }

// GRPCStatus keeps the failing statement's code.
func (e *StatementError) GRPCStatus() *status.Status {
	return status.New(status.Code(e.Err), e.Error())
}

// multiPlan is the statements of one string.
type multiPlan struct {
	stmts []string
}

func splitMulti(query string) (multiPlan, error) {
	stmts, err := sqlparse.Split(query)
	return multiPlan{stmts: stmts}, err
}

func (p multiPlan) fail(i, last int, err error) error {
	return &StatementError{Index: i, Last: last, Count: len(p.stmts), SQL: p.stmts[i], Err: err}
}

// ddlRun returns the end of the run of plain DDL statements from i that
// can go as one UpdateDatabaseDdl: outside transactions and batches, and
// not CREATE or DROP DATABASE. It returns i when there is no run of two.
func (c *Conn) ddlRun(p multiPlan, i int) int {
	if c.tx != nil || c.inBatch() {
		return i
	}
	j := i
	for j < len(p.stmts) && c.isPlainDDL(p.stmts[j]) {
		j++
	}
	if j-i < 2 {
		return i
	}
	return j
}

func (c *Conn) isPlainDDL(query string) bool {
	st, err := c.parse(query)
	if err != nil || st.kind != kindDDL {
		return false
	}
	words, _ := sqlparse.Words(st.rest)
	return len(words) == 0 || words[0] != "DATABASE"
}

// runDDLGroup sends stmts[i:j] as one UpdateDatabaseDdl, as execDDL does
// for one.
func (c *Conn) runDDLGroup(ctx context.Context, p multiPlan, i, j int) error {
	c.takeStatementTag()
	c.last = lastResults{}
	if _, err := c.runDDL(ctx, p.stmts[i:j]); err != nil {
		return p.fail(i, j-1, err)
	}
	return nil
}

// queryMulti runs the statements and returns their results as one Rows
// with a result set per statement (Rows.NextResultSet). A failure of the
// first statement is returned here; a later one ends the result sets
// before it: NextResultSet reports it (sql.Rows.Err after NextResultSet
// returned false).
func (c *Conn) queryMulti(ctx context.Context, query string, args []driver.NamedValue, opts QueryOptions) (driver.Rows, error) {
	p, err := splitMulti(query)
	if err != nil {
		return nil, err
	}
	m := &multiRows{}
	for i := 0; i < len(p.stmts); {
		if j := c.ddlRun(p, i); j > i {
			err = c.runDDLGroup(ctx, p, i, j)
			for ; err == nil && i < j; i++ {
				m.results = append(m.results, &valueRows{done: true})
			}
		} else {
			var r driver.Rows
			if r, err = c.query(ctx, p.stmts[i], args, opts); err == nil {
				m.results = append(m.results, r)
			} else {
				err = p.fail(i, i, err)
			}
			i++
		}
		if err != nil {
			if len(m.results) == 0 {
				return nil, err
			}
			m.err = err
			break
		}
	}
	if len(m.results) == 0 { // only semicolons and comments
		m.results = append(m.results, &valueRows{done: true})
	}
	return m, nil
}

// execMulti runs the statements through ExecContext. RowsAffected is the
// sum of the statements' counts and BatchRowsAffected has one count per
// statement (0 for statements that change no rows).
func (c *Conn) execMulti(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	p, err := splitMulti(query)
	if err != nil {
		return nil, err
	}
	res := &Result{batchCounts: make([]int64, 0, len(p.stmts))}
	for i := 0; i < len(p.stmts); {
		if j := c.ddlRun(p, i); j > i {
			if err := c.runDDLGroup(ctx, p, i, j); err != nil {
				return nil, err
			}
			res.batchCounts = append(res.batchCounts, make([]int64, j-i)...)
			i = j
			continue
		}
		r, err := c.exec(ctx, p.stmts[i], args)
		if err != nil {
			return nil, p.fail(i, i, err)
		}
		var n int64
		if dr, ok := r.(*Result); ok {
			n = dr.rowsAffected
		}
		res.rowsAffected += n
		res.batchCounts = append(res.batchCounts, n)
		i++
	}
	return res, nil
}

// multiRows is the result sets of several statements, in order, followed
// by the error that stopped them, if any.
type multiRows struct {
	results []driver.Rows
	cur     int
	err     error // the failure after the last result; reported once
}

var (
	_ driver.RowsNextResultSet              = (*multiRows)(nil)
	_ driver.RowsColumnTypeScanType         = (*multiRows)(nil)
	_ driver.RowsColumnTypeDatabaseTypeName = (*multiRows)(nil)
	_ driver.RowsColumnTypeNullable         = (*multiRows)(nil)
)

func (m *multiRows) current() driver.Rows {
	if m.cur < len(m.results) {
		return m.results[m.cur]
	}
	return &valueRows{done: true}
}

func (m *multiRows) Columns() []string              { return m.current().Columns() }
func (m *multiRows) Next(dest []driver.Value) error { return m.current().Next(dest) }

// HasNextResultSet is true while a result set or the error that stopped
// the statements is still to come (database/sql closes the rows when it
// turns false at the end of a result set).
func (m *multiRows) HasNextResultSet() bool {
	if r, ok := m.current().(driver.RowsNextResultSet); ok && r.HasNextResultSet() {
		return true // a statement's own extra result sets (resultsets.go)
	}
	return m.cur < len(m.results)-1 || (m.cur < len(m.results) && m.err != nil)
}

// NextResultSet moves to the next statement's result, closing the current
// one; after the last it returns the error that stopped the statements,
// or io.EOF.
func (m *multiRows) NextResultSet() error {
	if m.cur >= len(m.results) {
		return io.EOF
	}
	if r, ok := m.current().(driver.RowsNextResultSet); ok && r.HasNextResultSet() {
		return r.NextResultSet()
	}
	closeErr := m.results[m.cur].Close()
	m.cur++
	switch {
	case m.cur < len(m.results):
		return closeErr
	case m.err != nil:
		err := m.err
		m.err = nil
		return err
	}
	return io.EOF
}

// Close closes every result not yet closed.
func (m *multiRows) Close() error {
	var first error
	for ; m.cur < len(m.results); m.cur++ {
		if err := m.results[m.cur].Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

var anyType = reflect.TypeOf((*any)(nil)).Elem()

func (m *multiRows) ColumnTypeScanType(i int) reflect.Type {
	if r, ok := m.current().(driver.RowsColumnTypeScanType); ok {
		return r.ColumnTypeScanType(i)
	}
	return anyType
}

func (m *multiRows) ColumnTypeDatabaseTypeName(i int) string {
	if r, ok := m.current().(driver.RowsColumnTypeDatabaseTypeName); ok {
		return r.ColumnTypeDatabaseTypeName(i)
	}
	return ""
}

func (m *multiRows) ColumnTypeNullable(i int) (nullable, ok bool) {
	if r, ok := m.current().(driver.RowsColumnTypeNullable); ok {
		return r.ColumnTypeNullable(i)
	}
	return false, false
}
