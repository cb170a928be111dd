package e2e

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"testing"
	"time"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/spannerfast/spannerfast/internal/fakespanner"
)

// int64Rows is a result of one INT64 column "n" with the given values.
func int64Rows(vals ...int64) *spannerpb.ResultSet {
	rs := &spannerpb.ResultSet{Metadata: &spannerpb.ResultSetMetadata{RowType: &spannerpb.StructType{Fields: []*spannerpb.StructType_Field{
		{Name: "n", Type: typ(spannerpb.TypeCode_INT64)},
	}}}}
	for _, v := range vals {
		rs.Rows = append(rs.Rows, &structpb.ListValue{Values: []*structpb.Value{str(strconv.FormatInt(v, 10))}})
	}
	return rs
}

// replayUnderOpenRows is the scenario of the tests below: in a read-write
// transaction on a connection with statement_timeout, a query of six rows
// (one per message, fault at the positions given) is read three rows far;
// wait passes; then an UPDATE is aborted once, and its replay runs the
// query again. It returns the rows (still open), the values read and the
// transaction.
func replayUnderOpenRows(t *testing.T, timeout time.Duration, fault fakespanner.Fault, wait time.Duration) (*fakespanner.Server, *sql.Tx, *sql.Rows, []int64) {
	t.Helper()
	ctx := context.Background()
	s := fakespanner.Start(t)
	const query = "SELECT n FROM numbers ORDER BY n"
	s.AddResult(query, &fakespanner.Result{ResultSet: int64Rows(1, 2, 3, 4, 5, 6), Split: fakespanner.SplitOptions{MaxValues: 1},
		Faults: []fakespanner.Fault{fault}})
	s.AddResult(txnUpdate, fakespanner.DML(3))
	db := openFake(t, s, "statement_timeout="+timeout.String())
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tx.Rollback() })
	rows, err := tx.QueryContext(ctx, query)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rows.Close() })
	var got []int64
	for range 3 {
		var n int64
		if !rows.Next() {
			t.Fatalf("after %v: no row: %v", got, rows.Err())
		}
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		got = append(got, n)
	}
	time.Sleep(wait)
	s.AddMethodFault("ExecuteSql", fakespanner.Fault{Err: fakespanner.WithRetryDelay(codes.Aborted, "aborted", time.Millisecond)})
	if _, err := tx.ExecContext(ctx, txnUpdate); err != nil {
		t.Fatalf("UPDATE (aborted once, replayed): %v", err)
	}
	if n := len(s.RequestsFor("ExecuteStreamingSql")); n != 2 {
		t.Fatalf("%d query requests, want 2: the replay runs the query again", n)
	}
	return s, tx, rows, got
}

// TestFakeReplayedRowsKeepQueryContext: rows an abort replay reopens keep
// the context of the query that opened them, not that of the statement
// whose abort triggered the replay. With statement_timeout set, an UPDATE
// bounds its own call by a context that ends when it returns; the query's
// rows, reopened by the replay the UPDATE's abort started, must read on
// after that: all six rows, each once, without CANCELED.
func TestFakeReplayedRowsKeepQueryContext(t *testing.T) {
	// The rows after the fourth come slowly, every time: the reopened
	// stream is still running when the UPDATE has returned.
	_, tx, rows, got := replayUnderOpenRows(t, 30*time.Second,
		fakespanner.Fault{AfterMessage: 4, Delay: 50 * time.Millisecond, Times: -1}, 0)
	for rows.Next() {
		var n int64
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		got = append(got, n)
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("rows after the replay, having read %v: %v", got, err)
	}
	if fmt.Sprint(got) != "[1 2 3 4 5 6]" {
		t.Fatalf("rows %v, want [1 2 3 4 5 6]", got)
	}
	rows.Close()
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}

// TestFakeReplayedRowsPastTheirDeadline: open rows whose own
// statement_timeout deadline passed before a replay are not reopened (their
// stream would have ended there): the replay checks the rows the
// application read, within its own deadline, the statement that started it
// succeeds and the transaction commits, and the rows end with
// DEADLINE_EXCEEDED, as the stream they had did.
func TestFakeReplayedRowsPastTheirDeadline(t *testing.T) {
	// After three rows the stream waits until the client gives up; the
	// query's deadline passes before the UPDATE.
	const timeout = time.Second
	_, tx, rows, _ := replayUnderOpenRows(t, timeout,
		fakespanner.Fault{AfterMessage: 3, Hang: true, Times: -1}, timeout+200*time.Millisecond)
	if rows.Next() {
		t.Fatalf("a row after the query's deadline")
	}
	if err := rows.Err(); status.Code(err) != codes.DeadlineExceeded {
		t.Fatalf("rows after the replay: %v, want DEADLINE_EXCEEDED", err)
	}
	rows.Close()
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}
