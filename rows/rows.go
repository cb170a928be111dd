package rows

import (
	"database/sql/driver"
	"io"
	"reflect"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/spannerfast/spannerfast/decode"
	"github.com/spannerfast/spannerfast/internal/telemetry"
	"github.com/spannerfast/spannerfast/internal/wire"
)

// Stream delivers the encoded PartialResultSets of one query in order. Every
// frame it returns is final: covered by a resume token or by the end of the
// stream, so it is never delivered again after a retry.
type Stream interface {
	// Recv returns the next frame, which the caller then owns, or io.EOF.
	Recv() (*wire.Frame, error)
	// Close cancels the RPC and releases anything buffered. It is called by
	// the goroutine that calls Recv, is idempotent and must not block on the
	// network.
	Close() error
	// Cancel aborts the RPC from any goroutine, so that a Recv blocked in
	// another goroutine returns promptly. Close is still called afterwards.
	Cancel()
}

// Options configure a Rows.
type Options struct {
	Decode decode.Options
	// Prefetch is how many frames a reader goroutine may read ahead of the
	// consumer. 0 reads synchronously. Results of a single message never
	// start the goroutine.
	Prefetch int
	// Poison overwrites released receive buffers and reused value slots with
	// a fixed pattern (raw mode), so that values kept too long read garbage.
	Poison bool
	// Checksum, when not nil, is fed the row type and every row read
	// (read-write transactions replay queries against it after an abort).
	Checksum *Checksum
	// Proto decodes every column as a spanner.GenericColumnValue
	// (go-sql-spanner's DecodeOptionProto; Decode is then unused).
	Proto bool
	// KeepMetadata keeps a copy of the encoded ResultSetMetadata for
	// Metadata (go-sql-spanner's metadata result set); without it nothing
	// is copied.
	KeepMetadata bool
	// Precommit, when not nil, receives each precommit token (an encoded
	// MultiplexedSessionPrecommitToken) as its message is loaded. The bytes
	// alias the receive buffer: copy what is kept.
	Precommit func(token []byte)
	// Errors, when not nil, is given every error Next returns other than
	// io.EOF (once: Next returns the same error after) and Next returns
	// what it returns instead: the connection's record of a failed
	// statement and the SQLSTATE of a PostgreSQL-dialect database. Only
	// the error paths look at it.
	Errors ErrorHook
}

// ErrorHook sees the error that ends a Rows before its caller does (see
// Options.Errors).
type ErrorHook interface {
	RowsError(err error) error
}

// Hooked returns what h makes of err, err itself when h is nil.
func Hooked(h ErrorHook, err error) error {
	if h == nil {
		return err
	}
	return h.RowsError(err)
}

// Rows is a driver.Rows over one result stream.
type Rows struct {
	stream Stream
	dec    decode.RowDecoder
	merger decode.Merger
	row    [][]byte
	rowBuf [8][]byte // row's storage for narrow results: one allocation less per query
	opts   Options

	cur  *wire.Frame   // the frame loaded into merger
	held []*wire.Frame // earlier frames still aliased by the current or last row

	ended       bool // no more frames: end of stream or last=true seen
	prefetching bool // stream is a prefetcher
	err         error
	stats       []byte
	metadata    []byte // with Options.KeepMetadata
	txID        []byte
	readTS      time.Time
	closed      bool

	// The query's telemetry (telemetry.go): its operation, ended by
	// Close, and its place among the open results. While either is
	// active, what the messages loaded hold is counted, per message and
	// never per row (Decoded).
	op     telemetry.Op
	open   telemetry.OpenRows
	values int64 // complete values in the messages loaded
	bytes  int64 // their encoded size
}

var (
	_ driver.Rows                           = (*Rows)(nil)
	_ driver.RowsColumnTypeScanType         = (*Rows)(nil)
	_ driver.RowsColumnTypeDatabaseTypeName = (*Rows)(nil)
	_ driver.RowsColumnTypeNullable         = (*Rows)(nil)
)

// Open reads the first message of s, which carries the result metadata, and
// returns the Rows. A query that fails on the server fails here, so the error
// reaches QueryContext rather than the first Next. On error s is closed.
func Open(s Stream, o Options) (*Rows, error) {
	r := new(Rows)
	if err := r.Init(s, o); err != nil {
		return nil, err
	}
	return r, nil
}

