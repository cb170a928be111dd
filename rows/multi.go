package rows

import (
	"database/sql/driver"
	"io"
	"reflect"
)

// Sequence returns results as one Multi; stopped is the error that ended
// the statements after the last result, or nil. With no results it holds
// one empty result set.
func Sequence(results []driver.Rows, stopped error) *Multi {
	if len(results) == 0 { // only semicolons and comments
		results = append(results, NoRows())
	}
	return &Multi{results: results, err: stopped}
}

// Multi is the results of several statements as one driver.Rows with a
// result set per statement, in order, followed by the error that stopped
// them, if any (a multi-statement string's results).
type Multi struct {
	results []driver.Rows
	cur     int
	err     error // the failure after the last result; reported once
}

var (
	_ driver.RowsNextResultSet              = (*Multi)(nil)
	_ driver.RowsColumnTypeScanType         = (*Multi)(nil)
	_ driver.RowsColumnTypeDatabaseTypeName = (*Multi)(nil)
	_ driver.RowsColumnTypeNullable         = (*Multi)(nil)
)

func (m *Multi) current() driver.Rows {
	if m.cur < len(m.results) {
		return m.results[m.cur]
	}
	return NoRows()
}

func (m *Multi) Columns() []string              { return m.current().Columns() }
func (m *Multi) Next(dest []driver.Value) error { return m.current().Next(dest) }

// HasNextResultSet is true while a result set or the error that stopped
// the statements is still to come (database/sql closes the rows when it
// turns false at the end of a result set).
func (m *Multi) HasNextResultSet() bool {
	if r, ok := m.current().(driver.RowsNextResultSet); ok && r.HasNextResultSet() {
		return true // a statement's own extra result sets (WithResultSets)
	}
	return m.cur < len(m.results)-1 || (m.cur < len(m.results) && m.err != nil)
}

// NextResultSet moves to the next statement's result, closing the current
// one; after the last it returns the error that stopped the statements,
// or io.EOF.
func (m *Multi) NextResultSet() error {
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
func (m *Multi) Close() error {
	var first error
	for ; m.cur < len(m.results); m.cur++ {
		if err := m.results[m.cur].Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

var anyType = reflect.TypeOf((*any)(nil)).Elem()

func (m *Multi) ColumnTypeScanType(i int) reflect.Type {
	if r, ok := m.current().(driver.RowsColumnTypeScanType); ok {
		return r.ColumnTypeScanType(i)
	}
	return anyType
}

func (m *Multi) ColumnTypeDatabaseTypeName(i int) string {
	if r, ok := m.current().(driver.RowsColumnTypeDatabaseTypeName); ok {
		return r.ColumnTypeDatabaseTypeName(i)
	}
	return ""
}

func (m *Multi) ColumnTypeNullable(i int) (nullable, ok bool) {
	if r, ok := m.current().(driver.RowsColumnTypeNullable); ok {
		return r.ColumnTypeNullable(i)
	}
	return false, false
}
