package e2e

import (
	"context"
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

// TestFakeReplayedRowsKeepQueryContext: rows an abort replay reopens keep
// the context of the query that opened them, not that of the statement
// whose abort triggered the replay. With statement_timeout set, an UPDATE
// bounds its own call by a context that ends when it returns; the query's
// rows, reopened by the replay the UPDATE's abort started, must read on
// after that: all six rows, each once, without CANCELED.
func TestFakeReplayedRowsKeepQueryContext(t *testing.T) {
	ctx := context.Background()
	s := fakespanner.Start(t)
	const query = "SELECT n FROM numbers ORDER BY n"
	s.AddResult(query, &fakespanner.Result{ResultSet: int64Rows(1, 2, 3, 4, 5, 6), Split: fakespanner.SplitOptions{MaxValues: 1},
		// The rows after the third come slowly, every time: the reopened
		// stream is still running when the UPDATE has returned.
		Faults: []fakespanner.Fault{{AfterMessage: 4, Delay: 50 * time.Millisecond, Times: -1}}})
	s.AddResult(txnUpdate, fakespanner.DML(3))
	db := openFake(t, s, "statement_timeout=30s")

	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	rows, err := tx.QueryContext(ctx, query)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []int64
	next := func() {
		t.Helper()
		var n int64
		if !rows.Next() {
			t.Fatalf("after %v: no row: %v", got, rows.Err())
		}
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		got = append(got, n)
	}
	for range 3 {
		next()
	}
	s.AddMethodFault("ExecuteSql", fakespanner.Fault{Err: fakespanner.WithRetryDelay(codes.Aborted, "aborted", time.Millisecond)})
	if _, err := tx.ExecContext(ctx, txnUpdate); err != nil {
		t.Fatalf("UPDATE (aborted once, replayed): %v", err)
	}
	if n := len(s.RequestsFor("ExecuteStreamingSql")); n != 2 {
		t.Fatalf("%d query requests, want 2: the replay reopens the query", n)
	}
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
	ctx := context.Background()
	s := fakespanner.Start(t)
	const query = "SELECT n FROM numbers ORDER BY n"
	s.AddResult(query, &fakespanner.Result{ResultSet: int64Rows(1, 2, 3, 4, 5, 6), Split: fakespanner.SplitOptions{MaxValues: 1},
		// After three rows the stream waits until the client gives up.
		Faults: []fakespanner.Fault{{AfterMessage: 3, Hang: true, Times: -1}}})
	s.AddResult(txnUpdate, fakespanner.DML(3))
	const timeout = time.Second
	db := openFake(t, s, "statement_timeout="+timeout.String())

	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	rows, err := tx.QueryContext(ctx, query)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
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
	time.Sleep(timeout + 200*time.Millisecond) // the query's deadline passes
	s.AddMethodFault("ExecuteSql", fakespanner.Fault{Err: fakespanner.WithRetryDelay(codes.Aborted, "aborted", time.Millisecond)})
	if _, err := tx.ExecContext(ctx, txnUpdate); err != nil {
		t.Fatalf("UPDATE (aborted once, replayed): %v", err)
	}
	if n := len(s.RequestsFor("ExecuteStreamingSql")); n != 2 {
		t.Fatalf("%d query requests, want 2: the replay checks the rows read", n)
	}
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
	if fmt.Sprint(got) != "[1 2 3]" {
		t.Fatalf("rows %v", got)
	}
}