// Init is Open for a Rows in memory the caller provides (inside the object
// of the query it reads, one allocation less per query). r must be zero;
// after an error it must not be used. A stream that carries its query's
// operation (OpStream) hands it to r, which ends it: with Init's error, or
// when r is closed (telemetry.go).
func (r *Rows) Init(s Stream, o Options) error {
	var op telemetry.Op
	if t, ok := s.(OpStream); ok {
		op = t.TakeOp()
	}
	if err := r.init(s, o); err != nil {
		op.End(err)
		return err
	}
	r.trace(op)
	return nil
}

func (r *Rows) init(s Stream, o Options) error {
	*r = Rows{stream: s, opts: o}
	f, err := s.Recv()
	if err == io.EOF {
		err = status.Error(codes.Internal, "spannerfast: result stream ended before its metadata")
	}
	if err != nil {
		s.Close()
		return err
	}
	if err := r.load(f); err != nil {
		r.Close()
		return err
	}
	md, err := decode.ParseMetadata(r.merger.Message().Metadata)
	if err == nil && md.RowType == nil {
		err = status.Error(codes.Internal, "spannerfast: first result message has no metadata")
	}
	var plan *decode.Plan
	if err == nil {
		if o.Proto {
			plan, err = decode.ProtoPlanFor(md.RowType)
		} else {
			plan, err = decode.PlanFor(md.RowType, o.Decode)
		}
	}
	if err != nil {
		r.Close()
		return err
	}
	r.txID = append([]byte(nil), md.TransactionID...)
	if o.KeepMetadata {
		r.metadata = append([]byte{}, r.merger.Message().Metadata...)
	}
	if o.Checksum != nil {
		o.Checksum.addRowType(md.RowType)
	}
	r.readTS = md.ReadTimestamp
	r.dec.Reset(plan, o.Poison)
	if n := len(plan.Columns); n <= len(r.rowBuf) {
		r.row = r.rowBuf[:n]
	} else {
		r.row = make([][]byte, n)
	}
	return nil
}

// load makes f the current frame; the previous one stays held until no value
// aliases it.
func (r *Rows) load(f *wire.Frame) error {
	if r.cur != nil {
		r.held = append(r.held, r.cur)
	}
	r.cur = f
	if err := f.Scan(); err != nil {
		return err
	}
	r.merger.LoadScanned(&f.Msg)
	m := r.merger.Message()
	if m.Stats != nil {
		r.stats = append(r.stats[:0], m.Stats...)
	}
	if r.counting() {
		r.countValues()
	}
	if m.PrecommitToken != nil && r.opts.Precommit != nil {
		r.opts.Precommit(m.PrecommitToken)
	}
	if m.Last {
		// Read nothing more. A reader goroutine is stopped now; a plain
		// stream is left for Close, by which time its trailers have
		// usually arrived and ending it costs nothing.
		r.ended = true
		if r.prefetching {
			r.stream.Close()
		}
	}
	return nil
}

// Plan returns the decode plan of the result.
func (r *Rows) Plan() *decode.Plan { return r.dec.Plan() }

// TransactionID is the id of a transaction begun inline by the query.
func (r *Rows) TransactionID() []byte { return r.txID }

// ReadTimestamp is the read timestamp the result's metadata reported (zero
// if the request did not ask for it).
func (r *Rows) ReadTimestamp() time.Time { return r.readTS }

// Metadata returns the encoded ResultSetMetadata of the result when
// Options.KeepMetadata asked for it, else nil.
func (r *Rows) Metadata() []byte { return r.metadata }

// Stats returns the encoded ResultSetStats, once the stream has delivered it.
func (r *Rows) Stats() []byte { return r.stats }

// Columns returns the column names. The slice is shared by every Rows of
// the same result shape; database/sql does not modify it.
func (r *Rows) Columns() []string { return r.Plan().Names }

