package e2e

import (
	"context"
	"database/sql"
	"fmt"
	"testing"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc/codes"

	sfdriver "github.com/spannerfast/spannerfast/driver"
	"github.com/spannerfast/spannerfast/internal/fakespanner"
)

// Requests sent again inside a transaction (a stream resumed or reopened,
// a unary call retried) against the scripted fake server: once the server
// named the transaction a request began inline, every request after that
// selects it by id, so one transaction holds all rows, later statements
// and the commit.

// selectorKinds lists, per request that carries a transaction selector,
// its method and selector: "begin", "id:<id>" or "single-use", and the
// Commit's id as "commit:<id>".
func selectorKinds(s *fakespanner.Server) []string {
	var out []string
	for _, r := range s.Requests() {
		var sel *spannerpb.TransactionSelector
		switch m := r.Message.(type) {
		case *spannerpb.ExecuteSqlRequest:
			sel = m.GetTransaction()
		case *spannerpb.ExecuteBatchDmlRequest:
			sel = m.GetTransaction()
		case *spannerpb.CommitRequest:
			out = append(out, r.Method+" commit:"+string(m.GetTransactionId()))
			continue
		case *spannerpb.BeginTransactionRequest:
			out = append(out, r.Method)
			continue
		default:
			continue
		}
		k := "single-use"
		switch {
		case sel.GetBegin() != nil:
			k = "begin"
		case sel.GetId() != nil:
			k = "id:" + string(sel.GetId())
		}
		out = append(out, r.Method+" "+k)
	}
	return out
}

// committedID is the transaction id of the last Commit the server got.
func committedID(t *testing.T, s *fakespanner.Server) string {
	t.Helper()
	commits := s.RequestsFor("Commit")
	if len(commits) == 0 {
		t.Fatal("no Commit")
	}
	return string(commits[len(commits)-1].Message.(*spannerpb.CommitRequest).GetTransactionId())
}

// TestFakeResumeInTransactionKeepsTransaction: the first query of a
// read-write transaction begins it inline; UNAVAILABLE after its first
// message resumes the stream, and the resumed request selects the
// transaction the first message named, not a new one. The DML after it and
// the commit go to that same transaction.
func TestFakeResumeInTransactionKeepsTransaction(t *testing.T) {
	for _, tc := range []struct {
		name  string
		split fakespanner.SplitOptions
	}{
		// The first message (metadata, id, row "a") carries a resume
		// token: the resumed request continues after it.
		{"after a resume token", fakespanner.SplitOptions{MaxValues: 1}},
		// No token yet when the stream breaks: the query restarts from
		// the beginning, but in the transaction the lost attempt began.
		{"before any resume token", fakespanner.SplitOptions{MaxValues: 1, ResumeTokenEvery: fakespanner.NoResumeTokens}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			s, db := startTxnFake(t)
			s.AddResult(txnQuery, &fakespanner.Result{ResultSet: stringRows("a", "b"), Split: tc.split,
				Faults: []fakespanner.Fault{{AfterMessage: 1, Err: fakespanner.ErrUnavailable}}})
			tx, err := db.BeginTx(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := fmt.Sprint(readStrings(t, mustQuery(t, tx, txnQuery))); got != "[a b]" {
				t.Fatalf("rows %s, want [a b]", got)
			}
			if _, err := tx.ExecContext(ctx, txnUpdate); err != nil {
				t.Fatal(err)
			}
			if err := tx.Commit(); err != nil {
				t.Fatal(err)
			}
			id := committedID(t, s)
			want := fmt.Sprint([]string{
				"ExecuteStreamingSql begin",
				"ExecuteStreamingSql id:" + id,
				"ExecuteSql id:" + id,
				"Commit commit:" + id,
			})
			if got := fmt.Sprint(selectorKinds(s)); got != want {
				t.Fatalf("requests\n%s\nwant\n%s", got, want)
			}
			streams := s.RequestsFor("ExecuteStreamingSql")
			wantToken := tc.split.ResumeTokenEvery != fakespanner.NoResumeTokens
			if got := len(streams[1].ExecuteSQL().GetResumeToken()) > 0; got != wantToken {
				t.Fatalf("resumed request has a resume token: %v, want %v", got, wantToken)
			}
			if streams[0].ExecuteSQL().GetSeqno() != streams[1].ExecuteSQL().GetSeqno() {
				t.Fatal("the resumed request must keep the query's sequence number")
			}
		})
	}
}

