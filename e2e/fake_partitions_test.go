package e2e

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"cloud.google.com/go/spanner"
	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"go.uber.org/goleak"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/structpb"

	sfdriver "github.com/spannerfast/spannerfast/driver"
	"github.com/spannerfast/spannerfast/internal/fakespanner"
)

const partSQL = "SELECT V, S FROM Parts"

// partValue is row i of partition p: partitions never share a value, and
// values rise within a partition.
func partValue(p, i int) int64 { return int64(p*100000 + i) }

// partResult is partition p with n rows (V INT64, S STRING), one row per
// message, a resume token on every message, and the faults given.
func partResult(p, n int, faults ...fakespanner.Fault) *fakespanner.Result {
	rs := &spannerpb.ResultSet{Metadata: &spannerpb.ResultSetMetadata{RowType: &spannerpb.StructType{Fields: []*spannerpb.StructType_Field{
		{Name: "V", Type: &spannerpb.Type{Code: spannerpb.TypeCode_INT64}},
		{Name: "S", Type: &spannerpb.Type{Code: spannerpb.TypeCode_STRING}},
	}}}}
	for i := range n {
		v := partValue(p, i)
		rs.Rows = append(rs.Rows, &structpb.ListValue{Values: []*structpb.Value{
			structpb.NewStringValue(strconv.FormatInt(v, 10)), structpb.NewStringValue(partText(v)),
		}})
	}
	return &fakespanner.Result{ResultSet: rs, Split: fakespanner.SplitOptions{MaxValues: 2}, Faults: faults}
}

func partText(v int64) string { return fmt.Sprintf("row-%d-%s", v, strings.Repeat("x", int(v%7))) }

// addParts registers len(sizes) partitions of partSQL; faults[p] go to
// partition p.
func addParts(s *fakespanner.Server, sizes []int, faults map[int][]fakespanner.Fault) {
	var rs []*fakespanner.Result
	for p, n := range sizes {
		rs = append(rs, partResult(p, n, faults[p]...))
	}
	s.AddPartitions(partSQL, rs...)
}

// readParts reads V and S of every row and checks S against V; it
// returns the values per partition in the order read.
func readParts(t *testing.T, rows *sql.Rows) map[int][]int64 {
	t.Helper()
	defer rows.Close()
	got := map[int][]int64{}
	for rows.Next() {
		var v int64
		var s string
		if err := rows.Scan(&v, &s); err != nil {
			t.Fatal(err)
		}
		if s != partText(v) {
			t.Fatalf("row %d: S = %q, want %q", v, s, partText(v))
		}
		got[int(v/100000)] = append(got[int(v/100000)], v)
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("rows: %v", err)
	}
	return got
}

// checkEveryRowOnce: every partition's rows, each once, in order.
func checkEveryRowOnce(t *testing.T, got map[int][]int64, sizes []int) {
	t.Helper()
	for p, n := range sizes {
		want := make([]int64, n)
		for i := range want {
			want[i] = partValue(p, i)
		}
		if !slices.Equal(got[p], want) {
			t.Errorf("partition %d: got %d rows %v..., want %d in order", p, len(got[p]), got[p][:min(5, len(got[p]))], n)
		}
	}
}

