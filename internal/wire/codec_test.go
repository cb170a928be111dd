package wire

import (
	"strings"
	"testing"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
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
