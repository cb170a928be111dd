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
)

// Message is a PartialResultSet scanned in place: every slice aliases the
// bytes given to Scan and is valid as long as they are.
type Message struct {
	Metadata       []byte   // encoded ResultSetMetadata, first message only
	Values         [][]byte // encoded google.protobuf.Value, row-major
	ChunkedValue   bool     // the last value continues in the next message
	ResumeToken    []byte
	Stats          []byte // encoded ResultSetStats
	PrecommitToken []byte
	Last           bool
}

// Scan fills m from an encoded PartialResultSet, reusing m.Values' capacity.
// Unknown fields are skipped.
func (m *Message) Scan(b []byte) error {
	values := m.Values[:0]
	*m = Message{}
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			m.Values = values
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
			m.Values = values
			return wireError("PartialResultSet field", n)
		}
		b = b[n:]
		switch {
		case num == prsValues && typ == protowire.BytesType:
			values = append(values, field)
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
	m.Values = values
	if m.ChunkedValue && len(values) == 0 {
		return protocolErrorf("chunked_value set on a message with no values")
	}
	return nil
}
