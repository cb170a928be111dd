package benchserver

import (
	"context"
	"testing"
	"time"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/spannerfast/spannerfast/cmd/spannerfast-bench/internal/workload"
)

// TestPartitionedQuery checks PartitionQuery's tokens and that each token
// streams its partition's stored messages, resumable within the partition.
func TestPartitionedQuery(t *testing.T) {
	s, c, ws := start(t, "partitioned-4", 0.05)
	w := ws[0]
	ctx := context.Background()
	tx, err := c.BeginTransaction(ctx, &spannerpb.BeginTransactionRequest{Session: "d/sessions/m1",
		Options: &spannerpb.TransactionOptions{Mode: &spannerpb.TransactionOptions_ReadOnly_{ReadOnly: &spannerpb.TransactionOptions_ReadOnly{}}}})
	if err != nil {
		t.Fatal(err)
	}
	sel := &spannerpb.TransactionSelector{Selector: &spannerpb.TransactionSelector_Id{Id: tx.Id}}
	resp, err := c.PartitionQuery(ctx, &spannerpb.PartitionQueryRequest{Session: "d/sessions/m1", Transaction: sel, Sql: w.SQL,
		PartitionOptions: &spannerpb.PartitionOptions{MaxPartitions: 4}})
	if err != nil || len(resp.Partitions) != 4 {
		t.Fatalf("PartitionQuery: %v, %v", resp, err)
	}
	for k, p := range resp.Partitions {
		want, err := w.EncodePartition(k)
		if err != nil {
			t.Fatal(err)
		}
		req := &spannerpb.ExecuteSqlRequest{Session: "d/sessions/m1", Transaction: sel, Sql: w.SQL, PartitionToken: p.PartitionToken}
		got, err := readAll(t, c, req)
		if err != nil || len(got) != len(want) {
			t.Fatalf("partition %d: %d messages, want %d; %v", k, len(got), len(want), err)
		}
		for i := range got {
			var m spannerpb.PartialResultSet
			if err := proto.Unmarshal(want[i].Bytes(), &m); err != nil {
				t.Fatal(err)
			}
			if !proto.Equal(got[i], &m) {
				t.Fatalf("partition %d message %d differs", k, i)
			}
		}
		if len(got) > 1 {
			req.ResumeToken = got[0].ResumeToken
			if resumed, err := readAll(t, c, req); err != nil || len(resumed) != len(got)-1 || !proto.Equal(resumed[0], got[1]) {
				t.Fatalf("partition %d resumed: %d messages, %v", k, len(resumed), err)
			}
		}
	}
	if st := s.Stats(); st.PartitionQueries != 1 || st.PartitionReads < 4 {
		t.Errorf("stats %+v", st)
	}
	if s.ResultBytes(w.SQL) == 0 {
		t.Error("ResultBytes of a partitioned query is 0")
	}
}

// TestPartitionedQueryRefusals: what Spanner refuses, and what this server
// cannot answer, fail with InvalidArgument.
func TestPartitionedQueryRefusals(t *testing.T) {
	_, c, ws := start(t, "narrow,partitioned-2", 0.01)
	narrow, w := ws[0], ws[1]
	ctx := context.Background()
	ro := &spannerpb.TransactionSelector{Selector: &spannerpb.TransactionSelector_Id{Id: []byte("ro-begun")}}
	rw := &spannerpb.TransactionSelector{Selector: &spannerpb.TransactionSelector_Id{Id: []byte("rw-begun")}}
	begin := &spannerpb.TransactionSelector{Selector: &spannerpb.TransactionSelector_Begin{
		Begin: &spannerpb.TransactionOptions{Mode: &spannerpb.TransactionOptions_ReadOnly_{ReadOnly: &spannerpb.TransactionOptions_ReadOnly{}}}}}
	for name, req := range map[string]*spannerpb.PartitionQueryRequest{
		"unpartitioned SQL":      {Transaction: ro, Sql: narrow.SQL},
		"read-write transaction": {Transaction: rw, Sql: w.SQL},
		"inline begin":           {Transaction: begin, Sql: w.SQL},
		"no transaction":         {Sql: w.SQL},
	} {
		if _, err := c.PartitionQuery(ctx, req); status.Code(err) != codes.InvalidArgument {
			t.Errorf("PartitionQuery with %s: %v", name, err)
		}
	}
	for name, req := range map[string]*spannerpb.ExecuteSqlRequest{
		"bad token":              {Transaction: ro, Sql: w.SQL, PartitionToken: []byte("nope")},
		"token out of range":     {Transaction: ro, Sql: w.SQL, PartitionToken: workload.PartitionToken(2)},
		"token of unpartitioned": {Transaction: ro, Sql: narrow.SQL, PartitionToken: workload.PartitionToken(0)},
		"read-write transaction": {Transaction: rw, Sql: w.SQL, PartitionToken: workload.PartitionToken(0)},
		"no token":               {Transaction: ro, Sql: w.SQL},
	} {
		if _, err := readAll(t, c, req); status.Code(err) != codes.InvalidArgument {
			t.Errorf("ExecuteStreamingSql with %s: %v", name, err)
		}
	}
}

// TestMessageDelay: a latency-bound result waits MessageDelay before each
// message, on the single stream and on a partition's stream, and serves
// the same messages as its workload encodes.
func TestMessageDelay(t *testing.T) {
	_, c, ws := start(t, "narrow-latency,partitioned-latency-4", 0.02) // 4,000 rows: 4 messages, 1 a partition
	single, parted := ws[0], ws[1]
	ro := &spannerpb.TransactionSelector{Selector: &spannerpb.TransactionSelector_Id{Id: []byte("ro-begun")}}
	for name, req := range map[string]*spannerpb.ExecuteSqlRequest{
		single.Name: {Sql: single.SQL},
		parted.Name: {Transaction: ro, Sql: parted.SQL, PartitionToken: workload.PartitionToken(3)},
	} {
		began := time.Now()
		got, err := readAll(t, c, req)
		took := time.Since(began)
		if err != nil || len(got) == 0 {
			t.Fatalf("%s: %d messages, %v", name, len(got), err)
		}
		if least := time.Duration(len(got)) * workload.LatencyMessageDelay; took < least {
			t.Errorf("%s: %d messages in %v, want at least %v", name, len(got), took, least)
		}
	}
	if n, err := readAll(t, c, &spannerpb.ExecuteSqlRequest{Sql: single.SQL}); err != nil || len(n) != 4 {
		t.Errorf("%s: %d messages, want 4; %v", single.Name, len(n), err)
	}
}
