package decode

import (
	"google.golang.org/protobuf/encoding/protowire"
)

// PartialResultSet field numbers (google/spanner/v1/result_set.proto).
const (
	prsMetadata       = 1
	prsValues         = 2
	prsChunkedValue   = 3
	prsResumeToken    = 4
	prsStats          = 5
	prsPrecommitToken = 8
	prsLast           = 9

	valuesTag = prsValues<<3 | 2 // the one-byte tag of a values field
)

// Message is a PartialResultSet scanned in place: every slice aliases the
// bytes given to Scan and is valid as long as they are. Values are not
// collected: Scan counts them and Values walks them again, in order, which
// costs less than building a slice of a million-entry message.
type Message struct {
	Metadata       []byte // encoded ResultSetMetadata, first message only
	ResumeToken    []byte
	Stats          []byte // encoded ResultSetStats
	PrecommitToken []byte
	NumValues      int  // number of values fields
	ChunkedValue   bool // the last value continues in the next message
	Last           bool

	values []byte // the message from its first values field on
}

// Scan fills m from an encoded PartialResultSet. Unknown fields are skipped.
func (m *Message) Scan(b []byte) error {
	*m = Message{}
	for len(b) > 0 {
		start := b
		if b[0] == valuesTag {
			if m.NumValues == 0 {
				m.values = b
			}
			// Values shorter than 128 bytes, the usual ones, in a
			// loop of their own.
			k := 0
			for len(b) > 1 && b[0] == valuesTag && b[1] < 0x80 && int(b[1]) <= len(b)-2 {
				b = b[2+int(b[1]):]
				k++
			}
			if k > 0 {
				m.NumValues += k
				continue
			}
			l, n := shortLen(b[1:])
			if n == 0 || l > len(b)-1-n {
				return wireError("PartialResultSet values", -1)
			}
			m.NumValues++
			b = b[1+n+l:]
			continue
		}
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return wireError("PartialResultSet tag", n)
		}
		b = b[n:]
		var field []byte
		var flag uint64
		switch typ {
		case protowire.BytesType:
			field, n = protowire.ConsumeBytes(b)
		case protowire.VarintType:
			flag, n = protowire.ConsumeVarint(b)
		default:
			n = protowire.ConsumeFieldValue(num, typ, b)
		}
		if n < 0 {
			return wireError("PartialResultSet field", n)
		}
		b = b[n:]
		switch {
		case num == prsValues && typ == protowire.BytesType:
			// A values tag written in a longer form than one byte.
			if m.NumValues == 0 {
				m.values = start
			}
			m.NumValues++
		case num == prsMetadata && typ == protowire.BytesType:
			m.Metadata = field
		case num == prsChunkedValue && typ == protowire.VarintType:
			m.ChunkedValue = flag != 0
		case num == prsResumeToken && typ == protowire.BytesType:
			m.ResumeToken = field
		case num == prsStats && typ == protowire.BytesType:
			m.Stats = field
		case num == prsPrecommitToken && typ == protowire.BytesType:
			m.PrecommitToken = field
		case num == prsLast && typ == protowire.VarintType:
			m.Last = flag != 0
		}
	}
	if m.ChunkedValue && m.NumValues == 0 {
		return ProtocolErrorf("chunked_value set on a message with no values")
	}
	return nil
}

// shortLen reads a varint length, with a fast path for one byte. n is 0 on
// malformed input.
func shortLen(b []byte) (l, n int) {
	if len(b) > 0 && b[0] < 0x80 {
		return int(b[0]), 1
	}
	v, n := protowire.ConsumeVarint(b)
	if n < 0 || v > uint64(len(b)) {
		return 0, 0
	}
	return int(v), n
}

// Values returns an iterator over the message's values, in order.
func (m *Message) Values() ValueIter { return ValueIter{rest: m.values} }

// AppendValues appends every value of m to dst (for tests and tools; the
// decoder walks values with Values instead).
func (m *Message) AppendValues(dst [][]byte) [][]byte {
	it := m.Values()
	for range m.NumValues {
		dst = append(dst, it.Next())
	}
	return dst
}

// ValueIter walks the values fields of a scanned Message.
type ValueIter struct{ rest []byte }

// Next returns the next value. The message was validated by Scan, so Next
// only skips other fields; it returns nil after the last value.
func (it *ValueIter) Next() []byte {
	b := it.rest
	for len(b) > 0 {
		if b[0] == valuesTag {
			l, n := shortLen(b[1:])
			v := b[1+n : 1+n+l]
			it.rest = b[1+n+l:]
			return v
		}
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			break
		}
		m := protowire.ConsumeFieldValue(num, typ, b[n:])
		if m < 0 {
			break
		}
		if num == prsValues && typ == protowire.BytesType {
			v, _ := protowire.ConsumeBytes(b[n:])
			it.rest = b[n+m:]
			return v
		}
		b = b[n+m:]
	}
	it.rest = nil
	return nil
}
