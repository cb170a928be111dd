package decode

import (
	"google.golang.org/protobuf/encoding/protowire"
)

// Merger turns a sequence of PartialResultSet messages into a sequence of
// complete values, joining chunked values across message boundaries.
//
// A chunked value is accumulated in memory the Merger owns, so it never pins
// the messages it came from; every other value aliases its message's bytes.
// Work is linear in the size of the value however many messages it spans.
type Merger struct {
	msg     *Message
	own     Message // storage for messages given to Load
	values  ValueIter
	idx     int
	pending *chunkNode
}

// Load scans the next message. The previous one must be exhausted (Next
// returned ok == false). The Merger keeps aliases into b until the next Load.
func (m *Merger) Load(b []byte) error {
	if err := m.own.Scan(b); err != nil {
		return err
	}
	m.LoadScanned(&m.own)
	return nil
}

// LoadScanned is Load for a message scanned already; msg must stay unchanged
// until the next Load.
func (m *Merger) LoadScanned(msg *Message) {
	m.msg = msg
	m.values = msg.Values()
	m.idx = 0
}

// Message returns the message loaded last.
func (m *Merger) Message() *Message { return m.msg }

// Remaining is the number of values left in the current message, counting a
// chunked last value as one.
func (m *Merger) Remaining() int {
	if m.msg == nil {
		return 0
	}
	return m.msg.NumValues - m.idx
}

// Next returns the next complete value. ok is false when the current message
// has no more complete values and another must be loaded.
func (m *Merger) Next() (v []byte, ok bool, err error) {
	for m.Remaining() > 0 {
		v = m.values.Next()
		m.idx++
		lastOfChunked := m.idx == m.msg.NumValues && m.msg.ChunkedValue
		if m.pending != nil {
			if err := m.pending.merge(v, 0); err != nil {
				return nil, false, err
			}
			if lastOfChunked {
				return nil, false, nil
			}
			v = m.pending.encode()
			m.pending = nil
			return v, true, nil
		}
		if lastOfChunked {
			n, err := newChunkNode(v)
			if err != nil {
				return nil, false, err
			}
			m.pending = n
			return nil, false, nil
		}
		return v, true, nil
	}
	return nil, false, nil
}

// NextRow fills row with the next len(row) values of the current message,
// for callers that checked Simple and Remaining. Values of up to 127 bytes,
// the usual case, are taken without a call.
func (m *Merger) NextRow(row [][]byte) {
	b := m.values.rest
	for i := range row {
		if len(b) > 1 && b[0] == valuesTag && b[1] < 0x80 && 2+int(b[1]) <= len(b) {
			l := 2 + int(b[1])
			row[i] = b[2:l]
			b = b[l:]
			continue
		}
		m.values.rest = b
		row[i] = m.values.Next()
		b = m.values.rest
	}
	m.values.rest = b
	m.idx += len(row)
}

// Simple reports whether the current message's values can be taken with
// NextRow: nothing pending and no chunk at its end.
func (m *Merger) Simple() bool { return m.pending == nil && m.msg != nil && !m.msg.ChunkedValue }

// Whole is the number of values that can be taken from the current message
// as they are: none while a chunked value is pending (the next value
// continues it), and not the last value when the next message continues
// it.
func (m *Merger) Whole() int {
	if m.pending != nil || m.msg == nil {
		return 0
	}
	n := m.msg.NumValues - m.idx
	if m.msg.ChunkedValue {
		n--
	}
	return n
}

// End checks that the stream did not stop inside a chunked value.
func (m *Merger) End() error {
	if m.pending != nil {
		return ProtocolErrorf("stream ended inside a chunked %s value", m.pending.kind)
	}
	return nil
}

// chunkNode is a value being assembled from chunks. Strings grow by append.
// A list keeps its finished elements encoded and expands only its last
// element, the one a following chunk may continue, so each element is
// expanded and re-encoded at most once.
type chunkNode struct {
	kind  Kind
	str   []byte
	elems [][]byte   // encoded elements before last
	last  *chunkNode // the last element, when the list has any
}

func newChunkNode(b []byte) (*chunkNode, error) {
	v, err := ParseValue(b)
	if err != nil {
		return nil, err
	}
	return nodeOf(v, b, 0)
}

