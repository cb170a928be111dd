package partition

import (
	"context"
	"database/sql/driver"
	"errors"
	"io"
	"reflect"
	"sync"
	"sync/atomic"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/protobuf/proto"

	"github.com/spannerfast/spannerfast/decode"
	"github.com/spannerfast/spannerfast/internal/telemetry"
	"github.com/spannerfast/spannerfast/rows"
)

// Rows reads the partitions of one query concurrently and hands their rows
// to Next as one result.
//
// Each partition is an ordinary stream (what the Opener gives: rows.Open
// over the resumable stream, the same decoder), read by a worker goroutine; at most
// `workers` partitions are open at once, and a worker takes the next
// unread partition when its own ends, so every partition is read exactly
// once. Rows of one partition keep their order; rows of different
// partitions interleave.
//
// Workers decode in safe mode, whatever raw_decode says: a decoded value
// owns its memory, so a worker can decode its next rows while the consumer
// still holds earlier ones, which is what lets partitions decode in
// parallel. (Raw values alias their stream's buffers until that stream's
// next row: a worker would have to wait for the consumer after every row,
// and the partitions would decode one row at a time.) Values are therefore
// valid after Next too, which keeps raw mode's promise and more.
//
// Workers hand rows over in batches of up to partitionBatchRows through a
// bounded channel, so the handoff costs a channel operation per batch, not
// per row. When the consumer is slow the channel fills, the workers block,
// their streams stop being read and gRPC flow control stops the server.
// Memory is bounded by the channel depth plus one batch per worker (plus
// each stream's read-ahead).
//
// The first error of any partition stops all of them (the others are
// cancelled) and Next returns it after the rows already handed over. Close
// cancels every partition and waits until all workers have left.
//
// Each partition is read in a span of its own (telemetry.Partition), child
// of the span in Open's context, from its opening to its last row or its
// failure.
type Rows struct {
	plan *decode.Plan
	cols int

	out    chan *rowBatch     // decoded rows, bounded
	free   chan *rowBatch     // batches to reuse
	stop   chan struct{}      // closed to stop the workers
	exited chan struct{}      // closed when every worker has left
	cancel context.CancelFunc // cancels every partition's stream
	halt   sync.Once          // closes stop and cancels
	errMu  sync.Mutex         //
	err    error              // the first partition error
	closed bool               // consumer side only
	cur    *rowBatch          // consumer side: the batch being returned
	pos    int                // consumer side: next row of cur

	// Errors, when set (before the first Next), is given the error that
	// ends the rows, on the consumer's goroutine (rows.Options.Errors).
	Errors rows.ErrorHook
	errOut error // the error Next returns, Errors applied (consumer side)

	workers  int          // partitions read at once
	produced atomic.Int64 // rows decoded by workers (Ahead)
	consumed atomic.Int64 // rows returned by Next
}

// rowBatch is up to partitionBatchRows decoded rows, row-major.
type rowBatch struct {
	vals []driver.Value
	n    int
}

// Opener opens one partition's stream; it returns once the first response
// arrived.
type Opener func(ctx context.Context, p *Partition) (*rows.Rows, error)

const (
	// partitionBatchRows is how many rows a worker hands over at once.
	partitionBatchRows = 64
	// batchesPerWorker is the channel depth per worker: enough to keep the
	// consumer fed while a worker waits for its next message.
	batchesPerWorker = 2
)

// errStopped ends a worker that was told to stop; it is never reported.
var errStopped = errors.New("partitioned read stopped")