// TestFakeResumeInReadOnlyTransaction: the same for a multi-use read-only
// transaction: the resumed stream and the next query read at the snapshot
// the first query began, not at a second one.
func TestFakeResumeInReadOnlyTransaction(t *testing.T) {
	ctx := context.Background()
	s, db := startTxnFake(t)
	s.AddResult(txnQuery, &fakespanner.Result{ResultSet: stringRows("a", "b"), Split: fakespanner.SplitOptions{MaxValues: 1},
		Faults: []fakespanner.Fault{{AfterMessage: 1, Err: fakespanner.ErrUnavailable}}})
	tx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(readStrings(t, mustQuery(t, tx, txnQuery))); got != "[a b]" {
		t.Fatalf("rows %s, want [a b]", got)
	}
	readStrings(t, mustQuery(t, tx, "SELECT 1"))
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	id := string(s.RequestsFor("ExecuteStreamingSql")[2].ExecuteSQL().GetTransaction().GetId())
	want := fmt.Sprint([]string{
		"ExecuteStreamingSql begin",
		"ExecuteStreamingSql id:" + id,
		"ExecuteStreamingSql id:" + id,
	})
	if got := fmt.Sprint(selectorKinds(s)); got != want {
		t.Fatalf("requests\n%s\nwant\n%s", got, want)
	}
}

// TestFakeRetryBeforeAnyResponseBeginsAgain: a request that began a
// transaction inline and failed before any response (no id came back) is
// sent again as it was, with the begin selector, as the official client
// does; only the transaction the answered attempt began is used after
// that. Streams (ExecuteStreamingSql), single DML (ExecuteSql) and DML
// batches (ExecuteBatchDml) alike. (An audit: this behaviour is not new.)
func TestFakeRetryBeforeAnyResponseBeginsAgain(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		method string
		run    func(tx *sql.Tx) error
	}{
		{"ExecuteStreamingSql", func(tx *sql.Tx) error {
			rows, err := tx.QueryContext(ctx, txnQuery)
			if err != nil {
				return err
			}
			return rows.Close()
		}},
		{"ExecuteSql", func(tx *sql.Tx) error { _, err := tx.ExecContext(ctx, txnUpdate); return err }},
		{"ExecuteBatchDml", func(tx *sql.Tx) error {
			if _, err := tx.ExecContext(ctx, "START BATCH DML"); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, txnUpdate); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, txnInsert); err != nil {
				return err
			}
			_, err := tx.ExecContext(ctx, "RUN BATCH")
			return err
		}},
	} {
		t.Run(tc.method, func(t *testing.T) {
			s, db := startTxnFake(t)
			if tc.method == "ExecuteStreamingSql" {
				s.AddResult(txnQuery, &fakespanner.Result{ResultSet: stringRows("a", "b"), Split: fakespanner.SplitOptions{MaxValues: 1},
					Faults: []fakespanner.Fault{{AfterMessage: 0, Err: fakespanner.ErrUnavailable}}})
			} else {
				s.AddMethodFault(tc.method, fakespanner.Fault{Err: fakespanner.ErrUnavailable})
			}
			c := dbConn(t, db)
			tx, err := c.BeginTx(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := tc.run(tx); err != nil {
				t.Fatal(err)
			}
			if _, err := tx.ExecContext(ctx, txnInsert); err != nil {
				t.Fatal(err)
			}
			if err := tx.Commit(); err != nil {
				t.Fatal(err)
			}
			kinds := selectorKinds(s)
			if len(kinds) < 4 || kinds[0] != tc.method+" begin" || kinds[1] != tc.method+" begin" {
				t.Fatalf("requests %v, want %s twice with the begin selector first", kinds, tc.method)
			}
			// The stream's first attempt began its transaction before the
			// fault (the fake begins, then fails); a unary one never got
			// that far. Either way the transaction used is the answered
			// attempt's, and everything after it uses that one.
			used := committedID(t, s)
			for _, k := range kinds[2:] {
				if k != "ExecuteSql id:"+used && k != "Commit commit:"+used {
					t.Fatalf("requests %v: %q is not in transaction %s", kinds, k, used)
				}
			}
		})
	}
}

