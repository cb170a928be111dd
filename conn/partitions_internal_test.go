package conn

import (
	"context"
	"database/sql/driver"
	"strconv"
	"testing"
	"time"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/spannerfast/spannerfast/dsn"
	"github.com/spannerfast/spannerfast/internal/fakespanner"
	"github.com/spannerfast/spannerfast/internal/partition"
	"github.com/spannerfast/spannerfast/internal/transport"
)

// TestPartitionedSlowConsumer: a consumer that stops reading stops the
// partition workers: the rows decoded ahead of it never exceed the handoff
// depth plus one batch per worker, however long the partitions are.
func TestPartitionedSlowConsumer(t *testing.T) {
	s := fakespanner.Start(t)
	const q = "SELECT V FROM Big"
	var parts []*fakespanner.Result
	for p := range 4 {
		rs := &spannerpb.ResultSet{Metadata: &spannerpb.ResultSetMetadata{RowType: &spannerpb.StructType{Fields: []*spannerpb.StructType_Field{
			{Name: "V", Type: &spannerpb.Type{Code: spannerpb.TypeCode_INT64}},
		}}}}
		for i := range 5000 {
			rs.Rows = append(rs.Rows, &structpb.ListValue{Values: []*structpb.Value{structpb.NewStringValue(strconv.Itoa(p*10000 + i))}})
		}
		parts = append(parts, &fakespanner.Result{ResultSet: rs, Split: fakespanner.SplitOptions{MaxValues: 10}})
	}
	s.AddPartitions(q, parts...)
	cfg, err := dsn.Parse(s.Addr() + "/projects/p/instances/i/databases/d;usePlainText=true")
	if err != nil {
		t.Fatal(err)
	}
	client, err := transport.NewClient(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	c := New(client, NewStatementCache(cfg))
	for _, raw := range []bool{false, true} {
		r, err := c.QueryContext(context.Background(), q, []driver.NamedValue{{Ordinal: 1, Value: QueryOptions{AutoPartition: &[]bool{true}[0], MaxParallelism: 4, RawDecode: &raw}}})
		if err != nil {
			t.Fatal(err)
		}
		pr := r.(*partition.Rows)
		dest := make([]driver.Value, 1)
		for range 3 {
			if err := pr.Next(dest); err != nil {
				t.Fatal(err)
			}
		}
		time.Sleep(100 * time.Millisecond) // the workers run ahead as far as they may
		// The full channel, one batch per worker, and the batch being read
		// (internal/partition checks MaxAhead against its handoff).
		bound := pr.MaxAhead()
		if ahead := pr.Ahead(); ahead > bound || ahead < 1 {
			t.Errorf("raw %v: %d rows decoded ahead of the consumer, want 1..%d", raw, ahead, bound)
		}
		n := 3
		for pr.Next(dest) == nil {
			n++
		}
		if n != 20000 {
			t.Errorf("raw %v: %d rows, want 20000", raw, n)
		}
		pr.Close()
	}
}
