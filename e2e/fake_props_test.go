package e2e

import (
	"context"
	"testing"
	"time"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
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