// TestFakeReplayBeginsExplicitly: after an abort the replay begins its
// transaction with BeginTransaction (as the official client's
// statement-based transactions retry), naming the aborted transaction so
// Spanner keeps its lock priority; every replayed statement and the commit
// select the new transaction by id. Autocommit DML, retried whole, begins
// inline again, also naming the aborted transaction.
func TestFakeReplayBeginsExplicitly(t *testing.T) {
	ctx := context.Background()
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
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	commits := s.RequestsFor("Commit")
	first := string(commits[0].Message.(*spannerpb.CommitRequest).GetTransactionId())
	second := committedID(t, s)
	want := fmt.Sprint([]string{
		"ExecuteStreamingSql begin",
		"ExecuteSql id:" + first,
		"Commit commit:" + first,
		"BeginTransaction",
		"ExecuteStreamingSql id:" + second,
		"ExecuteSql id:" + second,
		"Commit commit:" + second,
	})
	if got := fmt.Sprint(selectorKinds(s)); got != want || first == second {
		t.Fatalf("requests\n%s\nwant\n%s", got, want)
	}
	begin := s.RequestsFor("BeginTransaction")[0].Message.(*spannerpb.BeginTransactionRequest)
	if prev := string(begin.GetOptions().GetReadWrite().GetMultiplexedSessionPreviousTransactionId()); prev != first {
		t.Fatalf("BeginTransaction names previous transaction %q, want %q", prev, first)
	}

	s.ResetRequests()
	s.AddMethodFault("Commit", fakespanner.Fault{Err: fakespanner.WithRetryDelay(codes.Aborted, "aborted", 0)})
	if _, err := db.ExecContext(ctx, txnUpdate); err != nil {
		t.Fatal(err)
	}
	execs := s.RequestsFor("ExecuteSql")
	commits = s.RequestsFor("Commit")
	if len(execs) != 2 || len(commits) != 2 || len(s.RequestsFor("BeginTransaction")) != 0 {
		t.Fatalf("autocommit after an abort: requests %v", selectorKinds(s))
	}
	aborted := string(commits[0].Message.(*spannerpb.CommitRequest).GetTransactionId())
	retry := execs[1].ExecuteSQL().GetTransaction().GetBegin()
	if retry == nil || string(retry.GetReadWrite().GetMultiplexedSessionPreviousTransactionId()) != aborted {
		t.Fatalf("autocommit retry selector %v, want an inline begin naming %q", execs[1].ExecuteSQL().GetTransaction(), aborted)
	}
}

// TestFakeRunTransactionRetryBeginsExplicitly: RunTransaction runs the
// function again after an abort in a transaction begun with
// BeginTransaction, as go-sql-spanner's RunTransaction retries; the first
// attempt begins inline.
func TestFakeRunTransactionRetryBeginsExplicitly(t *testing.T) {
	ctx := context.Background()
	s, db := startTxnFake(t)
	s.AddMethodFault("Commit", fakespanner.Fault{Err: fakespanner.WithRetryDelay(codes.Aborted, "aborted", 0)})
	calls := 0
	err := sfdriver.RunTransaction(ctx, db, nil, func(ctx context.Context, tx *sql.Tx) error {
		calls++
		_, err := tx.ExecContext(ctx, txnUpdate)
		return err
	})
	if err != nil || calls != 2 {
		t.Fatalf("RunTransaction = %v after %d calls, want success after 2", err, calls)
	}
	commits := s.RequestsFor("Commit")
	first := string(commits[0].Message.(*spannerpb.CommitRequest).GetTransactionId())
	second := committedID(t, s)
	want := fmt.Sprint([]string{
		"ExecuteSql begin",
		"Commit commit:" + first,
		"BeginTransaction",
		"ExecuteSql id:" + second,
		"Commit commit:" + second,
	})
	if got := fmt.Sprint(selectorKinds(s)); got != want {
		t.Fatalf("requests\n%s\nwant\n%s", got, want)
	}
	// The connection's own setting is untouched: the next transaction
	// begins inline again.
	s.ResetRequests()
	if err := sfdriver.RunTransaction(ctx, db, nil, func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, txnUpdate)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if got := selectorKinds(s); len(got) != 2 || got[0] != "ExecuteSql begin" {
		t.Fatalf("next RunTransaction: requests %v, want an inline begin", got)
	}
}
