package rows

import (
	"database/sql/driver"
	"io"
)

// List is a result made on the client with any number of rows (PARTITION
// <query>: one row per partition id).
type List struct {
	columns []string
	rows    [][]driver.Value
}

var _ driver.Rows = (*List)(nil)

// NewList returns an empty result in columns; Append adds its rows.
func NewList(columns []string) *List { return &List{columns: columns} }

// Append adds a row, which the List then owns.
func (r *List) Append(row []driver.Value) { r.rows = append(r.rows, row) }

func (r *List) Columns() []string { return r.columns }
func (r *List) Close() error      { r.rows = nil; return nil }
func (r *List) Next(dest []driver.Value) error {
	if len(r.rows) == 0 {
		return io.EOF
	}
	copy(dest, r.rows[0])
	r.rows = r.rows[1:]
	return nil
}
