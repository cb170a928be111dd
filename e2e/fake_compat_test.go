package e2e

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"testing"
	"time"

	"cloud.google.com/go/spanner"
	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"go.uber.org/goleak"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	sfdriver "github.com/spannerfast/spannerfast/driver"
	"github.com/spannerfast/spannerfast/internal/fakespanner"
)

// go-sql-spanner's Go API (ExecOptions, BeginReadOnlyTransaction,
// BeginReadWriteTransaction, RunTransactionWithOptions) against the
// scripted fake: every option shows up in the request it belongs to, and
// only there.

const compatArrayQuery = "SELECT a FROM arrays"

// TestFakeExecOptionsQuery: the query options of one query reach its
// request; the next query has none of them.
func TestFakeExecOptionsQuery(t *testing.T) {
	s, db := startTxnFake(t, "optimizer_version=1")
	dr := &spannerpb.DirectedReadOptions{Replicas: &spannerpb.DirectedReadOptions_IncludeReplicas_{
		IncludeReplicas: &spannerpb.DirectedReadOptions_IncludeReplicas{ReplicaSelections: []*spannerpb.DirectedReadOptions_ReplicaSelection{{Location: "us-east1"}}},
	}}
	bound := spanner.ExactStaleness(10 * time.Second)
	opts := sfdriver.ExecOptions{
		QueryOptions: spanner.QueryOptions{
			RequestTag:          "req-tag",
			Priority:            spannerpb.RequestOptions_PRIORITY_LOW,
			Options:             &spannerpb.ExecuteSqlRequest_QueryOptions{OptimizerVersion: "7", OptimizerStatisticsPackage: "pkg"},
			DirectedReadOptions: dr,
			LastStatement:       true,
		},
		TimestampBound:     &bound,
		DirectExecuteQuery: true,
	}
	readStrings(t, mustQuery(t, db, txnQuery, opts))
	readStrings(t, mustQuery(t, db, txnQuery))

	streams := s.RequestsFor("ExecuteStreamingSql")
	if len(streams) != 2 {
		t.Fatalf("%d streams, want 2", len(streams))
	}
	first, next := streams[0].ExecuteSQL(), streams[1].ExecuteSQL()
	ro := first.GetTransaction().GetSingleUse().GetReadOnly()
	if first.GetRequestOptions().GetRequestTag() != "req-tag" || first.GetRequestOptions().GetPriority() != spannerpb.RequestOptions_PRIORITY_LOW ||
		first.GetQueryOptions().GetOptimizerVersion() != "7" || first.GetQueryOptions().GetOptimizerStatisticsPackage() != "pkg" ||
		!proto.Equal(first.GetDirectedReadOptions(), dr) || !first.GetLastStatement() ||
		ro.GetExactStaleness().AsDuration() != 10*time.Second {
		t.Fatalf("query with ExecOptions sent %v", first)
	}
	if next.GetRequestOptions() != nil || next.GetQueryOptions().GetOptimizerVersion() != "1" || next.GetQueryOptions().GetOptimizerStatisticsPackage() != "" ||
		next.GetDirectedReadOptions() != nil || next.GetLastStatement() || !next.GetTransaction().GetSingleUse().GetReadOnly().GetStrong() {
		t.Fatalf("the next query kept options: %v", next)
	}
}

