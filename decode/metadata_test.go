package decode

import (
	"testing"
	"time"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"
)

func TestParseMetadataTransaction(t *testing.T) {
	ts := time.Date(2026, 12, 2, 16, 0, 0, 123456789, time.UTC)
	b, err := proto.Marshal(&spannerpb.ResultSetMetadata{
		RowType:     &spannerpb.StructType{},
		Transaction: &spannerpb.Transaction{Id: []byte("tx-1"), ReadTimestamp: timestamppb.New(ts)},
	})
	if err != nil {
		t.Fatal(err)
	}
	md, err := ParseMetadata(b)
	if err != nil {
		t.Fatal(err)
	}
	if string(md.TransactionID) != "tx-1" || !md.ReadTimestamp.Equal(ts) {
		t.Fatalf("ParseMetadata = id %q, read timestamp %v; want tx-1, %v", md.TransactionID, md.ReadTimestamp, ts)
	}

	// Out-of-range nanos are malformed data, not a silently wrong time.
	bad, _ := proto.Marshal(&spannerpb.ResultSetMetadata{
		Transaction: &spannerpb.Transaction{ReadTimestamp: &timestamppb.Timestamp{Seconds: 1, Nanos: 1e9}},
	})
	if _, err := ParseMetadata(bad); err == nil {
		t.Fatal("ParseMetadata accepted a read timestamp with nanos = 1e9")
	}
	// Truncated transaction field.
	if _, err := ParseMetadata(b[:len(b)-1]); err == nil {
		t.Fatal("ParseMetadata accepted truncated metadata")
	}
}
