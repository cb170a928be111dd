package e2e

import (
	"context"
	"database/sql"
	sqldriver "database/sql/driver"
	"errors"
	"fmt"
	"io"
	"sync"
	"testing"
	"time"

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

// readStrings reads the strings of the current result set and closes rows.
func readStrings(t *testing.T, rows *sql.Rows) []string {
	t.Helper()
	defer rows.Close()
	return readStringsKeep(t, rows)
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
	// An aborted commit runs the statement again in a new transaction.
	s.AddMethodFault("Commit", fakespanner.Fault{Err: fakespanner.WithRetryDelay(codes.Aborted, "aborted", time.Millisecond)})
	if _, err := db.ExecContext(ctx, txnUpdate); err != nil {
		t.Fatal(err)
	}
	execs = s.RequestsFor("ExecuteSql")
	if len(execs) != 3 || len(s.RequestsFor("Commit")) != 3 || execs[2].ExecuteSQL().GetTransaction().GetBegin() == nil {
		t.Fatalf("after an aborted autocommit: %d ExecuteSql, %d Commit; want 3 and 3, the retry beginning anew", len(execs), len(s.RequestsFor("Commit")))
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

// TestFakeInlineBeginFallback: when the statement that was to begin the
// transaction fails, its error is returned as the server gave it (the
// statement is sent once, as go-sql-spanner sends it), and the next
// statement begins the transaction with BeginTransaction, after running the
// failed statement again in it: it must fail the same way (the application
// may have acted on that failure), else the transaction fails with
// ErrAbortedDueToConcurrentModification. Without replays the transaction
// is reported aborted instead, and RunTransaction runs the function again.
func TestFakeInlineBeginFallback(t *testing.T) {
	ctx := context.Background()
	failing := func(s *fakespanner.Server, times int) {
		s.AddResult(txnQuery, &fakespanner.Result{ResultSet: stringRows("a", "b"),
			Faults: []fakespanner.Fault{{Err: status.Error(codes.FailedPrecondition, "first attempt fails"), Times: times}}})
	}
	t.Run("same error in the transaction", func(t *testing.T) {
		s, db := startTxnFake(t)
		failing(s, -1)
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.QueryContext(ctx, txnQuery); status.Code(err) != codes.FailedPrecondition {
			t.Fatalf("first query: %v, want FailedPrecondition", err)
		}
		if n := len(s.Requests()); len(s.RequestsFor("ExecuteStreamingSql")) != 1 || len(s.RequestsFor("BeginTransaction")) != 0 {
			t.Fatalf("after the failed first query: %d requests %v, want the query sent once", n, selectorKinds(s))
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
			"BeginTransaction",
			"ExecuteStreamingSql id:" + id,
			"ExecuteSql id:" + id,
			"Commit commit:" + id,
		})
		if got := fmt.Sprint(selectorKinds(s)); got != want {
			t.Fatalf("requests\n%s\nwant\n%s", got, want)
		}
		if s.RequestsFor("BeginTransaction")[0].Message.(*spannerpb.BeginTransactionRequest).GetOptions().GetReadWrite() == nil {
			t.Fatal("explicit BeginTransaction is not read-write")
		}
	})
	t.Run("success in the transaction", func(t *testing.T) {
		s, db := startTxnFake(t)
		failing(s, 1)
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback()
		if _, err := tx.QueryContext(ctx, txnQuery); status.Code(err) != codes.FailedPrecondition {
			t.Fatalf("first query: %v, want FailedPrecondition", err)
		}
		if _, err := tx.ExecContext(ctx, txnUpdate); !errors.Is(err, sfdriver.ErrAbortedDueToConcurrentModification) {
			t.Fatalf("next statement: %v, want ErrAbortedDueToConcurrentModification", err)
		}
		if n := len(s.RequestsFor("ExecuteSql")); n != 0 {
			t.Fatalf("%d ExecuteSql, want none: the update must not run", n)
		}
	})
	t.Run("without replays", func(t *testing.T) {
		s, db := startTxnFake(t)
		failing(s, 1)
		calls := 0
		err := sfdriver.RunTransaction(ctx, db, nil, func(ctx context.Context, tx *sql.Tx) error {
			calls++
			rows, err := tx.QueryContext(ctx, txnQuery)
			if err == nil {
				rows.Close()
			} else if status.Code(err) != codes.FailedPrecondition {
				return err
			}
			_, err = tx.ExecContext(ctx, txnUpdate)
			return err
		})
		if err != nil || calls != 2 {
			t.Fatalf("RunTransaction = %v after %d calls, want success after 2 (the first reported aborted)", err, calls)
		}
		// The second attempt begins with BeginTransaction (a retry after
		// an abort); the first attempt's update was never sent.
		if n, b := len(s.RequestsFor("ExecuteSql")), len(s.RequestsFor("BeginTransaction")); n != 1 || b != 1 {
			t.Fatalf("%d ExecuteSql and %d BeginTransaction, want 1 and 1", n, b)
		}
	})
}

// TestFakeExplicitBegin: begin_transaction_option=EXPLICIT begins with
// BeginTransaction before the first statement.
func TestFakeExplicitBegin(t *testing.T) {
	ctx := context.Background()
	s, db := startTxnFake(t, "begin_transaction_option=EXPLICIT")
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.ExecContext(ctx, txnUpdate); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	execs := s.RequestsFor("ExecuteSql")
	if len(s.RequestsFor("BeginTransaction")) != 1 || len(execs) != 1 || len(execs[0].ExecuteSQL().GetTransaction().GetId()) == 0 {
		t.Fatalf("want one BeginTransaction and the DML by id; got %d begins, selector %v", len(s.RequestsFor("BeginTransaction")), execs[0].ExecuteSQL().GetTransaction())
	}
}

// TestFakeReadOnlyTransaction: a read-only transaction begins inline at the
// connection's staleness, asks for its read timestamp, reuses its id, sends
// nothing at commit, and refuses DML without sending it.
func TestFakeReadOnlyTransaction(t *testing.T) {
	ctx := context.Background()
	s, db := startTxnFake(t, "read_only_staleness=EXACT_STALENESS 10s")
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	tx, err := c.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	readStrings(t, mustQuery(t, tx, txnQuery))
	readStrings(t, mustQuery(t, tx, txnQuery))
	if _, err := tx.ExecContext(ctx, txnUpdate); status.Code(err) != codes.FailedPrecondition {
		t.Fatalf("DML in a read-only transaction: %v, want FailedPrecondition", err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	streams := s.RequestsFor("ExecuteStreamingSql")
	ro := streams[0].ExecuteSQL().GetTransaction().GetBegin().GetReadOnly()
	if ro.GetExactStaleness().AsDuration().Seconds() != 10 || !ro.GetReturnReadTimestamp() {
		t.Fatalf("first query's begin %v, want exact staleness 10s with the read timestamp", ro)
	}
	if len(streams[1].ExecuteSQL().GetTransaction().GetId()) == 0 {
		t.Fatalf("second query's selector %v, want the id", streams[1].ExecuteSQL().GetTransaction())
	}
	if n := len(s.RequestsFor("Commit")) + len(s.RequestsFor("Rollback")) + len(s.RequestsFor("ExecuteSql")); n != 0 {
		t.Fatalf("%d Commit/Rollback/ExecuteSql requests for a read-only transaction", n)
	}
	var ts time.Time
	if err := c.QueryRowContext(ctx, "SHOW VARIABLE read_timestamp").Scan(&ts); err != nil || !ts.Equal(fakespanner.ReadTimestamp) {
		t.Fatalf("read_timestamp = %v, %v; want %v", ts, err, fakespanner.ReadTimestamp)
	}
	// Max staleness is for single queries only.
	if _, err := c.ExecContext(ctx, "SET READ_ONLY_STALENESS = 'MAX_STALENESS 10s'"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.BeginTx(ctx, &sql.TxOptions{ReadOnly: true}); status.Code(err) != codes.InvalidArgument {
		t.Fatalf("read-only transaction at max staleness: %v, want InvalidArgument", err)
	}
}

// TestFakeAbortAtEveryStatement: an abort at any statement or at the commit
// replays the transaction; with identical results it commits and the
// application sees each row once, with a changed result it fails with
// ErrAbortedDueToConcurrentModification.
func TestFakeAbortAtEveryStatement(t *testing.T) {
	ctx := context.Background()
	aborted := fakespanner.WithRetryDelay(codes.Aborted, "aborted", time.Millisecond)
	type where struct {
		name  string
		setup func(s *fakespanner.Server)
	}
	places := []where{
		{"query start", func(s *fakespanner.Server) {
			s.AddResult(txnQuery, &fakespanner.Result{ResultSet: stringRows("a", "b"), Split: fakespanner.SplitOptions{MaxValues: 1},
				Faults: []fakespanner.Fault{{Err: aborted}}})
		}},
		{"query middle", func(s *fakespanner.Server) {
			s.AddResult(txnQuery, &fakespanner.Result{ResultSet: stringRows("a", "b"), Split: fakespanner.SplitOptions{MaxValues: 1},
				Faults: []fakespanner.Fault{{AfterMessage: 1, Err: aborted}}})
		}},
		{"DML", func(s *fakespanner.Server) { s.AddMethodFault("ExecuteSql", fakespanner.Fault{Err: aborted}) }},
		{"commit", func(s *fakespanner.Server) { s.AddMethodFault("Commit", fakespanner.Fault{Err: aborted}) }},
	}
	for _, p := range places {
		for _, changed := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/changed=%v", p.name, changed), func(t *testing.T) {
				s, db := startTxnFake(t)
				tx, err := db.BeginTx(ctx, nil)
				if err != nil {
					t.Fatal(err)
				}
				res, err := tx.ExecContext(ctx, txnInsert)
				if err != nil {
					t.Fatal(err)
				}
				if changed {
					// Whatever is replayed now sees another count.
					s.AddResult(txnInsert, fakespanner.DML(2))
				}
				p.setup(s)
				rows, qerr := tx.QueryContext(ctx, txnQuery)
				var got []string
				var rerr error
				if qerr == nil {
					for rows.Next() {
						var v string
						rows.Scan(&v)
						got = append(got, v)
					}
					rerr = rows.Err()
					rows.Close()
				}
				_, derr := tx.ExecContext(ctx, txnUpdate)
				cerr := tx.Commit()
				first := errors.Join(qerr, rerr, derr, cerr)
				if changed {
					if !errors.Is(first, sfdriver.ErrAbortedDueToConcurrentModification) {
						t.Fatalf("changed data: errors %v, want ErrAbortedDueToConcurrentModification", first)
					}
					return
				}
				if first != nil {
					t.Fatalf("same data: %v", first)
				}
				if n, _ := res.RowsAffected(); n != 1 || fmt.Sprint(got) != "[a b]" {
					t.Fatalf("rows %v, count %d; want [a b] and 1", got, n)
				}
				if n := len(s.RequestsFor("Commit")); n != 1+btoi(p.name == "commit") {
					t.Fatalf("%d Commit requests", n)
				}
			})
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestFakeDisableRetryAborts: WithDisableRetryAborts and
// retry_aborts_internally=false give the application the abort.
func TestFakeDisableRetryAborts(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		props []string
		opts  *sql.TxOptions
	}{
		{nil, &sql.TxOptions{Isolation: sfdriver.WithDisableRetryAborts(sql.LevelSerializable)}},
		{[]string{"retry_aborts_internally=false"}, nil},
	} {
		s, db := startTxnFake(t, c.props...)
		s.AddMethodFault("Commit", fakespanner.Fault{Err: status.Error(codes.Aborted, "aborted")})
		tx, err := db.BeginTx(ctx, c.opts)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.ExecContext(ctx, txnUpdate); err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(); status.Code(err) != codes.Aborted {
			t.Fatalf("%v: Commit = %v, want Aborted", c.props, err)
		}
		if n := len(s.RequestsFor("ExecuteSql")); n != 1 {
			t.Fatalf("%d DML requests, want 1 (no replay)", n)
		}
		if c.opts != nil {
			iso := s.RequestsFor("ExecuteSql")[0].ExecuteSQL().GetTransaction().GetBegin().GetIsolationLevel()
			if iso != spannerpb.TransactionOptions_SERIALIZABLE {
				t.Fatalf("isolation %v, want SERIALIZABLE", iso)
			}
		}
	}
}

// TestFakeRunTransaction: RunTransaction runs the function again when the
// commit is aborted, without the driver's own replay.
func TestFakeRunTransaction(t *testing.T) {
	ctx := context.Background()
	s, db := startTxnFake(t)
	s.AddMethodFault("Commit", fakespanner.Fault{Err: fakespanner.WithRetryDelay(codes.Aborted, "aborted", time.Millisecond)})
	calls := 0
	err := sfdriver.RunTransaction(ctx, db, nil, func(ctx context.Context, tx *sql.Tx) error {
		calls++
		_, err := tx.ExecContext(ctx, txnUpdate)
		return err
	})
	if err != nil || calls != 2 {
		t.Fatalf("RunTransaction = %v after %d calls, want success after 2", err, calls)
	}
	if n := len(s.RequestsFor("Commit")); n != 2 {
		t.Fatalf("%d commits, want 2", n)
	}
	// An error from the function rolls back and is returned as is.
	rollbacks := len(s.RequestsFor("Rollback"))
	boom := errors.New("boom")
	err = sfdriver.RunTransaction(ctx, db, nil, func(ctx context.Context, tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, txnUpdate); err != nil {
			return err
		}
		return boom
	})
	if n := len(s.RequestsFor("Rollback")) - rollbacks; !errors.Is(err, boom) || n != 1 {
		t.Fatalf("RunTransaction = %v with %d rollbacks, want boom and 1 rollback", err, n)
	}
}

// TestFakeCommitPrecommitRetry: a commit answered with a newer precommit
// token is sent again with it.
func TestFakeCommitPrecommitRetry(t *testing.T) {
	ctx := context.Background()
	s, db := startTxnFake(t)
	s.SetCommitRetries(1)
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.ExecContext(ctx, txnUpdate); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	commits := s.RequestsFor("Commit")
	if len(commits) != 2 {
		t.Fatalf("%d commits, want 2", len(commits))
	}
	a := commits[0].Message.(*spannerpb.CommitRequest).GetPrecommitToken().GetSeqNum()
	b := commits[1].Message.(*spannerpb.CommitRequest).GetPrecommitToken().GetSeqNum()
	if b <= a {
		t.Fatalf("second commit's token seq %d, first %d: want the newer token", b, a)
	}
}

// TestFakePartitionedDML: autocommit_dml_mode=PARTITIONED_NON_ATOMIC runs
// DML in a partitioned transaction and reports its row count.
func TestFakePartitionedDML(t *testing.T) {
	ctx := context.Background()
	s, db := startTxnFake(t, "autocommit_dml_mode=PARTITIONED_NON_ATOMIC")
	res, err := db.ExecContext(ctx, txnUpdate)
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := res.RowsAffected(); n != 3 {
		t.Fatalf("RowsAffected = %d, want 3", n)
	}
	begins := s.RequestsFor("BeginTransaction")
	streams := s.RequestsFor("ExecuteStreamingSql")
	if len(begins) != 1 || begins[0].Message.(*spannerpb.BeginTransactionRequest).GetOptions().GetPartitionedDml() == nil {
		t.Fatalf("BeginTransaction requests %v, want one partitioned_dml", begins)
	}
	if len(streams) != 1 || len(streams[0].ExecuteSQL().GetTransaction().GetId()) == 0 || len(s.RequestsFor("Commit")) != 0 {
		t.Fatalf("want the DML streamed by transaction id and no commit")
	}
}

// TestFakeThenReturn: DML with THEN RETURN through QueryContext returns its
// rows after committing; through ExecContext one INT64 column is
// LastInsertId, anything else is refused and not committed.
func TestFakeThenReturn(t *testing.T) {
	ctx := context.Background()
	s, db := startTxnFake(t)
	ret := func(sql string, vals ...string) {
		rs := &spannerpb.ResultSet{Metadata: &spannerpb.ResultSetMetadata{RowType: &spannerpb.StructType{Fields: []*spannerpb.StructType_Field{
			{Name: "id", Type: typ(spannerpb.TypeCode_INT64)},
		}}}, Stats: &spannerpb.ResultSetStats{RowCount: &spannerpb.ResultSetStats_RowCountExact{RowCountExact: int64(len(vals))}}}
		for _, v := range vals {
			rs.Rows = append(rs.Rows, &structpb.ListValue{Values: []*structpb.Value{str(v)}})
		}
		s.AddResult(sql, &fakespanner.Result{ResultSet: rs})
	}
	ret("INSERT INTO t (s) VALUES ('a'), ('b') THEN RETURN id", "7", "8")
	ret("INSERT INTO t (s) VALUES ('c') THEN RETURN id", "9")
	ret("UPDATE t SET s = 'd' WHERE true THEN RETURN id", "9")

	rows := mustQuery(t, db, "INSERT INTO t (s) VALUES ('a'), ('b') THEN RETURN id")
	var ids []int64
	for rows.Next() {
		var id int64
		rows.Scan(&id)
		ids = append(ids, id)
	}
	rows.Close()
	if fmt.Sprint(ids) != "[7 8]" || len(s.RequestsFor("Commit")) != 1 {
		t.Fatalf("ids %v with %d commits, want [7 8] and 1", ids, len(s.RequestsFor("Commit")))
	}
	res, err := db.ExecContext(ctx, "INSERT INTO t (s) VALUES ('c') THEN RETURN id")
	if err != nil {
		t.Fatal(err)
	}
	if id, err := res.LastInsertId(); id != 9 || err != nil {
		t.Fatalf("LastInsertId = %d, %v; want 9", id, err)
	}
	if _, err := db.ExecContext(ctx, "UPDATE t SET s = 'd' WHERE true THEN RETURN id"); status.Code(err) != codes.FailedPrecondition {
		t.Fatalf("ExecContext of UPDATE ... THEN RETURN: %v, want FailedPrecondition", err)
	}
	if n := len(s.RequestsFor("Commit")); n != 2 {
		t.Fatalf("%d commits, want 2: the refused UPDATE must not commit", n)
	}
	if res, _ := db.ExecContext(ctx, txnUpdate); res != nil {
		if _, err := res.LastInsertId(); status.Code(err) != codes.FailedPrecondition {
			t.Fatalf("LastInsertId without THEN RETURN: %v", err)
		}
	}
}

// TestFakeConcurrentTransactions: many goroutines run transactions on one
// *sql.DB; every commit carries its own transaction's id.
func TestFakeConcurrentTransactions(t *testing.T) {
	ctx := context.Background()
	s, db := startTxnFake(t)
	db.SetMaxOpenConns(4)
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for g := 0; g < 16; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 5; i++ {
				err := sfdriver.RunTransaction(ctx, db, nil, func(ctx context.Context, tx *sql.Tx) error {
					rows, err := tx.QueryContext(ctx, txnQuery)
					if err != nil {
						return err
					}
					for rows.Next() {
					}
					rows.Close()
					_, err = tx.ExecContext(ctx, txnUpdate)
					return err
				})
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if n := len(s.RequestsFor("Commit")); n != 80 {
		t.Fatalf("%d commits, want 80", n)
	}
}

// TestFakeOpenTransactionNotReused: a connection with an open read-write
// transaction is not valid for the pool, and ResetSession rolls the
// transaction back before anyone else gets the connection.
func TestFakeOpenTransactionNotReused(t *testing.T) {
	ctx := context.Background()
	s, _ := startTxnFake(t)
	dc := rawDriverConn(t, s)
	if _, err := dc.(sqldriver.ConnBeginTx).BeginTx(ctx, sqldriver.TxOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := dc.(sqldriver.ExecerContext).ExecContext(ctx, txnUpdate, nil); err != nil {
		t.Fatal(err)
	}
	if dc.(sqldriver.Validator).IsValid() {
		t.Fatal("IsValid true with an open read-write transaction")
	}
	if err := dc.(sqldriver.SessionResetter).ResetSession(ctx); err != nil {
		t.Fatal(err)
	}
	rb := s.RequestsFor("Rollback")
	if len(rb) != 1 || len(rb[0].Message.(*spannerpb.RollbackRequest).GetTransactionId()) == 0 {
		t.Fatalf("ResetSession sent %d Rollback requests, want 1 for the transaction", len(rb))
	}
	if !dc.(sqldriver.Validator).IsValid() {
		t.Fatal("IsValid false after ResetSession ended the transaction")
	}
	// The next user starts outside any transaction: DML commits on its own.
	if _, err := dc.(sqldriver.ExecerContext).ExecContext(ctx, txnUpdate, nil); err != nil {
		t.Fatal(err)
	}
	if n := len(s.RequestsFor("Commit")); n != 1 {
		t.Fatalf("%d commits, want 1 (autocommit after the reset)", n)
	}
}

// TestFakeUnknownCommitOutcomeDiscardsConnection: a commit that keeps
// breaking off (UNAVAILABLE: did it commit?) is retried a bounded number of
// times, then leaves the connection out of the pool.
func TestFakeUnknownCommitOutcomeDiscardsConnection(t *testing.T) {
	ctx := context.Background()
	s, _ := startTxnFake(t)
	s.AddMethodFault("Commit", fakespanner.Fault{Err: fakespanner.ErrUnavailable, Times: -1})
	dc := rawDriverConn(t, s)
	tx, err := dc.(sqldriver.ConnBeginTx).BeginTx(ctx, sqldriver.TxOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dc.(sqldriver.ExecerContext).ExecContext(ctx, txnUpdate, nil); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); status.Code(err) != codes.Unavailable {
		t.Fatalf("Commit = %v, want Unavailable", err)
	}
	if n := len(s.RequestsFor("Commit")); n < 2 {
		t.Fatalf("%d Commit attempts, want retries", n)
	}
	if dc.(sqldriver.Validator).IsValid() {
		t.Fatal("IsValid true after a commit whose outcome is unknown")
	}
	if err := dc.(sqldriver.SessionResetter).ResetSession(ctx); !errors.Is(err, sqldriver.ErrBadConn) {
		t.Fatalf("ResetSession = %v, want driver.ErrBadConn", err)
	}
}

// TestFakeTransactionOptions: the connection's transaction settings reach
// the requests they belong to.
func TestFakeTransactionOptions(t *testing.T) {
	ctx := context.Background()
	s, db := startTxnFake(t, "isolation_level=SERIALIZABLE", "read_lock_mode=OPTIMISTIC", "max_commit_delay=100ms",
		"return_commit_stats=true", "exclude_txn_from_change_streams=true", "commit_priority=HIGH", "rpc_priority=LOW")
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.ExecContext(ctx, "SET STATEMENT_TAG = 'st'"); err != nil {
		t.Fatal(err)
	}
	tx, err := c.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelRepeatableRead})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.ExecContext(ctx, txnUpdate); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	req := s.RequestsFor("ExecuteSql")[0].ExecuteSQL()
	begin := req.GetTransaction().GetBegin()
	if begin.GetIsolationLevel() != spannerpb.TransactionOptions_REPEATABLE_READ ||
		begin.GetReadWrite().GetReadLockMode() != spannerpb.TransactionOptions_ReadWrite_OPTIMISTIC ||
		!begin.GetExcludeTxnFromChangeStreams() {
		t.Fatalf("begin options %v", begin)
	}
	if ro := req.GetRequestOptions(); ro.GetRequestTag() != "st" || ro.GetPriority() != spannerpb.RequestOptions_PRIORITY_LOW {
		t.Fatalf("statement request options %v", ro)
	}
	cr := s.RequestsFor("Commit")[0].Message.(*spannerpb.CommitRequest)
	if cr.GetMaxCommitDelay().AsDuration().Milliseconds() != 100 || !cr.GetReturnCommitStats() ||
		cr.GetRequestOptions().GetPriority() != spannerpb.RequestOptions_PRIORITY_HIGH {
		t.Fatalf("commit request %v", cr)
	}
	var resp string
	if err := c.QueryRowContext(ctx, "SHOW VARIABLE commit_response").Scan(&resp); err != nil || resp == "" {
		t.Fatalf("commit_response = %q, %v", resp, err)
	}
	// Isolation levels Spanner does not have are refused.
	if _, err := c.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelReadCommitted}); status.Code(err) != codes.InvalidArgument {
		t.Fatalf("READ COMMITTED: %v, want InvalidArgument", err)
	}
}

// TestFakeTransientWriteFailuresRetried: UNAVAILABLE from DML, BeginTransaction
// and Commit is retried; the transaction commits once.
func TestFakeTransientWriteFailuresRetried(t *testing.T) {
	ctx := context.Background()
	s, db := startTxnFake(t, "begin_transaction_option=EXPLICIT")
	for _, m := range []string{"BeginTransaction", "ExecuteSql", "Commit"} {
		s.AddMethodFault(m, fakespanner.Fault{Err: fakespanner.ErrUnavailable})
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.ExecContext(ctx, txnUpdate); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{"BeginTransaction", "ExecuteSql", "Commit"} {
		if n := len(s.RequestsFor(m)); n != 2 {
			t.Fatalf("%d %s requests, want 2 (one retry)", n, m)
		}
	}
	seq := s.RequestsFor("ExecuteSql")
	if seq[0].ExecuteSQL().GetSeqno() != seq[1].ExecuteSQL().GetSeqno() {
		t.Fatal("a retried DML request must keep its sequence number")
	}
}

// TestFakeAutocommitTransactionTag: a transaction tag set for autocommit DML
// is on the statement's request and on the Commit, and only for that
// statement.
func TestFakeAutocommitTransactionTag(t *testing.T) {
	ctx := context.Background()
	s, db := startTxnFake(t)
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, set := range []string{"SET TRANSACTION_TAG = 'tt'", "SET STATEMENT_TAG = 'st'"} {
		if _, err := c.ExecContext(ctx, set); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.ExecContext(ctx, txnUpdate); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ExecContext(ctx, txnUpdate); err != nil {
		t.Fatal(err)
	}
	execs, commits := s.RequestsFor("ExecuteSql"), s.RequestsFor("Commit")
	ro := execs[0].ExecuteSQL().GetRequestOptions()
	if ro.GetTransactionTag() != "tt" || ro.GetRequestTag() != "st" {
		t.Fatalf("first DML request options %v, want transaction tag tt and request tag st", ro)
	}
	if tag := commits[0].Message.(*spannerpb.CommitRequest).GetRequestOptions().GetTransactionTag(); tag != "tt" {
		t.Fatalf("first Commit transaction tag %q, want tt", tag)
	}
	if ro := execs[1].ExecuteSQL().GetRequestOptions(); ro.GetTransactionTag() != "" || ro.GetRequestTag() != "" {
		t.Fatalf("second DML request options %v, want no tags", ro)
	}
}

// rawDriverConn returns a driver-level connection on the fake server,
// below database/sql, so a test can call IsValid and ResetSession as the
// pool does; it is closed with its connector when the test ends.
func rawDriverConn(t *testing.T, s *fakespanner.Server) sqldriver.Conn {
	t.Helper()
	connector, err := (&sfdriver.Driver{}).OpenConnector(fakeDSN(s))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { connector.(io.Closer).Close() })
	dc, err := connector.Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dc.Close() })
	return dc
}
