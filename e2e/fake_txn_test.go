package e2e

import (
	"context"
	"database/sql"
	"errors"
	"testing"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/structpb"

	sfdriver "github.com/spannerfast/spannerfast/driver"
	"github.com/spannerfast/spannerfast/internal/fakespanner"
)

// Transactions against the scripted fake server: the exact requests the
// driver sends.

const (
	txnQuery  = "SELECT s FROM t"
	txnUpdate = "UPDATE t SET s = 'x' WHERE true"
	txnInsert = "INSERT INTO t (s) VALUES ('y')"
)

// startTxnFake serves txnQuery (two STRING rows in two messages with
// tokens) and two DML statements.
func startTxnFake(t *testing.T, props ...string) (*fakespanner.Server, *sql.DB) {
	t.Helper()
	s := fakespanner.Start(t)
	s.AddResult(txnQuery, &fakespanner.Result{ResultSet: stringRows("a", "b"), Split: fakespanner.SplitOptions{MaxValues: 1}})
	s.AddResult(txnUpdate, fakespanner.DML(3))
	s.AddResult(txnInsert, fakespanner.DML(1))
	db := openFake(t, s, props...)
	return s, db
}

func stringRows(vals ...string) *spannerpb.ResultSet {
	rs := &spannerpb.ResultSet{Metadata: &spannerpb.ResultSetMetadata{RowType: &spannerpb.StructType{Fields: []*spannerpb.StructType_Field{
		{Name: "s", Type: typ(spannerpb.TypeCode_STRING)},
	}}}}
	for _, v := range vals {
		rs.Rows = append(rs.Rows, &structpb.ListValue{Values: []*structpb.Value{str(v)}})
	}
	return rs
}

func readStrings(t *testing.T, rows *sql.Rows) []string {
	t.Helper()
	defer rows.Close()
	var out []string
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestFakeReadWriteTransaction: the first statement begins the transaction
// inline, later ones use its id with increasing seqno, and Commit carries
// the id, the tag and the latest precommit token.
func TestFakeReadWriteTransaction(t *testing.T) {
	ctx := context.Background()
	s, db := startTxnFake(t)
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.ExecContext(ctx, "SET TRANSACTION_TAG = 'tx-tag'"); err != nil {
		t.Fatal(err)
	}
	tx, err := c.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := readStrings(t, mustQuery(t, tx, txnQuery)); len(got) != 2 {
		t.Fatalf("rows %v", got)
	}
	res, err := tx.ExecContext(ctx, txnUpdate)
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := res.RowsAffected(); n != 3 {
		t.Fatalf("RowsAffected = %d, want 3", n)
	}
	if _, err := tx.ExecContext(ctx, txnInsert); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}

	streams := s.RequestsFor("ExecuteStreamingSql")
	execs := s.RequestsFor("ExecuteSql")
	commits := s.RequestsFor("Commit")
	if len(streams) != 1 || len(execs) != 2 || len(commits) != 1 || len(s.RequestsFor("BeginTransaction")) != 0 {
		t.Fatalf("requests: %d streams, %d ExecuteSql, %d Commit, %d BeginTransaction", len(streams), len(execs), len(commits), len(s.RequestsFor("BeginTransaction")))
	}
	first := streams[0].ExecuteSQL()
	begin := first.GetTransaction().GetBegin()
	if begin.GetReadWrite() == nil {
		t.Fatalf("first statement's selector %v, want an inline read-write begin", first.GetTransaction())
	}
	id := execs[0].ExecuteSQL().GetTransaction().GetId()
	if len(id) == 0 || string(execs[1].ExecuteSQL().GetTransaction().GetId()) != string(id) {
		t.Fatalf("later statements' selectors %v / %v, want the begun id", execs[0].ExecuteSQL().GetTransaction(), execs[1].ExecuteSQL().GetTransaction())
	}
	seq := []int64{first.GetSeqno(), execs[0].ExecuteSQL().GetSeqno(), execs[1].ExecuteSQL().GetSeqno()}
	if !(seq[0] > 0 && seq[1] > seq[0] && seq[2] > seq[1]) {
		t.Fatalf("seqno %v, want increasing from 1", seq)
	}
	for _, r := range []*spannerpb.ExecuteSqlRequest{first, execs[0].ExecuteSQL(), execs[1].ExecuteSQL()} {
		if r.GetRequestOptions().GetTransactionTag() != "tx-tag" {
			t.Fatalf("%s: transaction tag %q, want tx-tag", r.GetSql(), r.GetRequestOptions().GetTransactionTag())
		}
	}
	cr := commits[0].Message.(*spannerpb.CommitRequest)
	if string(cr.GetTransactionId()) != string(id) {
		t.Fatalf("Commit of %q, want %q", cr.GetTransactionId(), id)
	}
	if cr.GetPrecommitToken() == nil || cr.GetPrecommitToken().GetSeqNum() != 3 {
		t.Fatalf("Commit precommit token %v, want the one with seq 3", cr.GetPrecommitToken())
	}
	if cr.GetRequestOptions().GetTransactionTag() != "tx-tag" {
		t.Fatalf("Commit transaction tag %q", cr.GetRequestOptions().GetTransactionTag())
	}
	// commit_timestamp is there afterwards.
	var ts any
	if err := c.QueryRowContext(ctx, "SHOW VARIABLE commit_timestamp").Scan(&ts); err != nil || ts == nil {
		t.Fatalf("SHOW VARIABLE commit_timestamp = %v, %v; want a timestamp", ts, err)
	}
	// The transaction tag was for that transaction only.
	var tag string
	if err := c.QueryRowContext(ctx, "SHOW VARIABLE transaction_tag").Scan(&tag); err != nil || tag != "" {
		t.Fatalf("transaction_tag after the transaction = %q, %v; want empty", tag, err)
	}
}