// TestFakeExecOptionsAutocommitDML: the transaction options of an
// autocommit DML statement reach its inline begin and its Commit; the
// next statement runs with the connection's settings.
func TestFakeExecOptionsAutocommitDML(t *testing.T) {
	ctx := context.Background()
	s, db := startTxnFake(t)
	// Over Spanner's 500ms: it is Spanner's to refuse at commit, as with
	// SET max_commit_delay; the driver sends it.
	delay := time.Second
	opts := &sfdriver.ExecOptions{
		QueryOptions: spanner.QueryOptions{RequestTag: "dml-tag", Priority: spannerpb.RequestOptions_PRIORITY_MEDIUM},
		TransactionOptions: spanner.TransactionOptions{
			TransactionTag: "txn-tag",
			CommitPriority: spannerpb.RequestOptions_PRIORITY_HIGH,
			CommitOptions:  spanner.CommitOptions{ReturnCommitStats: true, MaxCommitDelay: &delay},
			ReadLockMode:   spannerpb.TransactionOptions_ReadWrite_OPTIMISTIC,
			IsolationLevel: spannerpb.TransactionOptions_SERIALIZABLE,

			ExcludeTxnFromChangeStreams: true,
		},
	}
	for _, args := range [][]any{{opts}, nil} {
		if _, err := db.ExecContext(ctx, txnUpdate, args...); err != nil {
			t.Fatal(err)
		}
	}
	execs, commits := s.RequestsFor("ExecuteSql"), s.RequestsFor("Commit")
	if len(execs) != 2 || len(commits) != 2 {
		t.Fatalf("%d ExecuteSql, %d Commit; want 2 and 2", len(execs), len(commits))
	}
	first := execs[0].ExecuteSQL()
	begin := first.GetTransaction().GetBegin()
	if ro := first.GetRequestOptions(); ro.GetRequestTag() != "dml-tag" || ro.GetPriority() != spannerpb.RequestOptions_PRIORITY_MEDIUM {
		t.Fatalf("DML request options %v", ro)
	}
	if !begin.GetExcludeTxnFromChangeStreams() || begin.GetIsolationLevel() != spannerpb.TransactionOptions_SERIALIZABLE ||
		begin.GetReadWrite().GetReadLockMode() != spannerpb.TransactionOptions_ReadWrite_OPTIMISTIC {
		t.Fatalf("inline begin %v", begin)
	}
	c := commits[0].Message.(*spannerpb.CommitRequest)
	if c.GetRequestOptions().GetTransactionTag() != "txn-tag" || c.GetRequestOptions().GetPriority() != spannerpb.RequestOptions_PRIORITY_HIGH ||
		!c.GetReturnCommitStats() || c.GetMaxCommitDelay().AsDuration() != delay {
		t.Fatalf("Commit %v", c)
	}
	next := execs[1].ExecuteSQL()
	nb := next.GetTransaction().GetBegin()
	nc := commits[1].Message.(*spannerpb.CommitRequest)
	if next.GetRequestOptions() != nil || nb.GetExcludeTxnFromChangeStreams() || nb.GetIsolationLevel() != spannerpb.TransactionOptions_ISOLATION_LEVEL_UNSPECIFIED ||
		nb.GetReadWrite().GetReadLockMode() != spannerpb.TransactionOptions_ReadWrite_READ_LOCK_MODE_UNSPECIFIED ||
		nc.GetRequestOptions() != nil || nc.GetReturnCommitStats() || nc.GetMaxCommitDelay() != nil {
		t.Fatalf("the next statement kept options: %v / %v", next, nc)
	}
}

// TestFakeExecOptionsPartitionedDML: AutocommitDMLMode runs one statement
// as partitioned DML, excluded from change streams as its QueryOptions
// say; the next one is transactional again.
func TestFakeExecOptionsPartitionedDML(t *testing.T) {
	ctx := context.Background()
	s, db := startTxnFake(t)
	opts := sfdriver.ExecOptions{AutocommitDMLMode: sfdriver.PartitionedNonAtomic, QueryOptions: spanner.QueryOptions{ExcludeTxnFromChangeStreams: true}}
	if _, err := db.ExecContext(ctx, txnUpdate, opts); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, txnUpdate); err != nil {
		t.Fatal(err)
	}
	begins := s.RequestsFor("BeginTransaction")
	if len(begins) != 1 {
		t.Fatalf("%d BeginTransaction, want 1 (the partitioned one)", len(begins))
	}
	b := begins[0].Message.(*spannerpb.BeginTransactionRequest).GetOptions()
	if b.GetPartitionedDml() == nil || !b.GetExcludeTxnFromChangeStreams() {
		t.Fatalf("partitioned begin %v", b)
	}
	execs := s.RequestsFor("ExecuteSql")
	if len(execs) != 1 || execs[0].ExecuteSQL().GetTransaction().GetBegin().GetReadWrite() == nil {
		t.Fatalf("the next statement is not transactional: %v", execs)
	}
}

