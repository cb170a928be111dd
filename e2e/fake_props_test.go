package e2e

import (
	"context"
	"testing"
	"time"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/spannerfast/spannerfast/internal/fakespanner"
)

// Connection properties as go-sql-spanner spells, parses and applies them
// (issue 17, item 14).

// TestFakeShowSpellings: SHOW VARIABLE spells autocommit_dml_mode and an
// unset max_commit_delay as go-sql-spanner does; max_commit_delay takes
// values above 500ms (Spanner judges them at commit) and read_only_staleness
// durations take only s, ms, us and ns.
func TestFakeShowSpellings(t *testing.T) {
	ctx := context.Background()
	s, db := startTxnFake(t)
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	show := func(name string) string {
		t.Helper()
		var v string
		if err := c.QueryRowContext(ctx, "SHOW VARIABLE "+name).Scan(&v); err != nil {
			t.Fatalf("SHOW VARIABLE %s: %v", name, err)
		}
		return v
	}
	exec := func(stmt string) error {
		_, err := c.ExecContext(ctx, stmt)
		return err
	}
	if err := exec("SET autocommit_dml_mode = 'partitioned_non_atomic'"); err != nil {
		t.Fatal(err)
	}
	if g := show("autocommit_dml_mode"); g != "Partitioned_Non_Atomic" {
		t.Errorf("autocommit_dml_mode = %q, want Partitioned_Non_Atomic", g)
	}
	if err := exec("RESET autocommit_dml_mode"); err != nil {
		t.Fatal(err)
	}
	if g := show("max_commit_delay"); g != "" {
		t.Errorf("unset max_commit_delay = %q, want \"\"", g)
	}
	for _, tc := range []struct{ set, want string }{{"'0s'", "0s"}, {"NULL", ""}, {"'1s'", "1s"}, {"100", "100ms"}} {
		if err := exec("SET max_commit_delay = " + tc.set); err != nil {
			t.Fatalf("SET max_commit_delay = %s: %v", tc.set, err)
		}
		if g := show("max_commit_delay"); g != tc.want {
			t.Errorf("max_commit_delay after SET %s = %q, want %q", tc.set, g, tc.want)
		}
	}
	// 1s reaches the commit; Spanner, not the driver, judges it.
	if err := exec("SET max_commit_delay = '1s'"); err != nil {
		t.Fatal(err)
	}
	s.ResetRequests()
	if err := exec(txnUpdate); err != nil {
		t.Fatal(err)
	}
	commits := s.RequestsFor("Commit")
	if len(commits) != 1 || commits[0].Message.(*spannerpb.CommitRequest).GetMaxCommitDelay().AsDuration() != time.Second {
		t.Errorf("commits %v, want one with max_commit_delay 1s", commits)
	}
	for _, bad := range []string{"'Exact_Staleness 1m'", "'Max_Staleness 1m'", "'Exact_Staleness 1'", "'Exact_Staleness 1m30s'"} {
		if err := exec("SET read_only_staleness = " + bad); status.Code(err) != codes.InvalidArgument {
			t.Errorf("SET read_only_staleness = %s: %v, want InvalidArgument", bad, err)
		}
	}
	if err := exec("SET read_only_staleness = 'Exact_Staleness 10ms'"); err != nil {
		t.Fatal(err)
	}
	if g := show("read_only_staleness"); g != "(exactStaleness: 10ms)" {
		t.Errorf("read_only_staleness = %q", g)
	}
}

