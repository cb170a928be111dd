package decode

import (
	"database/sql/driver"
	"encoding/base64"
)

// RowDecoder decodes rows of one plan. It is not safe for concurrent use; a
// Rows owns one.
type RowDecoder struct {
	plan  *Plan
	arena arena
}

// NewRowDecoder returns a decoder for rows of p. With poison set (raw mode
// only), the reused value slots are overwritten before each row so that a
// value kept past its lifetime reads a fixed pattern.
func NewRowDecoder(p *Plan, poison bool) *RowDecoder {
	d := new(RowDecoder)
	d.Reset(p, poison)
	return d
}

// Reset makes d a decoder for rows of p, as NewRowDecoder does, for a
// RowDecoder held by value.
func (d *RowDecoder) Reset(p *Plan, poison bool) {
	*d = RowDecoder{plan: p, arena: arena{raw: p.opts.Raw, poison: poison && p.opts.Raw}}
}

// Plan returns the decoder's plan.
func (d *RowDecoder) Plan() *Plan { return d.plan }

// Decode decodes one row of encoded values into dest (len(row) ==
// len(dest) == number of columns). Every dest[i] is written, nil for NULL.
func (d *RowDecoder) Decode(row [][]byte, dest []driver.Value) error {
	l := &d.plan.layout
	d.arena.reset(l.slots, contentSize(l, row))
	for i, cp := range d.plan.cols {
		x, err := cp.decode(row[i], &d.arena)
		if err != nil {
			return d.columnError(i, err)
		}
		dest[i] = x
	}
	return nil
}

// contentSize bounds the string and BYTES content of a row from the encoded
// lengths alone: a string_value's payload is at least two bytes (its tag
// and length) shorter than its encoded value.
func contentSize(l *rowLayout, row [][]byte) int {
	size := 0
	for _, i := range l.strs {
		size += max(len(row[i])-2, 0)
	}
	for _, i := range l.bytes {
		size += base64.StdEncoding.DecodedLen(max(len(row[i])-2, 0))
	}
	return size
}

func (d *RowDecoder) columnError(i int, err error) error {
	c := &d.plan.Columns[i]
	return &ColumnError{Index: i, Name: c.Name, Type: c.TypeName, Err: err}
}
