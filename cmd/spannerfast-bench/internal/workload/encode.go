package workload

import (
	"encoding/binary"
	"fmt"
	"math"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
)

// Message is one encoded PartialResultSet, in two parts that are sent back
// to back: Body (metadata on the first message, values, chunked_value) and
// Tail (resume_token, and last on the final message). The Body of a cyclic
// result is shared by several messages; neither part may be modified.
type Message struct {
	Body []byte
	Tail []byte
}

// Size is the encoded size of the message.
func (m Message) Size() int { return len(m.Body) + len(m.Tail) }

// Bytes returns the message as one byte slice (a copy).
func (m Message) Bytes() []byte {
	b := make([]byte, 0, m.Size())
	return append(append(b, m.Body...), m.Tail...)
}

// PartialResultSet field numbers (google/spanner/v1/result_set.proto).
const (
	prsMetadata     = 1
	prsValues       = 2
	prsChunkedValue = 3
	prsResumeToken  = 4
	prsPrecommit    = 8
	prsLast         = 9
)

// google.protobuf.Value field numbers.
const (
	valNumber = 2
	valString = 3
	valBool   = 4
	valList   = 6
	listItems = 1
)

func stringValueSize(s string) int {
	return protowire.SizeTag(valString) + protowire.SizeBytes(len(s))
}

func listSize(list []string) int {
	n := 0
	for _, s := range list {
		n += protowire.SizeTag(listItems) + protowire.SizeBytes(stringValueSize(s))
	}
	return n
}

// valueSize is the size of c encoded as a google.protobuf.Value.
func valueSize(c Cell) int {
	switch c.Wire {
	case WireNumber:
		return protowire.SizeTag(valNumber) + 8
	case WireBool:
		return protowire.SizeTag(valBool) + 1
	case WireList:
		return protowire.SizeTag(valList) + protowire.SizeBytes(listSize(c.List))
	default:
		return stringValueSize(c.S)
	}
}

func appendStringValue(b []byte, s string) []byte {
	b = protowire.AppendTag(b, valString, protowire.BytesType)
	return protowire.AppendString(b, s)
}

// appendValue appends c as a google.protobuf.Value (without a field tag).
func appendValue(b []byte, c Cell) []byte {
	switch c.Wire {
	case WireNumber:
		b = protowire.AppendTag(b, valNumber, protowire.Fixed64Type)
		return protowire.AppendFixed64(b, math.Float64bits(c.F))
	case WireBool:
		b = protowire.AppendTag(b, valBool, protowire.VarintType)
		return protowire.AppendVarint(b, protowire.EncodeBool(c.B))
	case WireList:
		b = protowire.AppendTag(b, valList, protowire.BytesType)
		b = protowire.AppendVarint(b, uint64(listSize(c.List)))
		for _, s := range c.List {
			b = protowire.AppendTag(b, listItems, protowire.BytesType)
			b = protowire.AppendVarint(b, uint64(stringValueSize(s)))
			b = appendStringValue(b, s)
		}
		return b
	default:
		return appendStringValue(b, c.S)
	}
}

// appendValuesField appends c as one element of PartialResultSet.values.
func appendValuesField(b []byte, c Cell) []byte {
	b = protowire.AppendTag(b, prsValues, protowire.BytesType)
	b = protowire.AppendVarint(b, uint64(valueSize(c)))
	return appendValue(b, c)
}

func valuesFieldSize(c Cell) int {
	return protowire.SizeTag(prsValues) + protowire.SizeBytes(valueSize(c))
}