// TestFakeExecOptionsDecode: DecodeToNativeArrays applies to its query
// only; options spannerfast cannot honour fail without sending anything.
func TestFakeExecOptionsDecode(t *testing.T) {
	ctx := context.Background()
	s := fakespanner.Start(t)
	rs := &spannerpb.ResultSet{
		Metadata: &spannerpb.ResultSetMetadata{RowType: &spannerpb.StructType{Fields: []*spannerpb.StructType_Field{
			{Name: "a", Type: &spannerpb.Type{Code: spannerpb.TypeCode_ARRAY, ArrayElementType: typ(spannerpb.TypeCode_INT64)}},
		}}},
		Rows: []*structpb.ListValue{{Values: []*structpb.Value{list(str("1"), str("2"))}}},
	}
	s.AddResult(compatArrayQuery, &fakespanner.Result{ResultSet: rs})
	db := openFake(t, s)
	scan := func(args ...any) any {
		t.Helper()
		var v any
		if err := db.QueryRowContext(ctx, compatArrayQuery, args...).Scan(&v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	if v, ok := scan(sfdriver.ExecOptions{DecodeToNativeArrays: true}).([]int64); !ok || len(v) != 2 {
		t.Fatalf("with DecodeToNativeArrays: %T %v, want []int64", v, v)
	}
	if v := scan(); func() bool { _, ok := v.([]spanner.NullInt64); return !ok }() {
		t.Fatalf("next query: %T, want []spanner.NullInt64", v)
	}
}

// waitIdle waits until db has no connection in use: the helpers give the
// connection back asynchronously once the transaction ends.
func waitIdle(t *testing.T, db *sql.DB) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); db.Stats().InUse != 0; {
		if time.Now().After(deadline) {
			t.Fatalf("%d connections still in use after the transaction ended", db.Stats().InUse)
		}
		time.Sleep(time.Millisecond)
	}
}

// verifyNoLeak closes db and the server and checks that nothing the test
// started is left running.
func verifyNoLeak(t *testing.T, s *fakespanner.Server, db *sql.DB, ignore goleak.Option) {
	t.Helper()
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	s.Close()
	goleak.VerifyNone(t, ignore)
}

// TestFakeBeginReadOnlyTransaction: the bound and begin option reach the
// begin, and the connection goes back to the pool when it ends.
func TestFakeBeginReadOnlyTransaction(t *testing.T) {
	ignore := goleak.IgnoreCurrent()
	ctx := context.Background()
	s, db := startTxnFake(t)
	ts := time.Date(2024, 5, 6, 7, 8, 9, 123456789, time.UTC)
	for _, c := range []struct {
		opts     sfdriver.ReadOnlyTransactionOptions
		explicit bool
		check    func(*spannerpb.TransactionOptions_ReadOnly) bool
	}{
		{sfdriver.ReadOnlyTransactionOptions{TimestampBound: spanner.ExactStaleness(15 * time.Second)}, false,
			func(ro *spannerpb.TransactionOptions_ReadOnly) bool {
				return ro.GetExactStaleness().AsDuration() == 15*time.Second
			}},
		{sfdriver.ReadOnlyTransactionOptions{TimestampBound: spanner.ReadTimestamp(ts), BeginTransactionOption: spanner.ExplicitBeginTransaction}, true,
			func(ro *spannerpb.TransactionOptions_ReadOnly) bool { return ro.GetReadTimestamp().AsTime().Equal(ts) }},
	} {
		s.ResetRequests()
		tx, err := sfdriver.BeginReadOnlyTransaction(ctx, db, c.opts)
		if err != nil {
			t.Fatal(err)
		}
		readStrings(t, mustQuery(t, tx, txnQuery))
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		var ro *spannerpb.TransactionOptions_ReadOnly
		if c.explicit {
			b := s.RequestsFor("BeginTransaction")
			if len(b) != 1 {
				t.Fatalf("%+v: %d BeginTransaction, want 1", c.opts, len(b))
			}
			ro = b[0].Message.(*spannerpb.BeginTransactionRequest).GetOptions().GetReadOnly()
		} else {
			ro = s.RequestsFor("ExecuteStreamingSql")[0].ExecuteSQL().GetTransaction().GetBegin().GetReadOnly()
		}
		if !c.check(ro) {
			t.Fatalf("%+v: begun with %v", c.opts, ro)
		}
		waitIdle(t, db)
	}
	// The bound was for that transaction only.
	s.ResetRequests()
	readStrings(t, mustQuery(t, db, txnQuery))
	if ro := s.RequestsFor("ExecuteStreamingSql")[0].ExecuteSQL().GetTransaction().GetSingleUse().GetReadOnly(); !ro.GetStrong() {
		t.Fatalf("next query read at %v, want strong", ro)
	}
	// A bound for single reads only is refused before a connection is taken.
	if _, err := sfdriver.BeginReadOnlyTransaction(ctx, db, sfdriver.ReadOnlyTransactionOptions{TimestampBound: spanner.MaxStaleness(time.Second)}); status.Code(err) != codes.InvalidArgument {
		t.Fatalf("max staleness: %v, want InvalidArgument", err)
	}
	waitIdle(t, db)
	verifyNoLeak(t, s, db, ignore)
}

