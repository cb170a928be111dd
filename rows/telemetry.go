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
// db.response.returned_rows: the rows in the messages r loaded (all of
// them once r was read to its end). Counting happens per message, never
// per row, and only while op is active.
func (r *Rows) trace(op telemetry.Op) {
	r.op = op
	if !op.Active() {
		return
	}
	if op.Recording() && !r.readTS.IsZero() {
		r.op.SetAttributes(telemetry.KeyReadTimestamp.String(r.readTS.UTC().Format(time.RFC3339Nano)))
	}
	r.countValues() // the first message, loaded by Init
}

// countValues adds the complete values of the message just loaded: a
// chunked last value is counted with the message that completes it.
func (r *Rows) countValues() {
	m := r.merger.Message()
	r.values += int64(m.NumValues)
	if m.ChunkedValue {
		r.values--
	}
}

// endOp ends the query's operation with the rows' error, if any.
func (r *Rows) endOp() {
	if !r.op.Active() {
		return
	}
	if n := len(r.row); n > 0 {
		r.op.AddRows(r.values / int64(n))
	}
	r.op.End(r.err)
}
