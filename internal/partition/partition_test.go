package partition_test

import (
	"bytes"
	"testing"
	"time"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/spannerfast/spannerfast/internal/partition"
)

func sample() *partition.Partition {
	req := &spannerpb.ExecuteSqlRequest{
		Session:          "projects/p/instances/i/databases/d/sessions/s",
		Transaction:      &spannerpb.TransactionSelector{Selector: &spannerpb.TransactionSelector_Id{Id: []byte("tx")}},
		Sql:              "SELECT 1",
		PartitionToken:   []byte("token"),
		DataBoostEnabled: true,
	}
	return partition.New(req, time.Unix(1700000000, 123).UTC())
}

// TestEncodingRoundTrip: MarshalBinary/UnmarshalBinary and ID/ParsePartitionID
// give back the same partition.
func TestEncodingRoundTrip(t *testing.T) {
	p := sample()
	b, err := p.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(b, []byte("sfpt\x01")) {
		t.Errorf("encoding starts %q, want magic sfpt and version 1", b[:5])
	}
	var q partition.Partition
	if err := q.UnmarshalBinary(b); err != nil {
		t.Fatal(err)
	}
	id, err := p.ID()
	if err != nil {
		t.Fatal(err)
	}
	r, err := partition.ParsePartitionID(id + "==") // padding is tolerated
	if err != nil {
		t.Fatal(err)
	}
	for _, got := range []*partition.Partition{&q, r} {
		if !proto.Equal(partition.Request(got), partition.Request(p)) {
			t.Errorf("request %v, want %v", partition.Request(got), partition.Request(p))
		}
		if !got.ReadTimestamp().Equal(p.ReadTimestamp()) || got.SQL() != "SELECT 1" || !got.DataBoost() || string(got.GetPartitionToken()) != "token" {
			t.Errorf("decoded %v %q %v %q", got.ReadTimestamp(), got.SQL(), got.DataBoost(), got.GetPartitionToken())
		}
	}
}

// TestDecodeErrors: what does not decode is InvalidArgument.
func TestDecodeErrors(t *testing.T) {
	good, err := sample().MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	wrongVersion := append([]byte(nil), good...)
	wrongVersion[4] = 2
	noToken, err := partition.New(&spannerpb.ExecuteSqlRequest{
		Session:     "s",
		Transaction: &spannerpb.TransactionSelector{Selector: &spannerpb.TransactionSelector_Id{Id: []byte("tx")}},
	}, time.Time{}).MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string][]byte{"short": good[:3], "magic": append([]byte("xxxx"), good[4:]...), "version": wrongVersion, "no token": noToken} {
		var p partition.Partition
		if err := p.UnmarshalBinary(b); status.Code(err) != codes.InvalidArgument {
			t.Errorf("%s: %v, want InvalidArgument", name, err)
		}
	}
	if _, err := partition.ParsePartitionID("not base64!"); status.Code(err) != codes.InvalidArgument {
		t.Errorf("ParsePartitionID: %v, want InvalidArgument", err)
	}
}

// TestScan: a PartitionedQuery scans from a *PartitionedQuery only.
func TestScan(t *testing.T) {
	src := &partition.PartitionedQuery{SQL: "SELECT 1", Partitions: []*partition.Partition{sample()}}
	var pq partition.PartitionedQuery
	if err := pq.Scan(src); err != nil || pq.SQL != "SELECT 1" || len(pq.Partitions) != 1 {
		t.Errorf("Scan: %v, %+v", err, pq)
	}
	if err := pq.Scan("text"); status.Code(err) != codes.InvalidArgument {
		t.Errorf("Scan(string): %v, want InvalidArgument", err)
	}
}
