package wire

import (
	"strings"
	"testing"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/proto"
)

// TestMarshalMatchesProto checks the pooled encoding against proto.Marshal
// for a request that fits the pooled buffer and one that outgrows it, and
// that the pooled buffer can be freed (as gRPC frees it) without changing
// a later request's bytes.
func TestMarshalMatchesProto(t *testing.T) {
	for _, sql := range []string{"SELECT 1", strings.Repeat("x", 3*requestBufferSize)} {
		req := &spannerpb.ExecuteSqlRequest{Session: "projects/p/instances/i/databases/d/sessions/s", Sql: sql}
		want, err := proto.Marshal(req)
		if err != nil {
			t.Fatal(err)
		}
		for range 3 {
			got, err := StreamCodec{}.Marshal(req)
			if err != nil {
				t.Fatal(err)
			}
			if b := got.Materialize(); string(b) != string(want) {
				t.Fatalf("request of %d bytes of SQL: encoding differs from proto.Marshal", len(sql))
			}
			got.Free()
		}
	}
}

func TestMarshalRefusesNonProto(t *testing.T) {
	if _, err := (StreamCodec{}).Marshal("not a message"); err == nil || !strings.Contains(err.Error(), "string") {
		t.Fatalf("want an error naming the type, got %v", err)
	}
}

// TestUnaryCodec: a batch's request goes out as proto.Marshal writes it,
// and a response comes back as proto.Unmarshal reads it.
func TestUnaryCodec(t *testing.T) {
	req := &spannerpb.ExecuteBatchDmlRequest{Session: "s", Seqno: 3, Statements: []*spannerpb.ExecuteBatchDmlRequest_Statement{{Sql: "UPDATE T SET a = 1 WHERE TRUE"}}}
	want, err := proto.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	got, err := UnaryCodec{}.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	if b := got.Materialize(); string(b) != string(want) {
		t.Fatalf("encoding %x, want %x", b, want)
	}
	got.Free()
	resp := &spannerpb.ResultSet{Stats: &spannerpb.ResultSetStats{RowCount: &spannerpb.ResultSetStats_RowCountExact{RowCountExact: 7}}}
	b, err := proto.Marshal(resp)
	if err != nil {
		t.Fatal(err)
	}
	var back spannerpb.ResultSet
	if err := (UnaryCodec{}).Unmarshal(mem.BufferSlice{mem.SliceBuffer(b)}, &back); err != nil {
		t.Fatal(err)
	}
	if !proto.Equal(&back, resp) {
		t.Fatalf("decoded %v, want %v", &back, resp)
	}
	if err := (UnaryCodec{}).Unmarshal(mem.BufferSlice{mem.SliceBuffer(b)}, "x"); err == nil {
		t.Fatal("unmarshalled into a string")
	}
}