// TestFakePartitionsReadAll: RUN PARTITIONED QUERY, AutoPartition and
// auto_partition_mode read every partition exactly once, in parallel, with
// faults in some partitions resumed without loss or duplication; data
// boost is on every partition request; one BeginTransaction, one
// PartitionQuery, no Commit.
func TestFakePartitionsReadAll(t *testing.T) {
	sizes := []int{40, 0, 25, 60, 1, 33}
	faults := map[int][]fakespanner.Fault{
		0: {{AfterMessage: 5, Err: fakespanner.ErrUnavailable}},
		3: {{AfterMessage: 2, Err: fakespanner.ErrRSTStream}, {AfterMessage: 20, Err: fakespanner.ErrUnavailable}},
		5: {{AfterMessage: 0, Err: fakespanner.ErrUnavailable}},
	}
	ways := []struct {
		name  string
		props []string
		run   func(db *sql.DB) (*sql.Rows, error)
	}{
		{"RUN PARTITIONED QUERY", []string{"data_boost_enabled=true", "max_partitioned_parallelism=3"},
			func(db *sql.DB) (*sql.Rows, error) { return db.Query("RUN PARTITIONED QUERY " + partSQL) }},
		{"AutoPartition option", nil,
			func(db *sql.DB) (*sql.Rows, error) {
				return db.Query(partSQL, sfdriver.AutoPartition(2), sfdriver.DataBoost(true), sfdriver.MaxPartitions(6))
			}},
		{"auto_partition_mode", []string{"auto_partition_mode=true", "data_boost_enabled=true", "max_partitions=6", "max_partitioned_parallelism=0"},
			func(db *sql.DB) (*sql.Rows, error) { return db.Query(partSQL) }},
	}
	for _, w := range ways {
		t.Run(w.name, func(t *testing.T) {
			s := fakespanner.Start(t)
			addParts(s, sizes, faults)
			db := openFake(t, s, w.props...)
			rows, err := w.run(db)
			if err != nil {
				t.Fatal(err)
			}
			checkEveryRowOnce(t, readParts(t, rows), sizes)
			if n := len(s.RequestsFor("BeginTransaction")); n != 1 {
				t.Errorf("%d BeginTransaction requests, want 1", n)
			} else if b := s.RequestsFor("BeginTransaction")[0].Message.(*spannerpb.BeginTransactionRequest); !b.GetOptions().GetReadOnly().GetStrong() {
				t.Errorf("begin options %v, want strong read-only", b.GetOptions())
			}
			pqs := s.RequestsFor("PartitionQuery")
			if len(pqs) != 1 {
				t.Fatalf("%d PartitionQuery requests, want 1", len(pqs))
			}
			if w.name != "RUN PARTITIONED QUERY" {
				if n := pqs[0].Message.(*spannerpb.PartitionQueryRequest).GetPartitionOptions().GetMaxPartitions(); n != 6 {
					t.Errorf("max_partitions %d, want 6", n)
				}
			}
			fresh := map[string]int{}
			for _, r := range s.RequestsFor("ExecuteStreamingSql") {
				req := r.ExecuteSQL()
				if !req.GetDataBoostEnabled() || len(req.GetTransaction().GetId()) == 0 || len(req.GetPartitionToken()) == 0 {
					t.Errorf("partition request without data boost, transaction id or token: %v", req)
				}
				if req.GetResumeToken() == nil {
					fresh[string(req.GetPartitionToken())]++
				}
			}
			for p := range sizes {
				want := 1 // then resumed from its resume token
				if p == 5 {
					want = 2 // failed before its first message: started again
				}
				if n := fresh[string(fakespanner.PartitionToken(partSQL, p))]; n != want {
					t.Errorf("partition %d started %d times, want %d", p, n, want)
				}
			}
			if n := len(s.RequestsFor("Commit")); n != 0 {
				t.Errorf("%d Commit requests for a read-only read", n)
			}
		})
	}
}

// TestFakePartitionsError: a partition failing with a non-retryable error
// fails the read with its code.
func TestFakePartitionsError(t *testing.T) {
	s := fakespanner.Start(t)
	notFound := status.Error(codes.NotFound, "Partition not found")
	addParts(s, []int{30, 30, 30}, map[int][]fakespanner.Fault{2: {{AfterMessage: 3, Err: notFound}}})
	db := openFake(t, s)
	rows, err := db.Query(partSQL, sfdriver.AutoPartition(3))
	if err == nil {
		for rows.Next() {
		}
		err = rows.Err()
		rows.Close()
	}
	if status.Code(err) != codes.NotFound {
		t.Fatalf("err %v, want NotFound", err)
	}
}