type queryerCtx interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

func mustQuery(t *testing.T, q queryerCtx, query string, args ...any) *sql.Rows {
	t.Helper()
	rows, err := q.QueryContext(context.Background(), query, args...)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return rows
}

// TestFakeAutocommitDML: DML outside a transaction begins inline on
// ExecuteSql (last_statement set) and commits.
func TestFakeAutocommitDML(t *testing.T) {
	ctx := context.Background()
	s, db := startTxnFake(t)
	res, err := db.ExecContext(ctx, txnUpdate)
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := res.RowsAffected(); n != 3 {
		t.Fatalf("RowsAffected = %d, want 3", n)
	}
	execs := s.RequestsFor("ExecuteSql")
	if len(execs) != 1 || execs[0].ExecuteSQL().GetTransaction().GetBegin().GetReadWrite() == nil || !execs[0].ExecuteSQL().GetLastStatement() {
		t.Fatalf("ExecuteSql requests %v", execs)
	}
	if n := len(s.RequestsFor("Commit")); n != 1 {
		t.Fatalf("%d Commit requests, want 1", n)
	}
}

// TestFakeAbortReplay: an abort at commit replays the transaction; with
// the same results it commits, with changed results it fails with
// ErrAbortedDueToConcurrentModification.
func TestFakeAbortReplay(t *testing.T) {
	ctx := context.Background()
	for _, changed := range []bool{false, true} {
		s, db := startTxnFake(t)
		s.AddMethodFault("Commit", fakespanner.Fault{Err: fakespanner.WithRetryDelay(codes.Aborted, "aborted", 0)})
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		readStrings(t, mustQuery(t, tx, txnQuery))
		if _, err := tx.ExecContext(ctx, txnUpdate); err != nil {
			t.Fatal(err)
		}
		if changed {
			s.AddResult(txnQuery, &fakespanner.Result{ResultSet: stringRows("a", "c")})
		}
		err = tx.Commit()
		if changed {
			if !errors.Is(err, sfdriver.ErrAbortedDueToConcurrentModification) || status.Code(err) != codes.Aborted {
				t.Fatalf("changed data: Commit = %v, want ErrAbortedDueToConcurrentModification", err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("same data: Commit = %v", err)
		}
		if n := len(s.RequestsFor("Commit")); n != 2 {
			t.Fatalf("%d Commit requests, want 2", n)
		}
		if n := len(s.RequestsFor("ExecuteStreamingSql")); n != 2 {
			t.Fatalf("%d query requests, want 2 (the replay)", n)
		}
	}
}
