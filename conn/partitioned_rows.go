package conn

import (
	"context"
	"database/sql/driver"
	"errors"
	"io"
	"reflect"
	"sync"
	"sync/atomic"

	"github.com/spannerfast/spannerfast/decode"
	"github.com/spannerfast/spannerfast/rows"
)

// partitionedRows reads the partitions of one query concurrently and hands
// their rows to Next as one result.
//
// Each partition is an ordinary stream (Conn.stream: rows.Open, the
// resumable stream, the same decoder), read by a worker goroutine; at most
// `workers` partitions are open at once, and a worker takes the next
// unread partition when its own ends, so every partition is read exactly
// once. Rows of one partition keep their order; rows of different
// partitions interleave.
//
// Workers hand decoded rows over a bounded channel: when the consumer is
// slow the channel fills, the workers block, their streams stop being read
// and gRPC flow control stops the server. Memory is bounded by the channel
// depth plus, per worker, one row and the stream's read-ahead.
//
// Raw mode: a raw value aliases its partition stream's buffers until that
// stream's next Next. A worker therefore waits, after handing over a row,
// until the consumer has moved past it (the consumer's next Next or Close
// acknowledges it) before decoding its next row. Every raw value stays
// valid exactly until the next Next or Close, as for a single stream;
// the partitions still stream in parallel, one row in flight each.
//
// The first error of any partition stops all of them (the others are
// cancelled) and Next returns it after the rows already handed over. Close
// cancels every partition and waits until all workers have left.
type partitionedRows struct {
	plan *decode.Plan
	raw  bool

	out    chan handoff        // decoded rows, bounded
	free   chan []driver.Value // safe mode: row slices to reuse
	stop   chan struct{}       // closed to stop the workers
	exited chan struct{}       // closed when every worker has left
	cancel context.CancelFunc  // cancels every partition's stream
	halt   sync.Once           // closes stop and cancels
	ack    chan<- struct{}     // raw mode: acknowledges the row last returned
	errMu  sync.Mutex          //
	err    error               // the first partition error
	closed bool                // consumer side only

	produced atomic.Int64 // rows decoded by workers (tests measure the bound)
	consumed atomic.Int64 // rows returned by Next
}

// handoff is one decoded row; ack is set in raw mode.
type handoff struct {
	vals []driver.Value
	ack  chan struct{}
}

// partitionOpener opens one partition's stream; it returns once the first
// response arrived.
type partitionOpener func(ctx context.Context, p *Partition) (*rows.Rows, error)

// rowsPerWorker is the channel depth per worker in safe mode: enough to
// keep the consumer fed while a worker waits for its next message.
const rowsPerWorker = 8

// errStopped ends a worker that was told to stop; it is never reported.
var errStopped = errors.New("partitioned read stopped")

// openPartitioned opens the first partition (so a failing query fails here
// and the columns are known) and starts the workers. parts is not empty.
func openPartitioned(ctx context.Context, parts []*Partition, workers int, raw bool, open partitionOpener) (*partitionedRows, error) {
	ctx, cancel := context.WithCancel(ctx)
	first, err := open(ctx, parts[0])
	if err != nil {
		cancel()
		return nil, err
	}
	workers = max(1, min(workers, len(parts)))
	depth := workers * rowsPerWorker
	if raw {
		depth = workers
	}
	p := &partitionedRows{
		plan:   first.Plan(),
		raw:    raw,
		out:    make(chan handoff, depth),
		free:   make(chan []driver.Value, depth+workers),
		stop:   make(chan struct{}),
		exited: make(chan struct{}),
		cancel: cancel,
	}
	var next atomic.Int64 // partitions handed to workers; the first is taken
	next.Store(1)
	var wg sync.WaitGroup
	wg.Add(workers)
	for w := range workers {
		r := first
		if w > 0 {
			r = nil
		}
		go p.work(ctx, &wg, r, parts, &next, open)
	}
	go func() {
		wg.Wait()
		close(p.out)
		close(p.exited)
	}()
	return p, nil
}