// TestFakePartitionQueryExecute: go-sql-spanner's flow. A batch read-only
// transaction at a timestamp bound; PartitionQuery() returns one row with
// the PartitionedQuery; Execute reads each partition; parameters go to
// PartitionQuery and to every partition; plain queries run in the
// transaction; Commit sends nothing.
func TestFakePartitionQueryExecute(t *testing.T) {
	s := fakespanner.Start(t)
	const q = "SELECT V, S FROM Parts WHERE V > @p1"
	sizes := []int{3, 4, 5}
	var rs []*fakespanner.Result
	for p, n := range sizes {
		rs = append(rs, partResult(p, n))
	}
	s.AddPartitions(q, rs...)
	db := openFake(t, s)
	ctx := context.Background()
	tx, err := sfdriver.BeginBatchReadOnlyTransaction(ctx, db, sfdriver.BatchReadOnlyTransactionOptions{TimestampBound: spanner.ExactStaleness(10 * time.Second)})
	if err != nil {
		t.Fatal(err)
	}
	var pq sfdriver.PartitionedQuery
	if err := tx.QueryRowContext(ctx, "SELECT V, S FROM Parts WHERE V > ?", int64(-1), sfdriver.PartitionQuery(), sfdriver.DataBoost(true)).Scan(&pq); err != nil {
		t.Fatal(err)
	}
	if len(pq.Partitions) != len(sizes) || pq.ReadTimestamp.IsZero() {
		t.Fatalf("%d partitions, read timestamp %v", len(pq.Partitions), pq.ReadTimestamp)
	}
	got := map[int][]int64{}
	for i := range pq.Partitions {
		rows, err := pq.Execute(ctx, i, db)
		if err != nil {
			t.Fatal(err)
		}
		for p, vs := range readParts(t, rows) {
			got[p] = append(got[p], vs...)
		}
	}
	checkEveryRowOnce(t, got, sizes)
	if _, err := pq.Execute(ctx, len(sizes), db); status.Code(err) != codes.InvalidArgument {
		t.Errorf("partition index out of range: %v, want InvalidArgument", err)
	}
	var one int64
	if err := tx.QueryRowContext(ctx, "SELECT 1").Scan(&one); err != nil || one != 1 {
		t.Fatalf("plain query in the batch transaction: %v %v", one, err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	begins := s.RequestsFor("BeginTransaction")
	if len(begins) != 1 || begins[0].Message.(*spannerpb.BeginTransactionRequest).GetOptions().GetReadOnly().GetExactStaleness().AsDuration() != 10*time.Second {
		t.Fatalf("begin requests %v, want one at exact staleness 10s", begins)
	}
	txID := "" // every request names the batch transaction
	for _, r := range s.RequestsFor("ExecuteStreamingSql") {
		req := r.ExecuteSQL()
		id := string(req.GetTransaction().GetId())
		if txID == "" {
			txID = id
		}
		if id == "" || id != txID {
			t.Errorf("request in transaction %q, want %q", id, txID)
		}
		if req.GetSql() == q && (!req.GetDataBoostEnabled() || req.GetParams().GetFields()["p1"].GetStringValue() != "-1") {
			t.Errorf("partition request lost data boost or parameters: %v", req)
		}
	}
	pqr := s.RequestsFor("PartitionQuery")
	if len(pqr) != 1 || pqr[0].Message.(*spannerpb.PartitionQueryRequest).GetParams().GetFields()["p1"].GetStringValue() != "-1" {
		t.Errorf("PartitionQuery requests %v, want one with p1", pqr)
	}
	if n := len(s.RequestsFor("Commit")); n != 0 {
		t.Errorf("%d Commit requests", n)
	}
	// The connection went back to the pool once the transaction ended.
	waitFor(t, func() bool { return db.Stats().InUse == 0 })
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached in 5s")
		}
		time.Sleep(time.Millisecond)
	}
}

// TestFakePartitionQueryNeedsBatchTxn: PartitionQuery() outside a batch
// read-only transaction is FailedPrecondition, as in go-sql-spanner; so are
// the partitioned statements in a regular transaction.
func TestFakePartitionQueryNeedsBatchTxn(t *testing.T) {
	s := fakespanner.Start(t)
	addParts(s, []int{1}, nil)
	db := openFake(t, s)
	ctx := context.Background()
	if _, err := db.QueryContext(ctx, partSQL, sfdriver.PartitionQuery()); status.Code(err) != codes.FailedPrecondition {
		t.Errorf("without a transaction: %v, want FailedPrecondition", err)
	}
	for _, ro := range []bool{true, false} {
		tx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: ro})
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range []struct {
			sql  string
			args []any
		}{{partSQL, []any{sfdriver.PartitionQuery()}}, {"PARTITION " + partSQL, nil}, {"RUN PARTITIONED QUERY " + partSQL, nil}, {partSQL, []any{sfdriver.AutoPartition(0)}}} {
			if _, err := tx.QueryContext(ctx, q.sql, q.args...); status.Code(err) != codes.FailedPrecondition {
				t.Errorf("read-only %v, %s: %v, want FailedPrecondition", ro, q.sql, err)
			}
		}
		tx.Rollback()
	}
	if _, err := db.ExecContext(ctx, "PARTITION "+partSQL); status.Code(err) != codes.InvalidArgument {
		t.Errorf("Exec of PARTITION: %v, want InvalidArgument", err)
	}
	if _, err := db.QueryContext(ctx, "RUN PARTITIONED QUERY UPDATE T SET a = 1 WHERE true"); status.Code(err) != codes.InvalidArgument {
		t.Errorf("RUN PARTITIONED QUERY of DML: %v, want InvalidArgument", err)
	}
}

