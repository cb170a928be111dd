package partition

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"strconv"
	"testing"
	"time"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/spannerfast/spannerfast/internal/wire"
	"github.com/spannerfast/spannerfast/rows"
)

// memStream is a rows.Stream over encoded PartialResultSets in memory.
type memStream struct{ msgs [][]byte }

func (s *memStream) Recv() (*wire.Frame, error) {
	if len(s.msgs) == 0 {
		return nil, io.EOF
	}
	b := append([]byte(nil), s.msgs[0]...)
	s.msgs = s.msgs[1:]
	return wire.NewFrame(b), nil
}
func (s *memStream) Close() error { return nil }
func (s *memStream) Cancel()      {}

// int64Partition encodes n INT64 rows from first, in messages of at most
// perMsg values.
func int64Partition(t *testing.T, first, n, perMsg int) [][]byte {
	t.Helper()
	var msgs [][]byte
	for i := 0; i < n; i += perMsg {
		m := &spannerpb.PartialResultSet{}
		if i == 0 {
			m.Metadata = &spannerpb.ResultSetMetadata{RowType: &spannerpb.StructType{Fields: []*spannerpb.StructType_Field{
				{Name: "V", Type: &spannerpb.Type{Code: spannerpb.TypeCode_INT64}},
			}}}
		}
		for j := i; j < min(n, i+perMsg); j++ {
			m.Values = append(m.Values, structpb.NewStringValue(strconv.Itoa(first+j)))
		}
		b, err := proto.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		msgs = append(msgs, b)
	}
	return msgs
}

// partitions makes count partitions; the test's opener finds each one's
// messages by its token.
func partitions(count int) []*Partition {
	var parts []*Partition
	for i := range count {
		parts = append(parts, New(&spannerpb.ExecuteSqlRequest{PartitionToken: []byte{byte(i)}}, time.Time{}))
	}
	return parts
}

func opener(data [][][]byte) Opener {
	return func(ctx context.Context, p *Partition) (*rows.Rows, error) {
		return rows.Open(&memStream{msgs: data[Request(p).GetPartitionToken()[0]]}, rows.Options{})
	}
}

// TestSlowConsumer: a consumer that stops reading stops the partition
// workers: the rows decoded ahead of it never exceed the handoff depth
// plus one batch per worker, however long the partitions are.
func TestSlowConsumer(t *testing.T) {
	var data [][][]byte
	for p := range 4 {
		data = append(data, int64Partition(t, p*10000, 5000, 10))
	}
	pr, err := Open(context.Background(), partitions(4), 4, nil, opener(data), nil)
	if err != nil {
		t.Fatal(err)
	}
	dest := make([]driver.Value, 1)
	for range 3 {
		if err := pr.Next(dest); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(100 * time.Millisecond) // the workers run ahead as far as they may
	// The full channel, one batch per worker, and the batch being read.
	bound := int64((cap(pr.out) + 4 + 1) * partitionBatchRows)
	if got := pr.MaxAhead(); got != bound {
		t.Errorf("MaxAhead() = %d, want %d", got, bound)
	}
	if ahead := pr.produced.Load() - pr.consumed.Load(); ahead > bound || ahead < 1 || ahead != pr.Ahead() {
		t.Errorf("%d rows decoded ahead of the consumer (Ahead() %d), want 1..%d", ahead, pr.Ahead(), bound)
	}
	n := 3
	seen := map[int64]bool{}
	for pr.Next(dest) == nil {
		n++
		seen[dest[0].(int64)] = true
	}
	if n != 20000 {
		t.Errorf("%d rows, want 20000", n)
	}
	if len(seen) < 20000-3 {
		t.Errorf("%d distinct values after the first three rows, want %d", len(seen), 20000-3)
	}
	if err := pr.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestFirstErrorStops: a partition that fails to open ends the result
// with its error, after the rows already handed over; Close still waits
// for every worker.
func TestFirstErrorStops(t *testing.T) {
	data := [][][]byte{int64Partition(t, 0, 100, 10), nil}
	failure := status.Error(codes.Unavailable, "partition 1 is gone")
	open := func(ctx context.Context, p *Partition) (*rows.Rows, error) {
		if Request(p).GetPartitionToken()[0] == 1 {
			return nil, failure
		}
		return opener(data)(ctx, p)
	}
	pr, err := Open(context.Background(), partitions(2), 1, nil, open, nil)
	if err != nil {
		t.Fatal(err)
	}
	hook := &wrapHook{}
	pr.Errors = hook
	dest := make([]driver.Value, 1)
	n := 0
	for {
		err = pr.Next(dest)
		if err != nil {
			break
		}
		n++
	}
	if !errors.Is(err, failure) || err.Error() != "hooked: "+failure.Error() {
		t.Errorf("Next: %v, want %v through Errors", err, failure)
	}
	if again := pr.Next(dest); again != err || hook.calls != 1 {
		t.Errorf("second Next: %v; Errors called %d times, want once", again, hook.calls)
	}
	if n != 100 {
		t.Errorf("%d rows before the error, want 100", n)
	}
	if err := pr.Close(); err != nil {
		t.Fatal(err)
	}
	if err := pr.Next(dest); err != io.EOF {
		t.Errorf("Next after Close: %v, want io.EOF", err)
	}
}

// TestEncodedResult: the metadata result set of a partitioned read is the
// row type of its columns; its statistics are empty.
func TestEncodedResult(t *testing.T) {
	pr, err := Open(context.Background(), partitions(1), 1, nil, opener([][][]byte{int64Partition(t, 0, 1, 10)}), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	b, ok := pr.EncodedMetadata()
	md := new(spannerpb.ResultSetMetadata)
	if !ok || proto.Unmarshal(b, md) != nil {
		t.Fatalf("EncodedMetadata() = %x, %v", b, ok)
	}
	if f := md.GetRowType().GetFields(); len(f) != 1 || f[0].GetName() != "V" || f[0].GetType().GetCode() != spannerpb.TypeCode_INT64 {
		t.Errorf("metadata row type %v, want V INT64", md.GetRowType())
	}
	if b, ok := pr.EncodedStats(); !ok || len(b) != 0 {
		t.Errorf("EncodedStats() = %x, %v; want empty, true", b, ok)
	}
}

// wrapHook is a rows.ErrorHook that marks the errors it is given.
type wrapHook struct{ calls int }

func (h *wrapHook) RowsError(err error) error {
	h.calls++
	return fmt.Errorf("hooked: %w", err)
}
