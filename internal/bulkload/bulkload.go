package bulkload

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/spannerfast/spannerfast/internal/mutationpb"
	"github.com/spannerfast/spannerfast/internal/params"
	"github.com/spannerfast/spannerfast/internal/txn"
	"github.com/spannerfast/spannerfast/internal/wire"
)

// Source gives the rows of a load, in the manner of pgx.CopyFromSource:
// Next advances to the next row (false at the end or on failure), Values
// returns its values (the load converts them before calling Next again,
// so a source may reuse the slice), Err the failure that ended it.
type Source interface {
	Next() bool
	Values() ([]any, error)
	Err() error
}

// Mode is how rows are written.
type Mode int

const (
	// Insert fails a commit (ALREADY_EXISTS) when one of its rows exists.
	Insert Mode = iota
	// InsertOrUpdate writes the given columns of a row that exists.
	InsertOrUpdate
)

// Spanner's limits and the defaults chosen under them.
const (
	// SpannerMaxMutations is Spanner's limit of mutations per commit.
	SpannerMaxMutations = 80_000
	// SpannerMaxCommitBytes is Spanner's limit of a commit's size.
	SpannerMaxCommitBytes = 100 << 20
	// DefaultMaxBytes is the default limit of a CommitRequest's size: a
	// third of Spanner's, as index entries and storage overhead add to
	// what the request carries.
	DefaultMaxBytes = 32 << 20
	// DefaultMaxInFlight is the default number of commits in flight.
	DefaultMaxInFlight = 4
	// DefaultGroupRows is the default number of rows of a mutation group
	// with BatchWrite.
	DefaultGroupRows = 1000
	// requestOverhead is what a CommitRequest holds besides the rows: the
	// session, the table, the column names (counted exactly below), the
	// options.
	requestOverhead = 4 << 10
)

// Options says how to load.
type Options struct {
	Mode Mode
	// MaxInFlight is the most commits sent and not yet answered (0:
	// DefaultMaxInFlight).
	MaxInFlight int
	// MaxMutations is the most mutations of one commit (0:
	// SpannerMaxMutations; more is refused).
	MaxMutations int64
	// MaxBytes is the most bytes of one CommitRequest (0:
	// DefaultMaxBytes; more than SpannerMaxCommitBytes is refused).
	MaxBytes int64
	// IndexColumns is the number of columns of the table's secondary
	// indexes (key and stored columns, summed over the indexes): each row
	// written adds that many mutations.
	IndexColumns int64
	// Skip are rows of the source not to write: an earlier load's
	// Error.Committed.
	Skip []Range
	// NonAtomic sends the rows with BatchWrite, in mutation groups of
	// GroupRows rows that Spanner commits independently, instead of
	// atomic commits.
	NonAtomic bool
	// GroupRows is the most rows of a mutation group with NonAtomic (0:
	// DefaultGroupRows).
	GroupRows int
}

// Target is where rows go and how they are sent.
type Target struct {
	Table   string
	Columns []string
	// Commit commits m in a transaction of its own; an outcome it cannot
	// know is an error that errors.Is matches with
	// txn.ErrCommitOutcomeUnknown.
	Commit func(ctx context.Context, m *spannerpb.Mutation) error
	// BatchWrite sends groups in one BatchWrite call and gives each
	// response to each (NonAtomic only).
	BatchWrite func(ctx context.Context, groups []*spannerpb.BatchWriteRequest_MutationGroup, each func(*spannerpb.BatchWriteResponse) error) error
}

// RowMutations is the number of mutations Spanner counts for one row of
// a load of cols columns into a table whose secondary indexes have
// indexColumns columns in all.
func RowMutations(mode Mode, cols int, indexColumns int64) int64 {
	if mode == InsertOrUpdate {
		return int64(cols) + 2*indexColumns
	}
	return int64(cols) + indexColumns
}

func (o Options) check(cols int) (Options, error) {
	if o.MaxInFlight == 0 {
		o.MaxInFlight = DefaultMaxInFlight
	}
	if o.MaxMutations == 0 {
		o.MaxMutations = SpannerMaxMutations
	}
	if o.MaxBytes == 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	if o.GroupRows == 0 {
		o.GroupRows = DefaultGroupRows
	}
	switch {
	case cols == 0:
		return o, invalid("no columns")
	case o.Mode != Insert && o.Mode != InsertOrUpdate:
		return o, invalid("unknown mode %d", o.Mode)
	case o.MaxInFlight < 0:
		return o, invalid("max in flight %d is negative", o.MaxInFlight)
	case o.MaxMutations < 0 || o.MaxMutations > SpannerMaxMutations:
		return o, invalid("max mutations %d is not in [1, %d]", o.MaxMutations, SpannerMaxMutations)
	case o.MaxBytes < 0 || o.MaxBytes > SpannerMaxCommitBytes:
		return o, invalid("max bytes %d is not in [1, %d]", o.MaxBytes, SpannerMaxCommitBytes)
	case o.GroupRows < 0:
		return o, invalid("group rows %d is negative", o.GroupRows)
	case RowMutations(o.Mode, cols, o.IndexColumns) > o.MaxMutations:
		return o, invalid("one row counts %d mutations (%d columns and %d index columns), more than the limit of %d",
			RowMutations(o.Mode, cols, o.IndexColumns), cols, o.IndexColumns, o.MaxMutations)
	}
	return o, nil
}