// splitCell splits a value into two chunks whose merge (string
// concatenation; for lists, the last string element of the left chunk
// joined with the first element of the right one) gives the value back.
func splitCell(c Cell) (left, right Cell, ok bool) {
	switch c.Wire {
	case WireString:
		if len(c.S) < 2 {
			return c, c, false
		}
		m := len(c.S) / 2
		return Cell{Wire: WireString, S: c.S[:m]}, Cell{Wire: WireString, S: c.S[m:]}, true
	case WireList:
		for j := len(c.List) / 2; j < len(c.List); j++ {
			e := c.List[j]
			if len(e) < 2 {
				continue
			}
			m := len(e) / 2
			l := append(append([]string{}, c.List[:j]...), e[:m])
			r := append([]string{e[m:]}, c.List[j+1:]...)
			return Cell{Wire: WireList, List: l}, Cell{Wire: WireList, List: r}, true
		}
	}
	return c, c, false
}

func (w *Workload) rowSize(row int) int {
	n := 0
	for col := range w.Columns {
		c, _ := w.value(row, col, false)
		n += valuesFieldSize(c)
	}
	return n
}

// CyclePeriod is the number of rows after which the rows of a cyclic
// workload repeat: a whole number of messages' worth of rows.
func (w *Workload) CyclePeriod() int {
	w.memo.once.Do(func() {
		size, k := 0, 0
		for size < MessageTarget && (k+1)*len(w.Columns) <= MaxValuesPerMessage {
			size += w.rowSize(k)
			k++
		}
		w.memo.period = k * cycleMessages
	})
	return w.memo.period
}

// MetadataField is the encoded metadata field (with its tag) that starts
// the first message of Encode; with tx, the metadata also carries the
// transaction (an inline begin's answer).
func (w *Workload) MetadataField(tx *spannerpb.Transaction) ([]byte, error) {
	md := w.Metadata()
	md.Transaction = tx
	return w.encodeMetadata(md)
}

func (w *Workload) encodeMetadata(md *spannerpb.ResultSetMetadata) ([]byte, error) {
	enc, err := proto.Marshal(md)
	if err != nil {
		return nil, fmt.Errorf("encoding metadata of %s: %w", w.Name, err)
	}
	b := protowire.AppendTag(nil, prsMetadata, protowire.BytesType)
	return protowire.AppendBytes(b, enc), nil
}

// ResumeToken is the resume token of message i.
func ResumeToken(i int) []byte {
	return binary.BigEndian.AppendUint64(nil, uint64(i)+1)
}

// TokenIndex returns the message index a resume token names.
func TokenIndex(tok []byte) (int, error) {
	if len(tok) != 8 {
		return 0, fmt.Errorf("resume token has %d bytes, want 8", len(tok))
	}
	v := binary.BigEndian.Uint64(tok)
	if v == 0 || v > math.MaxInt32 {
		return 0, fmt.Errorf("resume token %x names no message", tok)
	}
	return int(v - 1), nil
}

// PrecommitField encodes t as a PartialResultSet precommit_token field, to
// send after a message's other fields.
func PrecommitField(t *spannerpb.MultiplexedSessionPrecommitToken) ([]byte, error) {
	enc, err := proto.Marshal(t)
	if err != nil {
		return nil, fmt.Errorf("encoding a precommit token: %w", err)
	}
	b := protowire.AppendTag(nil, prsPrecommit, protowire.BytesType)
	return protowire.AppendBytes(b, enc), nil
}

func tail(i int, last bool) []byte {
	b := protowire.AppendTag(nil, prsResumeToken, protowire.BytesType)
	b = protowire.AppendBytes(b, ResumeToken(i))
	if last {
		b = protowire.AppendTag(b, prsLast, protowire.VarintType)
		b = protowire.AppendVarint(b, 1)
	}
	return b
}

// Encode returns the PartialResultSets of one query of the workload: about
// MessageTarget bytes each, metadata on the first, a resume token on every
// one, last on the final one. Unchunked results end messages at row
// boundaries; chunked ones end every message but the last inside a value.
func (w *Workload) Encode() ([]Message, error) {
	meta, err := w.MetadataField(nil)
	if err != nil {
		return nil, err
	}
	var bodies [][]byte
	switch {
	case w.Chunked:
		bodies = w.encodeChunked(meta)
	case w.Cycle && w.Rows > w.CyclePeriod():
		bodies = w.encodeCyclic(meta)
	default:
		bodies = w.encodeRows(meta, 0, w.Rows)
	}
	return messages(bodies), nil
}

