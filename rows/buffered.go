package rows

import (
	"database/sql/driver"
	"io"
	"reflect"
)

// Buffered are rows read completely before they are returned (DML with THEN
// RETURN outside a transaction is read before its commit; a statement of
// several is read before the next one runs).
type Buffered struct {
	names    []string
	scan     []reflect.Type
	dbTypes  []string
	rows     [][]driver.Value
	consumed int
	metadata []byte // encoded, when the statement kept it (resultsets.go)
	stats    []byte // encoded, as the stream ended
}

// EncodedMetadata is the metadata of the rows buffered (resultsets.go).
func (b *Buffered) EncodedMetadata() ([]byte, bool) { return b.metadata, true }

// EncodedStats is the statistics of the rows buffered (resultsets.go).
func (b *Buffered) EncodedStats() ([]byte, bool) { return b.stats, true }

var (
	_ driver.Rows                           = (*Buffered)(nil)
	_ driver.RowsColumnTypeScanType         = (*Buffered)(nil)
	_ driver.RowsColumnTypeDatabaseTypeName = (*Buffered)(nil)
	_ driver.RowsColumnTypeNullable         = (*Buffered)(nil)
	_ Encoded                               = (*Buffered)(nil)
)

// columnTyper is what a Rows of this driver reports about its columns.
type columnTyper interface {
	driver.Rows
	driver.RowsColumnTypeScanType
	driver.RowsColumnTypeDatabaseTypeName
}

// Buffer reads r and closes it. r must decode in safe mode: the values
// buffered must own their memory.
func Buffer(r driver.Rows) (*Buffered, error) {
	defer r.Close()
	b := &Buffered{names: r.Columns()}
	if ct, ok := r.(columnTyper); ok {
		for i := range b.names {
			b.scan = append(b.scan, ct.ColumnTypeScanType(i))
			b.dbTypes = append(b.dbTypes, ct.ColumnTypeDatabaseTypeName(i))
		}
	}
	for {
		row := make([]driver.Value, len(b.names))
		if err := r.Next(row); err == io.EOF {
			b.metadata, _ = encodedOf(r, true)
			b.stats, _ = encodedOf(r, false)
			return b, nil
		} else if err != nil {
			return nil, err
		}
		b.rows = append(b.rows, row)
	}
}

func (b *Buffered) Columns() []string { return b.names }
func (b *Buffered) Close() error      { return nil }

func (b *Buffered) Next(dest []driver.Value) error {
	if b.consumed >= len(b.rows) {
		return io.EOF
	}
	copy(dest, b.rows[b.consumed])
	b.rows[b.consumed] = nil
	b.consumed++
	return nil
}

func (b *Buffered) ColumnTypeScanType(i int) reflect.Type      { return b.scan[i] }
func (b *Buffered) ColumnTypeDatabaseTypeName(i int) string    { return b.dbTypes[i] }
func (b *Buffered) ColumnTypeNullable(int) (nullable, ok bool) { return true, true }