func invalid(format string, args ...any) error {
	return status.Errorf(codes.InvalidArgument, "spannerfast: CopyFrom: "+format, args...)
}

// batch is the rows of one commit.
type batch struct {
	rows  []int64 // source index of each row of write.Values
	write *spannerpb.Mutation_Write
	muts  int64
	bytes int64
}

// Load writes the rows of src to t and returns the number committed. On
// failure the error is an *Error that accounts for every row read, once
// every commit sent has been answered.
func Load(ctx context.Context, t Target, src Source, o Options) (int64, error) {
	o, err := o.check(len(t.Columns))
	if err != nil {
		return 0, err
	}
	l := &loader{t: t, o: o, sem: make(chan struct{}, o.MaxInFlight), rowMuts: RowMutations(o.Mode, len(t.Columns), o.IndexColumns)}
	l.group = int64(len(t.Table)) + 32 // a group's, a mutation's and a write's tags and lengths
	for _, c := range t.Columns {
		l.group += int64(len(c)) + 4
	}
	l.head = requestOverhead + l.group
	skip := merge(append([]Range(nil), o.Skip...))
	var (
		b   = l.newBatch()
		idx int64
		row = int64(-1)
	)
	for ; ; idx++ {
		if l.stopped() {
			break
		}
		if err := ctx.Err(); err != nil {
			l.failed(status.FromContextError(err).Err())
			break
		}
		if !src.Next() {
			if err := src.Err(); err != nil {
				l.failed(err)
			}
			break
		}
		for len(skip) > 0 && skip[0].End <= idx {
			skip = skip[1:]
		}
		if len(skip) > 0 && skip[0].Start <= idx {
			continue
		}
		lv, size, err := l.encode(src)
		if err != nil {
			row = idx
			l.failed(err)
			idx++ // read
			break
		}
		if len(b.rows) > 0 && (b.muts+l.rowMuts > o.MaxMutations || b.bytes+size+l.groupBytes(b) > o.MaxBytes) {
			if !l.send(ctx, b) {
				b = l.newBatch()
				idx++ // this row was read and not sent
				l.account(&l.notCommitted, []int64{idx - 1})
				break
			}
			b = l.newBatch()
		}
		size += l.groupBytes(b)
		if b.bytes+size > o.MaxBytes {
			row = idx
			l.failed(invalid("the row's %d bytes make a request larger than the limit of %d", size, o.MaxBytes))
			idx++
			break
		}
		b.rows = append(b.rows, idx)
		b.write.Values = append(b.write.Values, lv)
		b.muts += l.rowMuts
		b.bytes += size
	}
	if len(b.rows) > 0 {
		if l.stopped() {
			l.account(&l.notCommitted, b.rows)
		} else {
			l.send(ctx, b)
		}
	}
	l.wg.Wait()
	if l.err == nil {
		return l.committed, nil
	}
	if row >= 0 {
		l.account(&l.notCommitted, []int64{row})
	}
	return l.committed, &Error{
		Committed:    merge(l.committedRanges),
		NotCommitted: merge(l.notCommitted),
		Unknown:      merge(l.unknown),
		Read:         idx,
		Row:          row,
		Err:          l.err,
	}
}

type loader struct {
	t       Target
	o       Options
	sem     chan struct{}
	wg      sync.WaitGroup
	rowMuts int64
	head    int64 // the bytes of a request besides its rows
	group   int64 // the bytes of a mutation group besides its rows (NonAtomic)

	stop            atomic.Bool // err is set
	mu              sync.Mutex
	err             error // the first failure
	committed       int64
	committedRanges []Range
	notCommitted    []Range
	unknown         []Range
}

func (l *loader) newBatch() *batch {
	return &batch{write: &spannerpb.Mutation_Write{Table: l.t.Table, Columns: l.t.Columns}, bytes: l.head}
}

// groupBytes is what the next row of b adds to a BatchWrite request
// besides itself: with NonAtomic, a row that begins a mutation group
// brings the group's table and columns.
func (l *loader) groupBytes(b *batch) int64 {
	if l.o.NonAtomic && len(b.rows)%l.o.GroupRows == 0 {
		return l.group
	}
	return 0
}

// encode converts the source's current row and returns it with the
// bytes it adds to a request.
func (l *loader) encode(src Source) (*structpb.ListValue, int64, error) {
	vals, err := src.Values()
	if err != nil {
		return nil, 0, err
	}
	if len(vals) != len(l.t.Columns) {
		return nil, 0, invalid("%d values for %d columns", len(vals), len(l.t.Columns))
	}
	lv, err := mutationpb.EncodeRow(l.t.Table, l.t.Columns, vals)
	if err == nil {
		err = params.CheckRowUTF8(l.t.Table, l.t.Columns, lv)
	}
	if err != nil {
		return nil, 0, err
	}
	n := wire.ListSize(lv)
	return lv, int64(1 + protowire.SizeVarint(uint64(n)) + n), nil
}