// messages adds the tails (resume token, last on the final one) to bodies.
func messages(bodies [][]byte) []Message {
	msgs := make([]Message, len(bodies))
	for i, b := range bodies {
		msgs[i] = Message{Body: b, Tail: tail(i, i == len(bodies)-1)}
	}
	return msgs
}

// encodeRows encodes rows [from, to) into bodies of whole rows, the first
// starting with meta.
func (w *Workload) encodeRows(meta []byte, from, to int) [][]byte {
	var bodies [][]byte
	size := w.messageCap(from)
	cur := append(make([]byte, 0, size), meta...)
	nv := 0
	for r := from; r < to; r++ {
		full := w.MessageRows > 0 && nv == w.MessageRows*len(w.Columns)
		if full || len(cur) >= MessageTarget || nv+len(w.Columns) > MaxValuesPerMessage {
			bodies = append(bodies, cur)
			cur = make([]byte, 0, size)
			nv = 0
		}
		nv += len(w.Columns)
		for col := range w.Columns {
			cur = appendValuesField(cur, w.Cell(r, col))
		}
	}
	return append(bodies, cur)
}

// messageCap is the capacity of a message body: room for a full message,
// or with MessageRows for twice that many rows like row from (small
// messages must not each hold a MiB; append grows the rare longer one).
func (w *Workload) messageCap(from int) int {
	if w.MessageRows > 0 {
		return min(MessageTarget, 2*w.MessageRows*w.rowSize(from)) + 1024
	}
	return MessageTarget + 64*1024
}

// appendBlock appends rows [from, to) to b.
func (w *Workload) appendBlock(b []byte, from, to int) []byte {
	for r := from; r < to; r++ {
		for col := range w.Columns {
			b = appendValuesField(b, w.Cell(r, col))
		}
	}
	return b
}

// encodeCyclic encodes cycleMessages bodies of k rows once and repeats
// them; only the first message (metadata) and a short final one differ.
func (w *Workload) encodeCyclic(meta []byte) [][]byte {
	k := w.CyclePeriod() / cycleMessages
	blocks := make([][]byte, cycleMessages)
	for j := range blocks {
		blocks[j] = w.appendBlock(nil, j*k, (j+1)*k)
	}
	n := (w.Rows + k - 1) / k
	bodies := make([][]byte, n)
	for m := range bodies {
		switch {
		case m == 0:
			bodies[m] = append(append([]byte{}, meta...), blocks[0]...)
		case (m+1)*k <= w.Rows:
			bodies[m] = blocks[m%cycleMessages]
		default:
			bodies[m] = w.appendBlock(nil, m*k, w.Rows)
		}
	}
	return bodies
}

// encodeChunked ends every message but the last inside a value.
func (w *Workload) encodeChunked(meta []byte) [][]byte {
	var bodies [][]byte
	cur := append(make([]byte, 0, MessageTarget+64*1024), meta...)
	nv := 0
	for r := 0; r < w.Rows; r++ {
		for col := range w.Columns {
			c := w.Cell(r, col)
			if len(cur) >= MessageTarget || nv >= MaxValuesPerMessage-1 {
				if left, right, ok := splitCell(c); ok {
					cur = appendValuesField(cur, left)
					cur = protowire.AppendTag(cur, prsChunkedValue, protowire.VarintType)
					cur = protowire.AppendVarint(cur, 1)
					bodies = append(bodies, cur)
					cur = make([]byte, 0, MessageTarget+64*1024)
					nv = 0
					c = right
				}
			}
			cur = appendValuesField(cur, c)
			nv++
		}
	}
	return append(bodies, cur)
}
