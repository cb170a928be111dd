package decode

import (
	"database/sql/driver"
	"encoding/base64"
	"encoding/binary"
	"math"
)

// RowDecoder decodes rows of one plan. It is not safe for concurrent use; a
// Rows owns one.
type RowDecoder struct {
	plan  *Plan
	arena arena
	// spans locates the values of the row DecodeNext is decoding in its
	// message. They are offsets, not slices, so that recording them
	// stores no pointer: a pointer store into the heap runs the write
	// barrier whenever a garbage collection is marking, which safe mode's
	// allocations make frequent.
	spans [maxSpanColumns]span
}

// maxSpanColumns is the most columns DecodeNext takes; wider rows go
// through Decode.
const maxSpanColumns = 16

// span is one encoded value: its offset from the start of the row in the
// message's values, and its length.
type span struct{ off, n uint32 }

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

// DecodeNext decodes the next row of m's current message straight into
// dest, as m.NextRow followed by Decode would, without storing the row's
// values anywhere in between. ok is false, and nothing is consumed, when
// the row cannot be taken this way: the message does not hold all of it
// whole (Merger.Whole: a row that a chunk continues or that continues one
// goes through the Merger), or the row has more than maxSpanColumns
// columns.
func (d *RowDecoder) DecodeNext(m *Merger, dest []driver.Value) (ok bool, err error) {
	cols := d.plan.cols
	n := len(cols)
	if n > len(d.spans) || m.Whole() < n {
		return false, nil
	}
	base := m.values.rest
	if len(base) > math.MaxUint32 {
		return false, nil
	}
	spans := d.spans[:n]
	b := base
	for i := range spans {
		off := len(base) - len(b)
		if len(b) > 1 && b[0] == valuesTag && b[1] < 0x80 && 2+int(b[1]) <= len(b) {
			l := int(b[1])
			spans[i] = span{uint32(off + 2), uint32(l)}
			b = b[2+l:]
			continue
		}
		it := ValueIter{rest: b}
		v := it.Next()
		// v ends where the rest begins.
		end := off + len(b) - len(it.rest)
		spans[i] = span{uint32(end - len(v)), uint32(len(v))}
		b = it.rest
	}
	m.values.rest = b
	m.idx += n

	l := &d.plan.layout
	d.arena.reset(l.slots, contentSizeSpans(l, spans))
	a := &d.arena
	for i := range cols {
		cp := &cols[i]
		s := spans[i]
		v := base[s.off : s.off+s.n]
		// The usual encodings of the commonest types in line; anything
		// else (NULL, other encodings, errors) through the column's
		// decoder, as Decode does.
		switch cp.hot {
		case hotInt64:
			if p, ok := shortStringPayload(v); ok {
				if n, ok := parseDecimalInt64(p); ok {
					dest[i] = a.int64(n)
					continue
				}
			}
		case hotFloat64:
			if len(v) == 9 && v[0] == fieldNumber<<3|1 {
				dest[i] = a.float64(math.Float64frombits(binary.LittleEndian.Uint64(v[1:])))
				continue
			}
		case hotString:
			if p, ok := shortStringPayload(v); ok {
				dest[i] = a.string(p)
				continue
			}
		}
		x, err := cp.decode(v, a)
		if err != nil {
			return true, d.columnError(i, err)
		}
		dest[i] = x
	}
	return true, nil
}

// shortStringPayload is stringPayload for a payload of at most 127 bytes,
// small enough to be inlined; longer ones go through stringPayload.
func shortStringPayload(v []byte) ([]byte, bool) {
	if len(v) < 2 || v[0] != fieldString<<3|2 || v[1] >= 0x80 || int(v[1])+2 != len(v) {
		return nil, false
	}
	return v[2:], true
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

// contentSizeSpans is contentSize for a row located by spans.
func contentSizeSpans(l *rowLayout, spans []span) int {
	size := 0
	for _, i := range l.strs {
		size += max(int(spans[i].n)-2, 0)
	}
	for _, i := range l.bytes {
		size += base64.StdEncoding.DecodedLen(max(int(spans[i].n)-2, 0))
	}
	return size
}

func (d *RowDecoder) columnError(i int, err error) error {
	c := &d.plan.Columns[i]
	return &ColumnError{Index: i, Name: c.Name, Type: c.TypeName, Err: err}
}
