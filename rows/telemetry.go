package rows

import (
	"time"

	"github.com/spannerfast/spannerfast/internal/telemetry"
)

// OpStream is a Stream that carries its query's operation
// (internal/stream's Query).
type OpStream interface {
	TakeOp() telemetry.Op
}

// trace makes op, the query's operation, end when r is closed, with
// db.response.returned_rows, and counts r among the open results when a
// meter listens. While either is active the messages r loads are counted
// (Decoded): per message, never per row.
func (r *Rows) trace(op telemetry.Op) {
	r.op = op
	r.open = op.RowsOpened()
	if !r.counting() {
		return
	}
	if op.Recording() && !r.readTS.IsZero() {
		r.op.SetAttributes(telemetry.KeyReadTimestamp.String(r.readTS.UTC().Format(time.RFC3339Nano)))
	}
	r.countValues() // the first message, loaded by Init
}

// counting reports whether anyone listens to r: its operation or its
// open count.
func (r *Rows) counting() bool { return r.op.Active() || r.open.Active() }

// countValues adds the complete values and the bytes of the message just
// loaded: a chunked last value is counted with the message that completes
// it.
func (r *Rows) countValues() {
	m := r.merger.Message()
	r.values += int64(m.NumValues)
	if m.ChunkedValue {
		r.values--
	}
	r.bytes += int64(len(r.cur.Data))
}

// Decoded returns, when anyone listens to r (else 0, 0), the rows Next has
// taken from the stream so far and the bytes of the result messages
// loaded: the values loaded less those the current message still holds,
// over the columns of a row.
func (r *Rows) Decoded() (rowCount, bytes int64) {
	if n := int64(len(r.row)); n > 0 {
		left := int64(r.merger.Remaining())
		if left > 0 && r.merger.Message().ChunkedValue {
			left-- // the chunk at its end was not counted
		}
		rowCount = (r.values - left) / n
	}
	return rowCount, r.bytes
}

// endOp ends the query's operation with the rows' error, if any, and
// counts the result closed with its rows and bytes.
func (r *Rows) endOp() {
	if !r.counting() {
		return
	}
	rowCount, bytes := r.Decoded()
	r.open.Closed(rowCount, bytes)
	if r.op.Active() {
		r.op.AddRows(rowCount)
		r.op.End(r.err)
	}
}