// TestFakeDeferrable: BEGIN and SET TRANSACTION take [NOT] DEFERRABLE,
// which sets transaction_deferrable for the transaction only (it has no
// effect on Spanner).
func TestFakeDeferrable(t *testing.T) {
	ctx := context.Background()
	_, db := startTxnFake(t)
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	deferrable := func() bool {
		t.Helper()
		var d bool
		if err := c.QueryRowContext(ctx, "SHOW VARIABLE transaction_deferrable").Scan(&d); err != nil {
			t.Fatal(err)
		}
		return d
	}
	for _, stmt := range []string{"BEGIN TRANSACTION DEFERRABLE", "BEGIN READ WRITE, DEFERRABLE", "BEGIN ISOLATION LEVEL SERIALIZABLE DEFERRABLE"} {
		if _, err := c.ExecContext(ctx, stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
		if !deferrable() {
			t.Errorf("%s: transaction_deferrable false in the transaction", stmt)
		}
		if _, err := c.ExecContext(ctx, "SET TRANSACTION NOT DEFERRABLE"); err != nil {
			t.Fatal(err)
		}
		if deferrable() {
			t.Errorf("%s: transaction_deferrable true after SET TRANSACTION NOT DEFERRABLE", stmt)
		}
		if _, err := c.ExecContext(ctx, "SET TRANSACTION DEFERRABLE"); err != nil {
			t.Fatal(err)
		}
		if _, err := c.ExecContext(ctx, "COMMIT"); err != nil {
			t.Fatal(err)
		}
		if deferrable() {
			t.Errorf("%s: transaction_deferrable outlived the transaction", stmt)
		}
	}
	if _, err := c.ExecContext(ctx, "BEGIN NOT"); status.Code(err) != codes.InvalidArgument {
		t.Errorf("BEGIN NOT: %v, want InvalidArgument", err)
	}
}

// TestFakeCommitResponseEmptyTransaction: committing a transaction that ran
// nothing sends nothing and leaves commit_response "null", as
// go-sql-spanner shows it; before anything ran it is "".
func TestFakeCommitResponseEmptyTransaction(t *testing.T) {
	ctx := context.Background()
	s, db := startTxnFake(t)
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var resp string
	if err := c.QueryRowContext(ctx, "SHOW VARIABLE commit_response").Scan(&resp); err != nil || resp != "" {
		t.Fatalf("commit_response before anything = %q, %v; want \"\"", resp, err)
	}
	tx, err := c.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		if err := c.QueryRowContext(ctx, "SHOW VARIABLE commit_response").Scan(&resp); err != nil || resp != "null" {
			t.Fatalf("commit_response after an empty commit = %q, %v; want \"null\"", resp, err)
		}
	}
	if n := len(s.RequestsFor("Commit")); n != 0 {
		t.Errorf("%d commits sent for an empty transaction, want 0", n)
	}
}