// Open opens the first partition (so a failing query fails here
// and the columns are known) and starts the workers. parts is not empty;
// open must decode in safe mode. tel traces each partition's read (nil:
// nothing is traced). done, if not nil, is called once every worker has
// left (never when Open fails): what the workers' opener holds can go then.
func Open(ctx context.Context, parts []*Partition, workers int, tel *telemetry.Telemetry, open Opener, done func()) (*Rows, error) {
	ctx, cancel := context.WithCancel(ctx)
	first, err := openTraced(ctx, tel, parts[0], 0, open)
	if err != nil {
		cancel()
		return nil, err
	}
	workers = max(1, min(workers, len(parts)))
	depth := workers * batchesPerWorker
	p := &Rows{
		plan:    first.rows.Plan(),
		cols:    len(first.rows.Plan().Columns),
		out:     make(chan *rowBatch, depth),
		free:    make(chan *rowBatch, depth+workers+1),
		stop:    make(chan struct{}),
		exited:  make(chan struct{}),
		cancel:  cancel,
		workers: workers,
	}
	var next atomic.Int64 // partitions handed to workers; the first is taken
	next.Store(1)
	var wg sync.WaitGroup
	wg.Add(workers)
	for w := range workers {
		r := first
		if w > 0 {
			r = opened{}
		}
		go p.work(ctx, &wg, r, parts, &next, tel, open)
	}
	go func() {
		wg.Wait()
		if done != nil {
			done()
		}
		close(p.out)
		close(p.exited)
	}()
	return p, nil
}

// opened is a partition being read and the span of its read.
type opened struct {
	rows *rows.Rows // nil: none
	op   telemetry.Op
}

// openTraced opens partition i in a span of its own (ended here if the
// opening fails).
func openTraced(ctx context.Context, tel *telemetry.Telemetry, part *Partition, i int, open Opener) (opened, error) {
	ctx, op := tel.Start(ctx, telemetry.Partition, Request(part).GetSql())
	if op.Recording() {
		op.SetAttributes(telemetry.KeyPartitionIndex.Int(i))
	}
	r, err := open(ctx, part)
	if err != nil {
		op.End(err)
		return opened{}, err
	}
	return opened{rows: r, op: op}, nil
}

// work reads partitions until none is left or the read stops; r is an
// already opened one, or none.
func (p *Rows) work(ctx context.Context, wg *sync.WaitGroup, r opened, parts []*Partition, next *atomic.Int64, tel *telemetry.Telemetry, open Opener) {
	defer wg.Done()
	for {
		if r.rows == nil {
			i := int(next.Add(1) - 1)
			if i >= len(parts) {
				return
			}
			var err error
			if r, err = openTraced(ctx, tel, parts[i], i, open); err != nil {
				p.fail(err)
				return
			}
		}
		err := p.drain(r.rows, &r.op)
		r.rows.Close()
		if err == errStopped {
			r.op.End(nil) // the consumer stopped the read: no failure of this partition
		} else {
			r.op.End(err)
		}
		r = opened{}
		if err != nil {
			if err != errStopped {
				p.fail(err)
			}
			return
		}
	}
}

// drain hands every row of r to the consumer, a batch at a time, and
// counts them on op.
func (p *Rows) drain(r *rows.Rows, op *telemetry.Op) error {
	b := p.batch()
	for {
		err := r.Next(b.vals[b.n*p.cols : (b.n+1)*p.cols])
		if err == nil {
			b.n++
			p.produced.Add(1)
			if b.n < partitionBatchRows {
				continue
			}
		}
		if b.n > 0 {
			op.AddRows(int64(b.n))
			select {
			case p.out <- b:
			case <-p.stop:
				return errStopped
			}
			b = p.batch()
		}
		switch err {
		case nil:
		case io.EOF:
			p.recycle(b)
			return nil
		default:
			return err
		}
	}
}

// batch returns an empty batch: a recycled one, or a new one.
func (p *Rows) batch() *rowBatch {
	select {
	case b := <-p.free:
		return b
	default:
		return &rowBatch{vals: make([]driver.Value, partitionBatchRows*p.cols)}
	}
}

// recycle drops b's references (the values belong to whoever scanned
// them) and keeps it for reuse.
func (p *Rows) recycle(b *rowBatch) {
	clear(b.vals[:b.n*p.cols])
	b.n = 0
	select {
	case p.free <- b:
	default:
	}
}