// TestFakeBeginReadWriteTransaction: the options reach the inline begin
// and Commit; DisableInternalRetries returns an abort instead of
// replaying; the connection goes back to the pool.
func TestFakeBeginReadWriteTransaction(t *testing.T) {
	ignore := goleak.IgnoreCurrent()
	ctx := context.Background()
	s, db := startTxnFake(t)
	opts := sfdriver.ReadWriteTransactionOptions{TransactionOptions: spanner.TransactionOptions{
		TransactionTag:              "rw-tag",
		CommitPriority:              spannerpb.RequestOptions_PRIORITY_LOW,
		CommitOptions:               spanner.CommitOptions{ReturnCommitStats: true},
		IsolationLevel:              spannerpb.TransactionOptions_REPEATABLE_READ,
		ExcludeTxnFromChangeStreams: true,
	}}
	tx, err := sfdriver.BeginReadWriteTransaction(ctx, db, opts)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.ExecContext(ctx, txnUpdate); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	waitIdle(t, db)
	e := s.RequestsFor("ExecuteSql")[0].ExecuteSQL()
	b := e.GetTransaction().GetBegin()
	c := s.RequestsFor("Commit")[0].Message.(*spannerpb.CommitRequest)
	if e.GetRequestOptions().GetTransactionTag() != "rw-tag" || b.GetIsolationLevel() != spannerpb.TransactionOptions_REPEATABLE_READ || !b.GetExcludeTxnFromChangeStreams() {
		t.Fatalf("statement %v", e)
	}
	if c.GetRequestOptions().GetTransactionTag() != "rw-tag" || c.GetRequestOptions().GetPriority() != spannerpb.RequestOptions_PRIORITY_LOW || !c.GetReturnCommitStats() {
		t.Fatalf("Commit %v", c)
	}

	// Without internal retries an aborted Commit is the caller's.
	s.ResetRequests()
	s.AddMethodFault("Commit", fakespanner.Fault{Err: fakespanner.WithRetryDelay(codes.Aborted, "aborted", 0)})
	tx, err = sfdriver.BeginReadWriteTransaction(ctx, db, sfdriver.ReadWriteTransactionOptions{DisableInternalRetries: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.ExecContext(ctx, txnUpdate); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); status.Code(err) != codes.Aborted {
		t.Fatalf("Commit = %v, want ABORTED", err)
	}
	if n := len(s.RequestsFor("ExecuteSql")); n != 1 {
		t.Fatalf("%d ExecuteSql: the transaction was replayed", n)
	}
	waitIdle(t, db)

	// The next transaction has the connection's settings.
	s.ResetRequests()
	tx, err = db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.ExecContext(ctx, txnUpdate); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if e := s.RequestsFor("ExecuteSql")[0].ExecuteSQL(); e.GetRequestOptions() != nil || e.GetTransaction().GetBegin().GetExcludeTxnFromChangeStreams() {
		t.Fatalf("plain transaction kept options: %v", e)
	}
	verifyNoLeak(t, s, db, ignore)
}

// TestFakeRunTransactionWithOptions: an abort at commit runs the function
// again; every attempt carries the options.
func TestFakeRunTransactionWithOptions(t *testing.T) {
	ignore := goleak.IgnoreCurrent()
	ctx := context.Background()
	s, db := startTxnFake(t)
	s.AddMethodFault("Commit", fakespanner.Fault{Err: fakespanner.WithRetryDelay(codes.Aborted, "aborted", time.Millisecond)})
	runs := 0
	err := sfdriver.RunTransactionWithOptions(ctx, db, nil, func(ctx context.Context, tx *sql.Tx) error {
		runs++
		_, err := tx.ExecContext(ctx, txnUpdate)
		return err
	}, spanner.TransactionOptions{TransactionTag: "run-tag", CommitPriority: spannerpb.RequestOptions_PRIORITY_MEDIUM})
	if err != nil {
		t.Fatal(err)
	}
	execs, commits := s.RequestsFor("ExecuteSql"), s.RequestsFor("Commit")
	if runs != 2 || len(execs) != 2 || len(commits) != 2 {
		t.Fatalf("%d runs, %d ExecuteSql, %d Commit; want 2 each", runs, len(execs), len(commits))
	}
	for i := range execs {
		c := commits[i].Message.(*spannerpb.CommitRequest)
		if execs[i].ExecuteSQL().GetRequestOptions().GetTransactionTag() != "run-tag" ||
			c.GetRequestOptions().GetTransactionTag() != "run-tag" || c.GetRequestOptions().GetPriority() != spannerpb.RequestOptions_PRIORITY_MEDIUM {
			t.Fatalf("attempt %d: %v / %v", i, execs[i].ExecuteSQL().GetRequestOptions(), c.GetRequestOptions())
		}
	}
	waitIdle(t, db)
	verifyNoLeak(t, s, db, ignore)
}

// TestFakePingKeepsServerError: a failing Ping returns the server's error
// with its gRPC code, where go-sql-spanner returns driver.ErrBadConn (a
// deliberate difference: the caller learns why, e.g. PermissionDenied, and
// database/sql still discards nothing it should keep).
func TestFakePingKeepsServerError(t *testing.T) {
	s, db := startTxnFake(t)
	denied := status.Error(codes.PermissionDenied, "permission denied for database")
	s.AddMethodFault("ExecuteStreamingSql", fakespanner.Fault{Err: denied, Times: -1})
	s.AddMethodFault("ExecuteSql", fakespanner.Fault{Err: denied, Times: -1})
	err := db.PingContext(context.Background())
	if status.Code(err) != codes.PermissionDenied || errors.Is(err, driver.ErrBadConn) {
		t.Fatalf("Ping: %v; want the server's PermissionDenied, not driver.ErrBadConn", err)
	}
}

// TestFakeQueryFailsInQueryContext: a query the server refuses fails from
// QueryContext, where go-sql-spanner returns the error from the first Next
// (a deliberate difference: the error comes where database/sql callers
// check it first, and no Rows is left to close).
func TestFakeQueryFailsInQueryContext(t *testing.T) {
	s, db := startTxnFake(t)
	notFound := status.Error(codes.NotFound, "table not found")
	s.AddMethodFault("ExecuteStreamingSql", fakespanner.Fault{Err: notFound, Times: -1})
	s.AddMethodFault("ExecuteSql", fakespanner.Fault{Err: notFound, Times: -1})
	rows, err := db.QueryContext(context.Background(), "SELECT * FROM missing")
	if err == nil {
		rows.Close()
		t.Fatal("QueryContext succeeded; want the server's NotFound from QueryContext")
	}
	if status.Code(err) != codes.NotFound {
		t.Fatalf("QueryContext: %v; want NotFound", err)
	}
}
