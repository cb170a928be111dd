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
	d.arena.reset(d.slabSize(row))
	for i, cp := range d.plan.cols {
		x, err := cp.decode(row[i], &d.arena)
		if err != nil {
			return d.columnError(i, err)
		}
		dest[i] = x
	}
	return nil
}

// slabSize bounds the slab bytes a row needs from the encoded lengths alone:
// a string's payload is never longer than its encoded value.
func (d *RowDecoder) slabSize(row [][]byte) int {
	if d.arena.raw && d.plan.rawSlab >= 0 {
		return d.plan.rawSlab
	}
	size := 0
	for i, cp := range d.plan.cols {
		switch cp.slab {
		case slabFixed8:
			size += fixedSlot
		case slabString:
			if d.arena.raw {
				size += rawStringSlot
			} else {
				size += stringSlot + roundUp8(len(row[i]))
			}
		case slabBytes:
			size += sliceSlot + roundUp8(base64.StdEncoding.DecodedLen(len(row[i])))
		case slabTime:
			size += timeSlot
		}
	}
	return size
}

func (d *RowDecoder) columnError(i int, err error) error {
	c := &d.plan.Columns[i]
	return &ColumnError{Index: i, Name: c.Name, Type: c.TypeName, Err: err}
}