// work reads partitions until none is left or the read stops; r is an
// already opened one, or nil.
func (p *partitionedRows) work(ctx context.Context, wg *sync.WaitGroup, r *rows.Rows, parts []*Partition, next *atomic.Int64, open partitionOpener) {
	defer wg.Done()
	var ack chan struct{}
	if p.raw {
		ack = make(chan struct{}, 1)
	}
	for {
		if r == nil {
			i := int(next.Add(1) - 1)
			if i >= len(parts) {
				return
			}
			var err error
			if r, err = open(ctx, parts[i]); err != nil {
				p.fail(err)
				return
			}
		}
		err := p.drain(r, ack)
		r.Close()
		r = nil
		if err != nil {
			if err != errStopped {
				p.fail(err)
			}
			return
		}
	}
}

// drain hands every row of r to the consumer.
func (p *partitionedRows) drain(r *rows.Rows, ack chan struct{}) error {
	var rawVals []driver.Value // raw mode: one slice per worker, reused after each ack
	for {
		vals := rawVals
		if vals == nil {
			vals = p.buffer()
		}
		if err := r.Next(vals); err != nil {
			if err == io.EOF {
				return nil
			}
			return err
		}
		p.produced.Add(1)
		select {
		case p.out <- handoff{vals: vals, ack: ack}:
		case <-p.stop:
			return errStopped
		}
		if ack == nil {
			continue
		}
		rawVals = vals
		select {
		case <-ack:
		case <-p.stop:
			return errStopped
		}
	}
}

// buffer returns a row slice: a recycled one, or a new one.
func (p *partitionedRows) buffer() []driver.Value {
	select {
	case v := <-p.free:
		return v
	default:
		return make([]driver.Value, len(p.plan.Columns))
	}
}

// fail records the first error and stops every partition.
func (p *partitionedRows) fail(err error) {
	p.errMu.Lock()
	if p.err == nil {
		p.err = err
	}
	p.errMu.Unlock()
	p.stopAll()
}

func (p *partitionedRows) stopAll() {
	p.halt.Do(func() {
		close(p.stop)
		p.cancel()
	})
}

// Next returns the next row of any partition. In raw mode the previous
// row's values become invalid here.
func (p *partitionedRows) Next(dest []driver.Value) error {
	if p.closed {
		return io.EOF
	}
	p.release()
	h, ok := <-p.out
	if !ok {
		p.errMu.Lock()
		defer p.errMu.Unlock()
		if p.err != nil {
			return p.err
		}
		return io.EOF
	}
	p.consumed.Add(1)
	copy(dest, h.vals)
	if h.ack != nil {
		p.ack = h.ack
		return nil
	}
	clear(h.vals) // safe values own their memory: drop the references
	select {
	case p.free <- h.vals:
	default:
	}
	return nil
}

// release lets the worker of the row last returned decode its next row
// (raw mode).
func (p *partitionedRows) release() {
	if p.ack != nil {
		p.ack <- struct{}{} // room for one: the worker took the previous ack
		p.ack = nil
	}
}

// Close stops every partition and waits until all workers have left
// (their streams closed and buffers released).
func (p *partitionedRows) Close() error {
	if p.closed {
		return nil
	}
	p.closed = true
	p.stopAll()
	<-p.exited
	return nil
}

// Columns returns the column names of the result.
func (p *partitionedRows) Columns() []string { return p.plan.Names }

// ColumnTypeScanType is as for a single stream (rows.Rows).
func (p *partitionedRows) ColumnTypeScanType(i int) reflect.Type {
	return p.plan.Columns[i].ScanType
}

// ColumnTypeDatabaseTypeName is as for a single stream (rows.Rows).
func (p *partitionedRows) ColumnTypeDatabaseTypeName(i int) string {
	return p.plan.Columns[i].TypeName
}

// ColumnTypeNullable reports every column as nullable, as rows.Rows does.
func (p *partitionedRows) ColumnTypeNullable(int) (nullable, ok bool) { return true, true }

var (
	_ driver.Rows                           = (*partitionedRows)(nil)
	_ driver.RowsColumnTypeScanType         = (*partitionedRows)(nil)
	_ driver.RowsColumnTypeDatabaseTypeName = (*partitionedRows)(nil)
	_ driver.RowsColumnTypeNullable         = (*partitionedRows)(nil)
)
