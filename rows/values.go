package rows

import (
	"database/sql/driver"
	"io"
)

// Values is a result made on the client: one row of values, or no rows
// (client-side statements, SHOW, a PartitionedQuery, DDL through
// QueryContext).
type Values struct {
	columns []string
	values  []driver.Value
	done    bool
}

var _ driver.Rows = (*Values)(nil)

// OneRow returns a result of one row: values, in columns.
func OneRow(columns []string, values ...driver.Value) *Values {
	return &Values{columns: columns, values: values}
}

// NoRows returns a result without columns or rows.
func NoRows() *Values { return &Values{done: true} }

func (r *Values) Columns() []string { return r.columns }
func (r *Values) Close() error      { return nil }
func (r *Values) Next(dest []driver.Value) error {
	if r.done {
		return io.EOF
	}
	r.done = true
	copy(dest, r.values)
	return nil
}
