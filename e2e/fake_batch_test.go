package e2e

import (
	"context"
	"database/sql"
	"errors"
	"slices"
	"testing"

	"cloud.google.com/go/spanner"
	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/spannerfast/spannerfast/conn"
	sfdriver "github.com/spannerfast/spannerfast/driver"
	"github.com/spannerfast/spannerfast/internal/fakespanner"
)

// DML batches against the scripted fake server: START BATCH DML / RUN
// BATCH / ABORT BATCH and the methods reached through sql.Conn.Raw.

const (
	batchParamUpdate = "UPDATE t SET s = @s WHERE true"
	batchFailing     = "INSERT INTO t (s) VALUES ('dup')"
)

// startBatchFake is startTxnFake plus a parameterized update (2 rows) and a
// statement that fails with ALREADY_EXISTS.
func startBatchFake(t *testing.T, props ...string) (*fakespanner.Server, *sql.DB) {
	t.Helper()
	s, db := startTxnFake(t, props...)
	s.AddResult(batchParamUpdate, fakespanner.DML(2))
	failing := fakespanner.DML(0)
	failing.Faults = []fakespanner.Fault{{Err: status.Error(codes.AlreadyExists, "row exists"), Times: -1}}
	s.AddResult(batchFailing, failing)
	return s, db
}