// Next decodes the next row into dest. In raw mode the values of the previous
// row become invalid here.
func (r *Rows) Next(dest []driver.Value) error {
	if r.err != nil {
		return r.err
	}
	if r.closed {
		return io.EOF
	}
	if r.opts.Decode.Raw && len(r.held) > 0 {
		r.releaseHeld()
	}
	if len(r.row) == 0 {
		return r.drain()
	}
	if r.opts.Checksum == nil {
		// The usual row: whole in the current message, decoded from it
		// directly.
		ok, err := r.dec.DecodeNext(&r.merger, dest)
		if err != nil {
			return r.fail(err)
		}
		if ok {
			if !r.opts.Decode.Raw && len(r.held) > 0 {
				r.releaseHeld()
			}
			return nil
		}
	}
	if err := r.gather(); err != nil {
		if err != io.EOF {
			return r.fail(err)
		}
		return err
	}
	if r.opts.Checksum != nil {
		r.opts.Checksum.addRow(r.row)
	}
	if err := r.dec.Decode(r.row, dest); err != nil {
		return r.fail(err)
	}
	if !r.opts.Decode.Raw {
		// Safe-mode values own their memory: nothing aliases earlier frames.
		r.releaseHeld()
	}
	return nil
}

// fail ends the rows with err, as Options.Errors makes it.
func (r *Rows) fail(err error) error {
	r.err = Hooked(r.opts.Errors, err)
	return r.err
}

// gather collects the next row's encoded values into r.row.
func (r *Rows) gather() error {
	n := len(r.row)
	if r.merger.Simple() && r.merger.Remaining() >= n {
		r.merger.NextRow(r.row)
		return nil
	}
	for i := 0; i < n; {
		v, ok, err := r.merger.Next()
		if err != nil {
			return err
		}
		if ok {
			r.row[i] = v
			i++
			continue
		}
		if err := r.advance(); err != nil {
			if err == io.EOF && i > 0 {
				return decode.ProtocolErrorf("stream ended after %d of the %d values of a row", i, n)
			}
			return err
		}
	}
	return nil
}

// advance loads the next frame, or returns io.EOF at the end.
func (r *Rows) advance() error {
	if r.ended {
		return r.end()
	}
	f, err := r.stream.Recv()
	if err == io.EOF {
		r.ended = true
		return r.end()
	}
	if err != nil {
		return err
	}
	if !r.prefetching && r.opts.Prefetch > 0 {
		// A second frame exists, so this is a long result: read ahead from
		// here on. A single-message result never gets this far.
		r.stream = startPrefetch(r.stream, r.opts.Prefetch)
		r.prefetching = true
	}
	return r.load(f)
}

func (r *Rows) end() error {
	if err := r.merger.End(); err != nil {
		return err
	}
	return io.EOF
}

// drain reads a result without columns (DML) to its end for its stats.
func (r *Rows) drain() error {
	for {
		if _, _, err := r.merger.Next(); err != nil {
			return r.fail(err)
		}
		if err := r.advance(); err != nil {
			if err != io.EOF {
				return r.fail(err)
			}
			return err
		}
	}
}

func (r *Rows) releaseHeld() {
	for i, f := range r.held {
		f.Release(r.opts.Poison)
		r.held[i] = nil
	}
	r.held = r.held[:0]
}

// Close cancels the stream if it is still running and releases its buffers.
func (r *Rows) Close() error {
	if r.closed {
		return nil
	}
	r.closed = true
	r.endOp()
	r.releaseHeld()
	r.cur.Release(r.opts.Poison)
	r.cur = nil
	r.stream.Close()
	return nil
}

// ColumnTypeScanType returns a Go type Scan can fill from column i, NULL
// included (sql.NullInt64 for INT64, []spanner.NullInt64 for ARRAY<INT64>).
func (r *Rows) ColumnTypeScanType(i int) reflect.Type { return r.Plan().Columns[i].ScanType }

// ColumnTypeDatabaseTypeName returns the GoogleSQL type name, e.g. "ARRAY<INT64>".
func (r *Rows) ColumnTypeDatabaseTypeName(i int) string { return r.Plan().Columns[i].TypeName }

// ColumnTypeNullable reports every column as nullable: Spanner's result
// metadata does not say whether a column is NOT NULL.
func (r *Rows) ColumnTypeNullable(int) (nullable, ok bool) { return true, true }