// TestFakeDirectedReadNotOnWrites: directed_read goes with read-only
// queries; autocommit DML and read-write transactions run without it
// rather than failing, as in go-sql-spanner.
func TestFakeDirectedReadNotOnWrites(t *testing.T) {
	ctx := context.Background()
	s, db := startTxnFake(t)
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.ExecContext(ctx, "SET directed_read = '"+directedJSON+"'"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ExecContext(ctx, txnUpdate); err != nil {
		t.Fatalf("autocommit DML with directed_read set: %v", err)
	}
	tx, err := c.BeginTx(ctx, nil)
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
	for _, m := range []string{"ExecuteSql", "ExecuteStreamingSql"} {
		for _, r := range s.RequestsFor(m) {
			if r.ExecuteSQL().GetDirectedReadOptions() != nil {
				t.Errorf("%s %q carried directed_read", m, r.ExecuteSQL().GetSql())
			}
		}
	}
	readStrings(t, mustQuery(t, c, txnQuery))
	streams := s.RequestsFor("ExecuteStreamingSql")
	if last := streams[len(streams)-1].ExecuteSQL(); last.GetDirectedReadOptions() == nil {
		t.Errorf("autocommit query without directed_read")
	}
}

// TestFakeSetBeforeFirstStatement: SET LOCAL and SET between BeginTx and
// the transaction's first statement shape that transaction (go-sql-spanner
// takes a transaction's options when its first statement runs); SET LOCAL
// of a transaction option after that is refused, as it would change
// nothing.
func TestFakeSetBeforeFirstStatement(t *testing.T) {
	ctx := context.Background()
	s, db := startTxnFake(t)
	c, tx := connTx(t, ctx, db)
	for _, stmt := range []string{
		"SET LOCAL isolation_level = 'repeatable_read'",
		"SET LOCAL read_lock_mode = 'optimistic'",
		"SET transaction_tag = 'late-tag'",
		"SET LOCAL exclude_txn_from_change_streams = true",
	} {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	s.ResetRequests()
	if _, err := tx.ExecContext(ctx, txnUpdate); err != nil {
		t.Fatal(err)
	}
	execs := s.RequestsFor("ExecuteSql")
	if len(execs) != 1 {
		t.Fatalf("%d ExecuteSql, want 1", len(execs))
	}
	sel := execs[0].ExecuteSQL().GetTransaction().GetBegin()
	if sel.GetIsolationLevel() != spannerpb.TransactionOptions_REPEATABLE_READ ||
		sel.GetReadWrite().GetReadLockMode() != spannerpb.TransactionOptions_ReadWrite_OPTIMISTIC ||
		!sel.GetExcludeTxnFromChangeStreams() ||
		execs[0].ExecuteSQL().GetRequestOptions().GetTransactionTag() != "late-tag" {
		t.Errorf("first statement began %v with request options %v; want the SET values", sel, execs[0].ExecuteSQL().GetRequestOptions())
	}
	for _, stmt := range []string{"SET LOCAL isolation_level = 'serializable'", "SET LOCAL retry_aborts_internally = false", "SET LOCAL transaction_timeout = '1s'"} {
		if _, err := tx.ExecContext(ctx, stmt); status.Code(err) != codes.FailedPrecondition {
			t.Errorf("%s after the first statement: %v, want FailedPrecondition", stmt, err)
		}
	}
	// Plain SET is for the next transactions; statement-level ones apply.
	if _, err := tx.ExecContext(ctx, "SET isolation_level = 'serializable'"); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.ExecContext(ctx, "SET LOCAL statement_tag = 'st'"); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	var iso string
	if err := c.QueryRowContext(ctx, "SHOW VARIABLE isolation_level").Scan(&iso); err != nil || iso != "Serializable" {
		t.Errorf("isolation_level after the transaction = %q, %v; want the plain SET's Serializable", iso, err)
	}

	// retry_aborts_internally = false before the first statement: an
	// aborted commit is not replayed.
	tx, err := c.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.ExecContext(ctx, "SET LOCAL retry_aborts_internally = false"); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.ExecContext(ctx, txnUpdate); err != nil {
		t.Fatal(err)
	}
	s.ResetRequests()
	s.AddMethodFault("Commit", fakespanner.Fault{Err: fakespanner.ErrAborted})
	if err := tx.Commit(); status.Code(err) != codes.Aborted {
		t.Fatalf("Commit: %v, want Aborted", err)
	}
	if n := len(s.RequestsFor("ExecuteSql")); n != 0 {
		t.Errorf("%d statements replayed, want none", n)
	}
}

// TestFakeTransactionalConnectionState: with connection_state_type =
// TRANSACTIONAL, SET and SET LOCAL in a transaction are undone by its
// rollback (and by a failed commit); a commit keeps SET and ends SET LOCAL.
// Without it, SET outlives a rollback.
func TestFakeTransactionalConnectionState(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		props         []string
		transactional bool
	}{{nil, false}, {[]string{"connection_state_type=NON_TRANSACTIONAL"}, false}, {[]string{"connection_state_type=TRANSACTIONAL"}, true}} {
		s, db := startTxnFake(t, tc.props...)
		c, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		show := func(name string) string {
			t.Helper()
			var v string
			if err := c.QueryRowContext(ctx, "SHOW VARIABLE "+name).Scan(&v); err != nil {
				t.Fatalf("SHOW VARIABLE %s: %v", name, err)
			}
			return v
		}
		run := func(stmts ...string) {
			t.Helper()
			for _, st := range stmts {
				if _, err := c.ExecContext(ctx, st); err != nil {
					t.Fatalf("%v: %s: %v", tc.props, st, err)
				}
			}
		}
		run("BEGIN", "SET optimizer_version = '5'", "SET my_ext.p = 'x'", "SET LOCAL rpc_priority = 'HIGH'", txnUpdate, "ROLLBACK")
		wantVersion := "5"
		if tc.transactional {
			wantVersion = ""
		}
		if g := show("optimizer_version"); g != wantVersion {
			t.Errorf("%v: optimizer_version after ROLLBACK = %q, want %q", tc.props, g, wantVersion)
		}
		var ext string
		if err := c.QueryRowContext(ctx, "SHOW VARIABLE my_ext.p").Scan(&ext); (err == nil) == tc.transactional {
			t.Errorf("%v: SHOW VARIABLE my_ext.p after ROLLBACK: %q, %v", tc.props, ext, err)
		}
		if g := show("rpc_priority"); g != "PRIORITY_UNSPECIFIED" {
			t.Errorf("%v: SET LOCAL outlived the transaction: rpc_priority = %q", tc.props, g)
		}
		run("SET optimizer_version = '1'", "BEGIN", "SET optimizer_version = '6'", "SET LOCAL rpc_priority = 'HIGH'", txnUpdate, "COMMIT")
		if g, g2 := show("optimizer_version"), show("rpc_priority"); g != "6" || g2 != "PRIORITY_UNSPECIFIED" {
			t.Errorf("%v: after COMMIT optimizer_version = %q, rpc_priority = %q; want 6, PRIORITY_UNSPECIFIED", tc.props, g, g2)
		}
		// A commit that fails undoes the changes like a rollback.
		run("BEGIN", "SET optimizer_version = '7'", txnUpdate)
		s.AddMethodFault("Commit", fakespanner.Fault{Err: status.Error(codes.FailedPrecondition, "no")})
		if _, err := c.ExecContext(ctx, "COMMIT"); status.Code(err) != codes.FailedPrecondition {
			t.Fatalf("COMMIT: %v", err)
		}
		wantVersion = "7"
		if tc.transactional {
			wantVersion = "6"
		}
		if g := show("optimizer_version"); g != wantVersion {
			t.Errorf("%v: optimizer_version after a failed COMMIT = %q, want %q", tc.props, g, wantVersion)
		}
		c.Close()
	}
}

// TestFakeTransactionalStateAcrossSetTransaction: SET TRANSACTION READ
// ONLY (which sets the open transaction up again as read-only) keeps it the
// same transaction for connection_state_type=TRANSACTIONAL: its rollback
// still undoes a SET made before it. (Before the connection state moved to
// internal/connstate the change outlived the rollback.)
func TestFakeTransactionalStateAcrossSetTransaction(t *testing.T) {
	ctx := context.Background()
	_, db := startTxnFake(t, "connection_state_type=TRANSACTIONAL")
	c := dbConn(t, db)
	for _, st := range []string{"BEGIN", "SET optimizer_version = '8'", "SET TRANSACTION READ ONLY", "ROLLBACK"} {
		if _, err := c.ExecContext(ctx, st); err != nil {
			t.Fatalf("%s: %v", st, err)
		}
	}
	var v string
	if err := c.QueryRowContext(ctx, "SHOW VARIABLE optimizer_version").Scan(&v); err != nil || v != "" {
		t.Errorf("optimizer_version after ROLLBACK = %q, %v; want \"\" (undone)", v, err)
	}
}

// TestFakeTransactionTimeout: transaction_timeout, fixed when the
// transaction's first statement runs, bounds its later statements and its
// commit (DeadlineExceeded); the transaction can then be rolled back.
// Read-only transactions are not bounded by it.
func TestFakeTransactionTimeout(t *testing.T) {
	// A driver that ignored transaction_timeout would wait for ever; this
	// cancellation (Canceled, not DeadlineExceeded) makes it fail instead.
	ctx, cancel := context.WithCancel(context.Background())
	defer time.AfterFunc(20*time.Second, cancel).Stop()
	for _, hang := range []string{"ExecuteStreamingSql", "ExecuteSql", "Commit"} {
		s, db := startTxnFake(t)
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.ExecContext(ctx, "SET LOCAL transaction_timeout = '100ms'"); err != nil {
			t.Fatal(err)
		}
		if _, err := tx.ExecContext(ctx, txnUpdate); err != nil {
			t.Fatal(err)
		}
		// The server never answers: only the transaction's deadline
		// can end the call.
		s.AddMethodFault(hang, fakespanner.Fault{Hang: true, Times: -1})
		switch hang {
		case "ExecuteStreamingSql":
			_, err = tx.QueryContext(ctx, txnQuery)
		case "ExecuteSql":
			_, err = tx.ExecContext(ctx, txnInsert)
		case "Commit":
			err = tx.Commit()
		}
		if status.Code(err) != codes.DeadlineExceeded {
			t.Fatalf("%s hanging: %v, want DeadlineExceeded", hang, err)
		}
		if hang != "Commit" {
			if err := tx.Rollback(); err != nil {
				t.Fatal(err)
			}
			if n := len(s.RequestsFor("Rollback")); n != 1 {
				t.Errorf("%s: %d Rollback requests, want 1", hang, n)
			}
		}
	}
}

// TestFakeTransactionReadOnlyDefault: transaction_read_only makes BeginTx
// (and BEGIN) start read-only transactions, and with
// transaction_batch_read_only batch read-only ones, as in go-sql-spanner.
func TestFakeTransactionReadOnlyDefault(t *testing.T) {
	ctx := context.Background()
	s, db := startTxnFake(t)
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.ExecContext(ctx, "SET transaction_read_only = true"); err != nil {
		t.Fatal(err)
	}
	s.ResetRequests()
	tx, err := c.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	readStrings(t, mustQuery(t, tx, txnQuery))
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	streams := s.RequestsFor("ExecuteStreamingSql")
	if len(streams) != 1 || streams[0].ExecuteSQL().GetTransaction().GetBegin().GetReadOnly() == nil {
		t.Fatalf("query of the transaction: %v, want it to begin a read-only transaction", streams)
	}
	if n := len(s.RequestsFor("Commit")); n != 0 {
		t.Errorf("%d commits for a read-only transaction", n)
	}
	if _, err := c.ExecContext(ctx, "SET transaction_batch_read_only = true"); err != nil {
		t.Fatal(err)
	}
	s.ResetRequests()
	tx, err = c.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	begins := s.RequestsFor("BeginTransaction")
	if len(begins) != 1 || begins[0].Message.(*spannerpb.BeginTransactionRequest).GetOptions().GetReadOnly() == nil {
		t.Fatalf("BeginTransaction requests %v, want one read-only (a batch read-only transaction begins at once)", begins)
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	// Switched off, BeginTx is read-write again.
	if _, err := c.ExecContext(ctx, "SET transaction_read_only = false"); err != nil {
		t.Fatal(err)
	}
	s.ResetRequests()
	tx, err = c.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.ExecContext(ctx, txnUpdate); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if n := len(s.RequestsFor("Commit")); n != 1 {
		t.Errorf("%d commits, want 1", n)
	}
}