// TestFakePartitionsTravel: PARTITION returns one id per partition; a
// second *sql.DB (its own client and session pool) reads them with RUN
// PARTITION and, encoded as bytes, with ExecutePartition: every row once.
func TestFakePartitionsTravel(t *testing.T) {
	s := fakespanner.Start(t)
	sizes := []int{5, 0, 7, 9}
	addParts(s, sizes, map[int][]fakespanner.Fault{2: {{AfterMessage: 3, Err: fakespanner.ErrUnavailable}}})
	db1 := openFake(t, s, "data_boost_enabled=true")
	rows, err := db1.Query("PARTITION " + partSQL)
	if err != nil {
		t.Fatal(err)
	}
	if cols, _ := rows.Columns(); len(cols) != 1 || cols[0] != "PARTITION" {
		t.Fatalf("columns %v", cols)
	}
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	if len(ids) != len(sizes) {
		t.Fatalf("%d ids, want %d", len(ids), len(sizes))
	}
	rows.Close()
	db2 := openFake(t, s)
	got := map[int][]int64{}
	for i, id := range ids {
		var rows *sql.Rows
		if i%2 == 0 {
			rows, err = db2.Query("RUN PARTITION '" + id + "'")
		} else {
			p, perr := sfdriver.ParsePartitionID(id)
			if perr != nil {
				t.Fatal(perr)
			}
			b, _ := p.MarshalBinary()
			q, derr := sfdriver.DecodePartition(b)
			if derr != nil {
				t.Fatal(derr)
			}
			rows, err = sfdriver.ExecutePartition(context.Background(), db2, q)
		}
		if err != nil {
			t.Fatalf("partition %d: %v", i, err)
		}
		for p, vs := range readParts(t, rows) {
			got[p] = append(got[p], vs...)
		}
	}
	checkEveryRowOnce(t, got, sizes)
	for _, r := range s.RequestsFor("ExecuteStreamingSql") {
		if !r.ExecuteSQL().GetDataBoostEnabled() {
			t.Errorf("a partition lost data boost on its way: %v", r.ExecuteSQL())
		}
	}

	p, _ := sfdriver.ParsePartitionID(ids[0])
	b, _ := p.MarshalBinary()
	b[4] = 9
	if _, err := sfdriver.DecodePartition(b); status.Code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), "version 9") {
		t.Errorf("unknown version: %v", err)
	}
	if _, err := db2.Query("RUN PARTITION 'bm90IGEgcGFydGl0aW9u'"); status.Code(err) != codes.InvalidArgument {
		t.Errorf("bad id: %v, want InvalidArgument", err)
	}
	other, err := sql.Open("spannerfast", s.Addr()+"/projects/p/instances/i/databases/other;usePlainText=true")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if _, err := other.Query("RUN PARTITION '" + ids[0] + "'"); status.Code(err) != codes.FailedPrecondition {
		t.Errorf("partition of another database: %v, want FailedPrecondition", err)
	}
}

// TestFakePartitionsCancelAndClose: cancelling mid-read (while a partition
// hangs) and closing early stop every partition, promptly, and leave no
// goroutine behind.
func TestFakePartitionsCancelAndClose(t *testing.T) {
	ignore := goleak.IgnoreCurrent()
	s := fakespanner.Start(t)
	addParts(s, []int{50, 50, 50, 50}, map[int][]fakespanner.Fault{1: {{AfterMessage: 4, Hang: true, Times: -1}}})
	for _, how := range []string{"cancel", "close"} {
		db := openFake(t, s)
		ctx, cancel := context.WithCancel(context.Background())
		within(t, how, func() {
			rows, err := db.QueryContext(ctx, partSQL, sfdriver.AutoPartition(4))
			if err != nil {
				t.Errorf("%s: %v", how, err)
				return
			}
			for range 10 {
				if !rows.Next() {
					t.Errorf("%s: ended early: %v", how, rows.Err())
				}
			}
			if how == "close" {
				rows.Close()
				return
			}
			cancel()
			for rows.Next() {
			}
			if err := rows.Err(); !errors.Is(err, context.Canceled) && status.Code(err) != codes.Canceled {
				t.Errorf("cancel: rows error %v", err)
			}
			rows.Close()
		})
		cancel()
		db.Close()
	}
	s.Close()
	goleak.VerifyNone(t, ignore)
}

// TestFakePartitionsRawDecode: with raw_decode on, a value read from one
// partition stays intact until the next Next although the other partitions
// keep streaming (released buffers are poisoned, so a value whose buffer
// went back early would read garbage). Partitioned reads decode safe, so
// this holds by construction; the test keeps it so.
func TestFakePartitionsRawDecode(t *testing.T) {
	s := fakespanner.Start(t)
	sizes := []int{200, 200, 200}
	addParts(s, sizes, nil)
	db := openFake(t, s, "raw_decode=true", "poison_raw_buffers=true")
	rows, err := db.Query(partSQL, sfdriver.AutoPartition(3))
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var v int64
		var raw sql.RawBytes
		if err := rows.Scan(&v, &raw); err != nil {
			t.Fatal(err)
		}
		if n%50 == 0 {
			time.Sleep(2 * time.Millisecond) // the other partitions run meanwhile
		}
		if string(raw) != partText(v) {
			t.Fatalf("row %d: raw value %q changed before the next Next, want %q", v, raw, partText(v))
		}
		n++
	}
	if err := rows.Err(); err != nil || n != 600 {
		t.Fatalf("%d rows, %v", n, err)
	}
}