func dbConn(t *testing.T, db *sql.DB) *sql.Conn {
	t.Helper()
	c, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// raw runs f on the driver connection.
func raw(t *testing.T, c *sql.Conn, f func(*conn.Conn) error) error {
	t.Helper()
	return c.Raw(func(dc any) error { return f(dc.(*conn.Conn)) })
}

func mustExec(t *testing.T, e interface {
	ExecContext(context.Context, string, ...any) (sql.Result, error)
}, query string, args ...any) sql.Result {
	t.Helper()
	res, err := e.ExecContext(context.Background(), query, args...)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return res
}

func batchRequests(t *testing.T, s *fakespanner.Server) []*spannerpb.ExecuteBatchDmlRequest {
	t.Helper()
	var out []*spannerpb.ExecuteBatchDmlRequest
	for _, r := range s.RequestsFor("ExecuteBatchDml") {
		out = append(out, r.Message.(*spannerpb.ExecuteBatchDmlRequest))
	}
	return out
}

func batchSQL(req *spannerpb.ExecuteBatchDmlRequest) []string {
	var out []string
	for _, st := range req.GetStatements() {
		out = append(out, st.GetSql())
	}
	return out
}

// TestFakeDMLBatchAutocommitSQL: outside a transaction the buffered
// statements (RowsAffected 0 each, nothing sent) go in ONE ExecuteBatchDml
// that begins a transaction inline, with the statement tag set before
// START BATCH DML, and a Commit follows; RowsAffected is the sum.
func TestFakeDMLBatchAutocommitSQL(t *testing.T) {
	s, db := startBatchFake(t)
	c := dbConn(t, db)
	mustExec(t, c, "SET STATEMENT_TAG = 'batch-tag'")
	mustExec(t, c, "START BATCH DML")
	for _, q := range []string{txnUpdate, txnInsert} {
		if n, _ := mustExec(t, c, q).RowsAffected(); n != 0 {
			t.Fatalf("%s buffered: RowsAffected %d, want 0", q, n)
		}
	}
	mustExec(t, c, batchParamUpdate, sql.Named("s", "v"))
	var stmts []spanner.Statement
	_ = raw(t, c, func(dc *conn.Conn) error {
		if !dc.InDMLBatch() || dc.InDDLBatch() {
			t.Errorf("InDMLBatch %v InDDLBatch %v; want a DML batch", dc.InDMLBatch(), dc.InDDLBatch())
		}
		stmts = dc.GetBatchedStatements()
		return nil
	})
	if len(stmts) != 3 || stmts[2].SQL != batchParamUpdate {
		t.Fatalf("GetBatchedStatements = %v", stmts)
	}
	if p, ok := stmts[2].Params["s"].(spanner.GenericColumnValue); !ok || p.Value.GetStringValue() != "v" {
		t.Fatalf("batched parameter s = %#v", stmts[2].Params["s"])
	}
	if n := len(s.RequestsFor("ExecuteSql")) + len(s.RequestsFor("ExecuteBatchDml")); n != 0 {
		t.Fatalf("%d DML requests before RUN BATCH, want 0", n)
	}
	res := mustExec(t, c, "RUN BATCH")
	if n, _ := res.RowsAffected(); n != 6 {
		t.Fatalf("RUN BATCH RowsAffected = %d, want 3+1+2", n)
	}
	reqs := batchRequests(t, s)
	if len(reqs) != 1 {
		t.Fatalf("%d ExecuteBatchDml requests, want 1", len(reqs))
	}
	r := reqs[0]
	if got := batchSQL(r); !slices.Equal(got, []string{txnUpdate, txnInsert, batchParamUpdate}) {
		t.Fatalf("batch statements %v", got)
	}
	if r.GetStatements()[2].GetParams().GetFields()["s"].GetStringValue() != "v" {
		t.Fatalf("batch parameters %v", r.GetStatements()[2].GetParams())
	}
	if r.GetTransaction().GetBegin().GetReadWrite() == nil || r.GetSeqno() <= 0 || !r.GetLastStatements() {
		t.Fatalf("batch selector %v seqno %d last %v; want inline read-write begin, a seqno, last_statements", r.GetTransaction(), r.GetSeqno(), r.GetLastStatements())
	}
	if r.GetRequestOptions().GetRequestTag() != "batch-tag" {
		t.Fatalf("batch request tag %q, want batch-tag", r.GetRequestOptions().GetRequestTag())
	}
	if n := len(s.RequestsFor("Commit")); n != 1 || len(s.RequestsFor("ExecuteSql")) != 0 {
		t.Fatalf("%d Commit, %d ExecuteSql; want 1 and 0", n, len(s.RequestsFor("ExecuteSql")))
	}
	_ = raw(t, c, func(dc *conn.Conn) error {
		if dc.InDMLBatch() || len(dc.GetBatchedStatements()) != 0 {
			t.Errorf("batch still active after RUN BATCH")
		}
		return nil
	})
}

// TestFakeDMLBatchAPI: the methods go-sql-spanner's SpannerConn has, with
// per-statement counts from RunDmlBatch.
func TestFakeDMLBatchAPI(t *testing.T) {
	ctx := context.Background()
	s, db := startBatchFake(t)
	c := dbConn(t, db)
	if err := raw(t, c, func(dc *conn.Conn) error { return dc.StartBatchDML() }); err != nil {
		t.Fatal(err)
	}
	mustExec(t, c, txnUpdate)
	mustExec(t, c, txnInsert)
	var res conn.SpannerResult
	if err := raw(t, c, func(dc *conn.Conn) (err error) {
		res, err = dc.RunDmlBatch(ctx)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	counts, _ := res.BatchRowsAffected()
	if n, _ := res.RowsAffected(); n != 4 || !slices.Equal(counts, []int64{3, 1}) {
		t.Fatalf("RowsAffected %d, BatchRowsAffected %v; want 4, [3 1]", n, counts)
	}
	if n := len(batchRequests(t, s)); n != 1 {
		t.Fatalf("%d ExecuteBatchDml, want 1", n)
	}
	// RunBatch runs a DML batch too.
	_ = raw(t, c, func(dc *conn.Conn) error { return dc.StartBatchDML() })
	mustExec(t, c, txnInsert)
	if err := raw(t, c, func(dc *conn.Conn) error { return dc.RunBatch(ctx) }); err != nil {
		t.Fatal(err)
	}
	if reqs := batchRequests(t, s); len(reqs) != 2 || !slices.Equal(batchSQL(reqs[1]), []string{txnInsert}) {
		t.Fatalf("second batch requests %v", reqs)
	}
}

// TestFakeDMLBatchInTransaction: a batch in a read-write transaction runs
// in it (inline begin on the ExecuteBatchDml) and commits with it; a later
// statement uses the begun id.
func TestFakeDMLBatchInTransaction(t *testing.T) {
	ctx := context.Background()
	s, db := startBatchFake(t)
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	mustExec(t, tx, "START BATCH DML")
	mustExec(t, tx, txnUpdate)
	mustExec(t, tx, txnInsert)
	if n, _ := mustExec(t, tx, "RUN BATCH").RowsAffected(); n != 4 {
		t.Fatalf("RUN BATCH RowsAffected %d, want 4", n)
	}
	mustExec(t, tx, txnInsert)
	if len(s.RequestsFor("Commit")) != 0 {
		t.Fatal("committed before Commit")
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	reqs := batchRequests(t, s)
	if len(reqs) != 1 || reqs[0].GetTransaction().GetBegin().GetReadWrite() == nil || reqs[0].GetLastStatements() {
		t.Fatalf("batch requests %v; want one with an inline begin, not last", reqs)
	}
	execs := s.RequestsFor("ExecuteSql")
	id := execs[0].ExecuteSQL().GetTransaction().GetId()
	if len(execs) != 1 || len(id) == 0 || execs[0].ExecuteSQL().GetSeqno() <= reqs[0].GetSeqno() {
		t.Fatalf("statement after the batch: %v", execs)
	}
	commits := s.RequestsFor("Commit")
	if len(commits) != 1 || string(commits[0].Message.(*spannerpb.CommitRequest).GetTransactionId()) != string(id) {
		t.Fatalf("commits %v; want one of %q", commits, id)
	}
}

// TestFakeDMLBatchError: a failing statement gives a *BatchError with the
// counts of the statements before it and the failure's code; outside a
// transaction nothing commits, inside the transaction stays usable.
func TestFakeDMLBatchError(t *testing.T) {
	ctx := context.Background()
	check := func(err error) {
		t.Helper()
		var be *sfdriver.BatchError
		if !errors.As(err, &be) || !slices.Equal(be.BatchUpdateCounts, []int64{3}) || status.Code(err) != codes.AlreadyExists {
			t.Fatalf("RUN BATCH error %v (%T); want a BatchError with counts [3] and AlreadyExists", err, err)
		}
	}
	s, db := startBatchFake(t)
	c := dbConn(t, db)
	mustExec(t, c, "START BATCH DML")
	for _, q := range []string{txnUpdate, batchFailing, txnInsert} {
		mustExec(t, c, q)
	}
	_, err := c.ExecContext(ctx, "RUN BATCH")
	check(err)
	if n := len(s.RequestsFor("Commit")); n != 0 {
		t.Fatalf("%d commits of a failed autocommit batch", n)
	}
	if n := len(s.RequestsFor("Rollback")); n != 1 {
		t.Fatalf("%d rollbacks of a failed autocommit batch, want 1", n)
	}
	_ = raw(t, c, func(dc *conn.Conn) error {
		if dc.InDMLBatch() {
			t.Error("a failed batch is still active")
		}
		return nil
	})

	tx, err := c.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	mustExec(t, tx, "START BATCH DML")
	mustExec(t, tx, txnUpdate)
	mustExec(t, tx, batchFailing)
	_, err = tx.ExecContext(ctx, "RUN BATCH")
	check(err)
	if err := tx.Commit(); err != nil {
		t.Fatalf("commit after a failed batch: %v", err)
	}
	if n := len(s.RequestsFor("Commit")); n != 1 {
		t.Fatalf("%d commits, want the transaction's", n)
	}
}

// TestFakeBatchStateErrors: go-sql-spanner's refusals, with its codes, and
// nothing sent for them.
func TestFakeBatchStateErrors(t *testing.T) {
	ctx := context.Background()
	s, db := startBatchFake(t)
	c := dbConn(t, db)
	wantCode := func(what string, err error, code codes.Code) {
		t.Helper()
		if status.Code(err) != code {
			t.Fatalf("%s: %v; want %v", what, err, code)
		}
	}
	exec := func(e interface {
		ExecContext(context.Context, string, ...any) (sql.Result, error)
	}, q string) error {
		_, err := e.ExecContext(ctx, q)
		return err
	}
	wantCode("RUN BATCH without a batch", exec(c, "RUN BATCH"), codes.FailedPrecondition)
	wantCode("ABORT BATCH without a batch", exec(c, "ABORT BATCH"), codes.OK)
	wantCode("START BATCH XML", exec(c, "START BATCH XML"), codes.InvalidArgument)
	wantCode("RUN BATCH NOW", exec(c, "RUN BATCH NOW"), codes.InvalidArgument)
	wantCode("START TRANSACTION", exec(c, "START TRANSACTION"), codes.InvalidArgument)

	mustExec(t, c, "start batch dml")
	wantCode("nested START BATCH DML", exec(c, "START BATCH DML"), codes.FailedPrecondition)
	wantCode("START BATCH DDL in a DML batch", exec(c, "START BATCH DDL"), codes.FailedPrecondition)
	wantCode("DDL in a DML batch", exec(c, "CREATE TABLE x (id INT64) PRIMARY KEY (id)"), codes.FailedPrecondition)
	// Queries are not batched: they run, as in go-sql-spanner.
	var one int64
	if err := c.QueryRowContext(ctx, "SELECT 1").Scan(&one); err != nil || one != 1 {
		t.Fatalf("query in a DML batch: %d, %v", one, err)
	}
	mustExec(t, c, txnUpdate)
	mustExec(t, c, "ABORT BATCH")
	mustExec(t, c, txnInsert) // runs at once again
	if len(batchRequests(t, s)) != 0 || len(s.RequestsFor("UpdateDatabaseDdl")) != 0 || len(s.RequestsFor("ExecuteSql")) != 1 {
		t.Fatalf("requests after ABORT BATCH: %d batch, %d DDL, %d ExecuteSql; want 0, 0, 1",
			len(batchRequests(t, s)), len(s.RequestsFor("UpdateDatabaseDdl")), len(s.RequestsFor("ExecuteSql")))
	}

	// Read-only transaction: no DML batch; ABORT BATCH is harmless.
	ro, err := c.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	wantCode("START BATCH DML read-only", exec(ro, "START BATCH DML"), codes.FailedPrecondition)
	wantCode("RUN BATCH read-only", exec(ro, "RUN BATCH"), codes.FailedPrecondition)
	wantCode("ABORT BATCH read-only", exec(ro, "ABORT BATCH"), codes.OK)
	_ = ro.Rollback()

	// Read-write transaction: no DDL batch; one DML batch at a time; an
	// unrun batch ends with its transaction.
	tx, err := c.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	wantCode("RUN BATCH in a transaction without a batch", exec(tx, "RUN BATCH"), codes.FailedPrecondition)
	wantCode("START BATCH DDL in a transaction", exec(tx, "START BATCH DDL"), codes.FailedPrecondition)
	mustExec(t, tx, "START BATCH DML")
	wantCode("nested batch in a transaction", exec(tx, "START BATCH DML"), codes.FailedPrecondition)
	mustExec(t, tx, txnUpdate)
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	_ = raw(t, c, func(dc *conn.Conn) error {
		if dc.InDMLBatch() {
			t.Error("the transaction's batch outlived it")
		}
		return nil
	})
	if len(batchRequests(t, s)) != 0 {
		t.Fatal("an unrun batch was sent")
	}
}

// TestFakeBatchQueryContext: the batch statements also run through
// QueryContext (empty results), as go-sql-spanner allows.
func TestFakeBatchQueryContext(t *testing.T) {
	ctx := context.Background()
	s, db := startBatchFake(t)
	c := dbConn(t, db)
	query := func(q string) {
		t.Helper()
		rows, err := c.QueryContext(ctx, q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if rows.Next() {
			t.Fatalf("%s returned a row", q)
		}
		rows.Close()
	}
	query("START BATCH DML")
	mustExec(t, c, txnUpdate)
	query("RUN BATCH")
	if reqs := batchRequests(t, s); len(reqs) != 1 || !slices.Equal(batchSQL(reqs[0]), []string{txnUpdate}) {
		t.Fatalf("batch requests %v", reqs)
	}
}

// TestFakeBatchPoolHygiene: a batch left open on a connection given back to
// the pool is dropped: the next user's DML runs at once.
func TestFakeBatchPoolHygiene(t *testing.T) {
	ctx := context.Background()
	s, db := startBatchFake(t)
	db.SetMaxOpenConns(1)
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	mustExec(t, c, "START BATCH DML")
	mustExec(t, c, txnInsert)
	c.Close()
	res := mustExec(t, db, txnUpdate)
	if n, _ := res.RowsAffected(); n != 3 {
		t.Fatalf("DML on the reused connection: RowsAffected %d, want 3 (it was buffered)", n)
	}
	if len(batchRequests(t, s)) != 0 || len(s.RequestsFor("ExecuteSql")) != 1 {
		t.Fatalf("requests: %d batches, %d ExecuteSql; want 0 and 1", len(batchRequests(t, s)), len(s.RequestsFor("ExecuteSql")))
	}
}

// TestFakeBeginTxDuringBatch: a transaction cannot begin while a batch is
// active on the connection.
func TestFakeBeginTxDuringBatch(t *testing.T) {
	ctx := context.Background()
	s := fakespanner.Start(t)
	db := openFake(t, s)
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.ExecContext(ctx, "START BATCH DML"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.BeginTx(ctx, nil); status.Code(err) != codes.FailedPrecondition {
		t.Fatalf("BeginTx during a DML batch: %v, want FailedPrecondition", err)
	}
	if _, err := c.ExecContext(ctx, "ABORT BATCH"); err != nil {
		t.Fatal(err)
	}
	tx, err := c.BeginTx(ctx, nil)
	if err != nil {
		t.Fatalf("BeginTx after ABORT BATCH: %v", err)
	}
	tx.Rollback()
}