// fail records the first error and stops every partition.
func (p *Rows) fail(err error) {
	p.errMu.Lock()
	if p.err == nil {
		p.err = err
	}
	p.errMu.Unlock()
	p.stopAll()
}

func (p *Rows) stopAll() {
	p.halt.Do(func() {
		close(p.stop)
		p.cancel()
	})
}

// Next returns the next row of any partition.
func (p *Rows) Next(dest []driver.Value) error {
	if p.closed {
		return io.EOF
	}
	if p.cur == nil || p.pos == p.cur.n {
		if p.cur != nil {
			p.recycle(p.cur)
			p.cur = nil
		}
		b, ok := <-p.out
		if !ok {
			return p.end()
		}
		p.cur, p.pos = b, 0
	}
	copy(dest, p.cur.vals[p.pos*p.cols:(p.pos+1)*p.cols])
	p.pos++
	p.consumed.Add(1)
	return nil
}

// end is what Next returns once every worker has left: the first
// partition error (through Errors, once) or io.EOF.
func (p *Rows) end() error {
	if p.errOut != nil {
		return p.errOut
	}
	p.errMu.Lock()
	err := p.err
	p.errMu.Unlock()
	if err == nil {
		return io.EOF
	}
	p.errOut = rows.Hooked(p.Errors, err)
	return p.errOut
}

// Close stops every partition and waits until all workers have left
// (their streams closed and buffers released).
func (p *Rows) Close() error {
	if p.closed {
		return nil
	}
	p.closed = true
	p.stopAll()
	<-p.exited
	return nil
}

// Ahead is how many rows the workers decoded that Next has not returned
// yet (tests check the bound on memory with it).
func (p *Rows) Ahead() int64 { return p.produced.Load() - p.consumed.Load() }

// MaxAhead is the most Ahead can be, however slow the consumer: the
// handoff's depth, one batch per worker and the batch being read.
func (p *Rows) MaxAhead() int64 {
	return int64((p.workers*batchesPerWorker + p.workers + 1) * partitionBatchRows)
}

// Columns returns the column names of the result.
func (p *Rows) Columns() []string { return p.plan.Names }

// ColumnTypeScanType is as for a single stream (rows.Rows).
func (p *Rows) ColumnTypeScanType(i int) reflect.Type {
	return p.plan.Columns[i].ScanType
}

// ColumnTypeDatabaseTypeName is as for a single stream (rows.Rows).
func (p *Rows) ColumnTypeDatabaseTypeName(i int) string {
	return p.plan.Columns[i].TypeName
}

// ColumnTypeNullable reports every column as nullable, as rows.Rows does.
func (p *Rows) ColumnTypeNullable(int) (nullable, ok bool) { return true, true }

// EncodedMetadata is a row type made from the plan's columns (names and
// types): the partitions' streams are not kept.
func (p *Rows) EncodedMetadata() ([]byte, bool) {
	md := &spannerpb.ResultSetMetadata{RowType: &spannerpb.StructType{}}
	for _, c := range p.plan.Columns {
		md.RowType.Fields = append(md.RowType.Fields, &spannerpb.StructType_Field{Name: c.Name, Type: c.Type})
	}
	b, err := proto.Marshal(md)
	return b, err == nil
}

// EncodedStats is empty, as go-sql-spanner's statistics of a partitioned
// query.
func (p *Rows) EncodedStats() ([]byte, bool) { return nil, true }

var (
	_ driver.Rows                           = (*Rows)(nil)
	_ driver.RowsColumnTypeScanType         = (*Rows)(nil)
	_ driver.RowsColumnTypeDatabaseTypeName = (*Rows)(nil)
	_ driver.RowsColumnTypeNullable         = (*Rows)(nil)
	_ rows.Encoded                          = (*Rows)(nil)
)