// stopped reports whether the load failed (checked once a row).
func (l *loader) stopped() bool { return l.stop.Load() }

// failed records the first failure; the load sends nothing more.
func (l *loader) failed(err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err == nil {
		l.err = err
		l.stop.Store(true)
	}
}

// send starts the commit of b once fewer than MaxInFlight are in flight.
// It reports false, with b's rows not committed, when the load stopped
// or ctx ended while waiting.
func (l *loader) send(ctx context.Context, b *batch) bool {
	select {
	case l.sem <- struct{}{}:
	case <-ctx.Done():
		l.failed(status.FromContextError(ctx.Err()).Err())
		l.account(&l.notCommitted, b.rows)
		return false
	}
	if l.stopped() {
		<-l.sem
		l.account(&l.notCommitted, b.rows)
		return false
	}
	l.wg.Add(1)
	go func() {
		defer func() { <-l.sem; l.wg.Done() }()
		if l.o.NonAtomic {
			l.batchWrite(ctx, b)
		} else {
			l.commit(ctx, b)
		}
	}()
	return true
}

func (l *loader) mutation(w *spannerpb.Mutation_Write) *spannerpb.Mutation {
	if l.o.Mode == InsertOrUpdate {
		return &spannerpb.Mutation{Operation: &spannerpb.Mutation_InsertOrUpdate{InsertOrUpdate: w}}
	}
	return &spannerpb.Mutation{Operation: &spannerpb.Mutation_Insert{Insert: w}}
}

func (l *loader) commit(ctx context.Context, b *batch) {
	err := l.t.Commit(ctx, l.mutation(b.write))
	switch {
	case err == nil:
		l.account(&l.committedRanges, b.rows)
	case errors.Is(err, txn.ErrCommitOutcomeUnknown):
		l.account(&l.unknown, b.rows)
	default:
		l.account(&l.notCommitted, b.rows)
	}
	if err != nil {
		l.failed(fmt.Errorf("commit of rows %s: %w", ranges(merge(toRanges(b.rows))), err))
	}
}

// batchWrite sends b's rows as mutation groups of GroupRows rows with
// BatchWrite: each group is committed or refused on its own.
func (l *loader) batchWrite(ctx context.Context, b *batch) {
	var groups []*spannerpb.BatchWriteRequest_MutationGroup
	var rows [][]int64
	for start := 0; start < len(b.rows); start += l.o.GroupRows {
		end := min(start+l.o.GroupRows, len(b.rows))
		w := &spannerpb.Mutation_Write{Table: b.write.Table, Columns: b.write.Columns, Values: b.write.Values[start:end]}
		groups = append(groups, &spannerpb.BatchWriteRequest_MutationGroup{Mutations: []*spannerpb.Mutation{l.mutation(w)}})
		rows = append(rows, b.rows[start:end])
	}
	answered := make([]bool, len(groups))
	var first error
	err := l.t.BatchWrite(ctx, groups, func(resp *spannerpb.BatchWriteResponse) error {
		st := resp.GetStatus()
		for _, i := range resp.GetIndexes() {
			if i < 0 || int(i) >= len(groups) || answered[i] {
				return status.Errorf(codes.Internal, "spannerfast: BatchWrite answered for group %d of %d twice or out of range", i, len(groups))
			}
			answered[i] = true
			if st.GetCode() == int32(codes.OK) {
				l.account(&l.committedRanges, rows[i])
				continue
			}
			l.account(&l.notCommitted, rows[i])
			if first == nil {
				first = fmt.Errorf("mutation group of rows %s: %w", ranges(merge(toRanges(rows[i]))), status.ErrorProto(st))
			}
		}
		return nil
	})
	for i, done := range answered {
		if !done {
			// Not answered: the stream broke off, and the group may or
			// may not have been applied.
			l.account(&l.unknown, rows[i])
			if err == nil {
				err = status.Errorf(codes.Internal, "spannerfast: BatchWrite ended without an answer for group %d", i)
			}
		}
	}
	if first != nil {
		l.failed(first)
	} else if err != nil {
		l.failed(err)
	}
}

// account adds the rows to the list, and to the count when they are the
// committed ones.
func (l *loader) account(list *[]Range, rows []int64) {
	rs := toRanges(rows)
	l.mu.Lock()
	defer l.mu.Unlock()
	*list = append(*list, rs...)
	if list == &l.committedRanges {
		l.committed += int64(len(rows))
	}
}

// toRanges turns ascending row indexes into ranges.
func toRanges(rows []int64) []Range {
	var rs []Range
	for _, r := range rows {
		if n := len(rs); n > 0 && rs[n-1].End == r {
			rs[n-1].End++
			continue
		}
		rs = append(rs, Range{r, r + 1})
	}
	return rs
}
