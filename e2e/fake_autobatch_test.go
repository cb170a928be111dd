package e2e

import (
	"context"
	"database/sql"
	"testing"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/spannerfast/spannerfast/internal/fakespanner"
)

// auto_batch_dml: DML in a read-write transaction is buffered and sent as
// one ExecuteBatchDml when the transaction needs it (conn/autobatch.go).

// autoBatches returns the statements of every ExecuteBatchDml sent.
func autoBatches(s *fakespanner.Server) [][]string {
	var out [][]string
	for _, r := range s.RequestsFor("ExecuteBatchDml") {
		var b []string
		for _, st := range r.Message.(*spannerpb.ExecuteBatchDmlRequest).GetStatements() {
			b = append(b, st.GetSql())
		}
		out = append(out, b)
	}
	return out
}

func rowsAffected(t *testing.T, r sql.Result, err error) int64 {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	n, err := r.RowsAffected()
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestFakeAutoBatchDML: buffered DML reports auto_batch_dml_update_count and
// sends nothing; a query sends the batch first; the commit sends the rest
// and then commits; a rollback drops the batch unsent; outside a
// transaction and in read-only ones nothing is batched.
func TestFakeAutoBatchDML(t *testing.T) {
	ctx := context.Background()
	s, db := startTxnFake(t, "auto_batch_dml=true", "auto_batch_dml_update_count_verification=false")
	c, tx := connTx(t, ctx, db)
	s.ResetRequests()
	for _, q := range []string{txnUpdate, txnInsert} {
		r, err := tx.ExecContext(ctx, q)
		if n := rowsAffected(t, r, err); n != 1 {
			t.Errorf("buffered %q: RowsAffected %d, want auto_batch_dml_update_count 1", q, n)
		}
	}
	if n := len(s.Requests()); n != 0 {
		t.Fatalf("%d requests sent for buffered DML, want 0", n)
	}
	if got := readStrings(t, mustQuery(t, tx, txnQuery)); len(got) != 2 {
		t.Fatalf("query after the batch: %v", got)
	}
	if b := autoBatches(s); len(b) != 1 || len(b[0]) != 2 || b[0][0] != txnUpdate || b[0][1] != txnInsert {
		t.Fatalf("batches before the query: %q, want one of the two statements", b)
	}
	first := s.Requests()[0]
	if first.Method != "ExecuteBatchDml" || first.Message.(*spannerpb.ExecuteBatchDmlRequest).GetTransaction().GetBegin() == nil {
		t.Errorf("first request %s, want ExecuteBatchDml beginning the transaction", first.Method)
	}
	if _, err := tx.ExecContext(ctx, "SET auto_batch_dml_update_count = 5"); err != nil {
		t.Fatal(err)
	}
	r, err := tx.ExecContext(ctx, txnUpdate)
	if n := rowsAffected(t, r, err); n != 5 {
		t.Errorf("RowsAffected %d, want 5", n)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if b := autoBatches(s); len(b) != 2 || len(b[1]) != 1 {
		t.Fatalf("batches: %q, want a second one of one statement before the commit", b)
	}
	if n := len(s.RequestsFor("Commit")); n != 1 {
		t.Fatalf("%d commits, want 1", n)
	}

	// Rollback: nothing is sent.
	s.ResetRequests()
	tx, err = c.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := tx.ExecContext(ctx, txnInsert); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	if n := len(s.Requests()); n != 0 {
		t.Fatalf("%d requests for a rolled-back batch, want 0", n)
	}

	// Outside a transaction DML runs at once.
	r, err = c.ExecContext(ctx, txnUpdate)
	if n := rowsAffected(t, r, err); n != 3 || len(s.RequestsFor("ExecuteBatchDml")) != 0 {
		t.Fatalf("autocommit DML: RowsAffected %d, %d batches; want 3, 0", n, len(s.RequestsFor("ExecuteBatchDml")))
	}
}

// TestFakeAutoBatchDMLThenReturn: DML with THEN RETURN through ExecContext
// sends the batch and then runs on its own, so LastInsertId is real.
func TestFakeAutoBatchDMLThenReturn(t *testing.T) {
	ctx := context.Background()
	s, db := startTxnFake(t, "auto_batch_dml=true")
	const ins = "INSERT INTO t (s) VALUES ('c') THEN RETURN id"
	rs := &spannerpb.ResultSet{Metadata: &spannerpb.ResultSetMetadata{RowType: &spannerpb.StructType{Fields: []*spannerpb.StructType_Field{
		{Name: "id", Type: typ(spannerpb.TypeCode_INT64)},
	}}}, Stats: &spannerpb.ResultSetStats{RowCount: &spannerpb.ResultSetStats_RowCountExact{RowCountExact: 1}},
		Rows: []*structpb.ListValue{{Values: []*structpb.Value{str("9")}}}}
	s.AddResult(ins, &fakespanner.Result{ResultSet: rs})
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.ExecContext(ctx, txnInsert); err != nil {
		t.Fatal(err)
	}
	r, err := tx.ExecContext(ctx, ins)
	if err != nil {
		t.Fatal(err)
	}
	if id, err := r.LastInsertId(); err != nil || id != 9 {
		t.Errorf("LastInsertId = %d, %v; want 9", id, err)
	}
	if b := autoBatches(s); len(b) != 1 || len(b[0]) != 1 {
		t.Errorf("batches %q, want the buffered INSERT sent before the THEN RETURN", b)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}

// TestFakeAutoBatchDMLVerification: with
// auto_batch_dml_update_count_verification on (the default), counts that
// differ from those reported fail the query (FailedPrecondition, the query
// not sent) or the commit (FailedPrecondition, rolled back, nothing
// committed); off, the commit succeeds.
func TestFakeAutoBatchDMLVerification(t *testing.T) {
	ctx := context.Background()
	for _, verify := range []bool{true, false} {
		props := []string{"auto_batch_dml=true"}
		if !verify {
			props = append(props, "auto_batch_dml_update_count_verification=false")
		}
		s, db := startTxnFake(t, props...) // txnUpdate changes 3 rows, txnInsert 1
		for _, before := range []string{"query", "commit"} {
			s.ResetRequests()
			tx, err := db.BeginTx(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := tx.ExecContext(ctx, txnInsert); err != nil {
				t.Fatal(err)
			}
			if _, err := tx.ExecContext(ctx, txnUpdate); err != nil { // reports 1, changes 3
				t.Fatal(err)
			}
			if before == "query" {
				rows, err := tx.QueryContext(ctx, txnQuery)
				if verify {
					if status.Code(err) != codes.FailedPrecondition || len(s.RequestsFor("ExecuteStreamingSql")) != 0 {
						t.Errorf("query after a batch with other counts: %v, want FailedPrecondition and the query not sent", err)
					}
				} else if err != nil {
					t.Errorf("query: %v", err)
				} else {
					readStrings(t, rows)
				}
				if err := tx.Commit(); err != nil {
					t.Fatal(err)
				}
				continue
			}
			err = tx.Commit()
			commits, rollbacks := len(s.RequestsFor("Commit")), len(s.RequestsFor("Rollback"))
			if verify && (status.Code(err) != codes.FailedPrecondition || commits != 0 || rollbacks != 1) {
				t.Errorf("commit after a batch with other counts: %v, %d commits, %d rollbacks; want FailedPrecondition, 0, 1", err, commits, rollbacks)
			}
			if !verify && (err != nil || commits != 1) {
				t.Errorf("commit without verification: %v, %d commits", err, commits)
			}
		}
	}
}