// maxChunkDepth bounds the nesting of lists in a chunked value, as protobuf
// bounds recursion when unmarshalling: the merge recurses once per level, and
// an absurdly nested value must be an error, not a stack overflow.
const maxChunkDepth = 10000

func nodeOf(v Value, raw []byte, depth int) (*chunkNode, error) {
	if depth > maxChunkDepth {
		return nil, ProtocolErrorf("chunked value nested more than %d levels deep", maxChunkDepth)
	}
	switch v.Kind {
	case KindString:
		return &chunkNode{kind: KindString, str: append([]byte(nil), v.Bytes...)}, nil
	case KindList:
		n := &chunkNode{kind: KindList}
		it := Elements(v.Bytes)
		for e, ok := it.Next(); ok; e, ok = it.Next() {
			if err := n.appendElem(e, depth+1); err != nil {
				return nil, err
			}
		}
		return n, it.Err()
	case KindUnset:
		return nil, ProtocolErrorf("chunked_value set on a value with no kind")
	}
	// A number, bool, null or struct cannot be continued; keep it as a leaf so
	// that a merge into it reports the violation.
	return &chunkNode{kind: v.Kind, str: append([]byte(nil), raw...)}, nil
}

// appendElem adds a complete element, at the given nesting depth, after the
// current last one.
func (n *chunkNode) appendElem(e []byte, depth int) error {
	if n.last != nil {
		n.elems = append(n.elems, n.last.encode())
	}
	v, err := ParseValue(e)
	if err != nil {
		return err
	}
	last, err := nodeOf(v, e, depth)
	if err != nil {
		return err
	}
	n.last = last
	return nil
}

// merge joins the encoded value b onto n, which is at the given nesting
// depth, as protocol.md describes.
func (n *chunkNode) merge(b []byte, depth int) error {
	if depth > maxChunkDepth {
		return ProtocolErrorf("chunked value nested more than %d levels deep", maxChunkDepth)
	}
	r, err := ParseValue(b)
	if err != nil {
		return err
	}
	switch {
	case n.kind == KindString && r.Kind == KindString:
		n.str = append(n.str, r.Bytes...)
		return nil
	case n.kind == KindList && r.Kind == KindList:
		it := Elements(r.Bytes)
		first := true
		for e, ok := it.Next(); ok; e, ok = it.Next() {
			if first && n.last != nil && (n.last.kind == KindString || n.last.kind == KindList) {
				if err := n.last.merge(e, depth+1); err != nil {
					return err
				}
			} else if err := n.appendElem(e, depth+1); err != nil {
				return err
			}
			first = false
		}
		return it.Err()
	case n.kind != KindString && n.kind != KindList:
		return ProtocolErrorf("cannot merge a chunk into a %s value", n.kind)
	default:
		return ProtocolErrorf("cannot merge a %s chunk into a %s value", r.Kind, n.kind)
	}
}

// encode returns n as an encoded google.protobuf.Value.
func (n *chunkNode) encode() []byte {
	switch n.kind {
	case KindString:
		return appendBytesField(make([]byte, 0, len(n.str)+12), fieldString, n.str)
	case KindList:
		last := n.last.encodeOrNil()
		size := 0
		for _, e := range n.elems {
			size += protowire.SizeTag(fieldListValues) + protowire.SizeBytes(len(e))
		}
		if last != nil {
			size += protowire.SizeTag(fieldListValues) + protowire.SizeBytes(len(last))
		}
		out := make([]byte, 0, size+12)
		out = protowire.AppendTag(out, fieldList, protowire.BytesType)
		out = protowire.AppendVarint(out, uint64(size))
		for _, e := range n.elems {
			out = appendBytesField(out, fieldListValues, e)
		}
		if last != nil {
			out = appendBytesField(out, fieldListValues, last)
		}
		return out
	}
	return n.str // a leaf kept in its encoded form
}

func (n *chunkNode) encodeOrNil() []byte {
	if n == nil {
		return nil
	}
	return n.encode()
}

func appendBytesField(b []byte, num protowire.Number, v []byte) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendBytes(b, v)
}
