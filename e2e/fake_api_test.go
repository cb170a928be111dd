package e2e

import (
	"context"
	"database/sql"
	"errors"
	"runtime"
	"testing"
	"time"

	"cloud.google.com/go/spanner"
	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"go.uber.org/goleak"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	sfdriver "github.com/spannerfast/spannerfast/driver"
	"github.com/spannerfast/spannerfast/internal/fakespanner"
)

// go-sql-spanner's Go API beyond ExecOptions (fake_compat_test.go):
// RunTransaction's handling of a panicking function, the commit response,
// and the SpannerConn extras.

// TestFakeRunTransactionPanic: a panic in the function, with every
// variant, rolls the transaction back and frees its connection (one
// connection in the pool: the next statement would wait forever
// otherwise), and comes back as a *PanicError with code UNKNOWN.
func TestFakeRunTransactionPanic(t *testing.T) {
	ignore := goleak.IgnoreCurrent()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, db := startTxnFake(t)
	db.SetMaxOpenConns(1)
	panicky := func(ctx context.Context, tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, txnUpdate); err != nil {
			return err
		}
		panic("boom")
	}
	variants := map[string]func() error{
		"RunTransaction": func() error { return sfdriver.RunTransaction(ctx, db, nil, panicky) },
		"RunTransactionWithOptions": func() error {
			return sfdriver.RunTransactionWithOptions(ctx, db, nil, panicky, spanner.TransactionOptions{TransactionTag: "t"})
		},
		"RunTransactionWithCommitResponse": func() error {
			resp, err := sfdriver.RunTransactionWithCommitResponse(ctx, db, nil, panicky, spanner.TransactionOptions{})
			if resp != nil {
				t.Errorf("commit response %v after a panic", resp)
			}
			return err
		},
		"panic(nil)": func() error {
			return sfdriver.RunTransaction(ctx, db, nil, func(context.Context, *sql.Tx) error { panic(nil) })
		},
	}
	for name, run := range variants {
		err := run()
		var pe *sfdriver.PanicError
		if !errors.As(err, &pe) || status.Code(err) != codes.Unknown {
			t.Fatalf("%s: err %v (%T), want a *PanicError with code Unknown", name, err, err)
		}
		if name == "panic(nil)" {
			var pn *runtime.PanicNilError
			if !errors.As(err, &pn) {
				t.Fatalf("%s: value %v, want a *runtime.PanicNilError", name, pe.Value)
			}
		} else if pe.Value != "boom" || len(pe.Stack) == 0 {
			t.Fatalf("%s: value %v, stack %d bytes", name, pe.Value, len(pe.Stack))
		}
		// The only connection is free again and nothing was committed.
		readStrings(t, mustQuery(t, db, txnQuery))
	}
	if n := len(s.RequestsFor("Commit")); n != 0 {
		t.Fatalf("%d Commit requests after panics, want 0", n)
	}
	if n := len(s.RequestsFor("Rollback")); n != 3 {
		t.Fatalf("%d Rollback requests, want 3 (one per transaction that began)", n)
	}
	waitIdle(t, db)
	verifyNoLeak(t, s, db, ignore)
}

// TestFakeRunTransactionWithCommitResponse: the response of the attempt
// that committed, with the commit stats that were asked for; nil for a
// read-only transaction.
func TestFakeRunTransactionWithCommitResponse(t *testing.T) {
	ctx := context.Background()
	s, db := startTxnFake(t)
	s.AddMethodFault("Commit", fakespanner.Fault{Err: fakespanner.WithRetryDelay(codes.Aborted, "aborted", time.Millisecond)})
	runs := 0
	resp, err := sfdriver.RunTransactionWithCommitResponse(ctx, db, nil, func(ctx context.Context, tx *sql.Tx) error {
		runs++
		_, err := tx.ExecContext(ctx, txnUpdate)
		return err
	}, spanner.TransactionOptions{CommitOptions: spanner.CommitOptions{ReturnCommitStats: true}})
	if err != nil {
		t.Fatal(err)
	}
	commits := s.RequestsFor("Commit")
	if runs != 2 || len(commits) != 2 || !commits[1].Message.(*spannerpb.CommitRequest).GetReturnCommitStats() {
		t.Fatalf("%d runs, %d commits", runs, len(commits))
	}
	if resp == nil || resp.CommitTs.IsZero() || resp.CommitStats == nil {
		t.Fatalf("commit response %+v, want a timestamp and stats", resp)
	}
	resp, err = sfdriver.RunTransactionWithCommitResponse(ctx, db, &sql.TxOptions{ReadOnly: true}, func(ctx context.Context, tx *sql.Tx) error {
		readStrings(t, mustQuery(t, tx, txnQuery))
		return nil
	}, spanner.TransactionOptions{})
	if err != nil || resp != nil {
		t.Fatalf("read-only: %v, %v; want nil, nil", resp, err)
	}
}

// TestFakePartitionQueryOptionsAndTokens: PartitionQuery always carries
// PartitionOptions, as the official client sends them (zero when nothing
// is set; go-sql-spanner's test server reads them without a nil check),
// with ExecOptions' MaxPartitions and PartitionBytes when set; each
// Partition's GetPartitionToken is the token the server gave it.
func TestFakePartitionQueryOptionsAndTokens(t *testing.T) {
	s := fakespanner.Start(t)
	s.AddPartitions(partSQL, partResult(0, 2), partResult(1, 3))
	db := openFake(t, s)
	ctx := context.Background()
	tx, err := sfdriver.BeginBatchReadOnlyTransaction(ctx, db, sfdriver.BatchReadOnlyTransactionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	var plain, sized sfdriver.PartitionedQuery
	if err := tx.QueryRowContext(ctx, partSQL, sfdriver.PartitionQuery()).Scan(&plain); err != nil {
		t.Fatal(err)
	}
	if err := tx.QueryRowContext(ctx, partSQL, sfdriver.ExecOptions{PartitionedQueryOptions: sfdriver.PartitionedQueryOptions{
		PartitionQuery: true, PartitionOptions: spanner.PartitionOptions{MaxPartitions: 7, PartitionBytes: 4096},
	}}).Scan(&sized); err != nil {
		t.Fatal(err)
	}
	reqs := s.RequestsFor("PartitionQuery")
	if len(reqs) != 2 {
		t.Fatalf("%d PartitionQuery requests, want 2", len(reqs))
	}
	first := reqs[0].Message.(*spannerpb.PartitionQueryRequest).GetPartitionOptions()
	if first == nil || first.GetMaxPartitions() != 0 || first.GetPartitionSizeBytes() != 0 {
		t.Fatalf("PartitionOptions without options: %v, want present and zero", first)
	}
	second := reqs[1].Message.(*spannerpb.PartitionQueryRequest).GetPartitionOptions()
	if second.GetMaxPartitions() != 7 || second.GetPartitionSizeBytes() != 4096 {
		t.Fatalf("PartitionOptions with options: %v, want max 7, 4096 bytes", second)
	}
	for i, p := range plain.Partitions {
		tok := p.GetPartitionToken()
		if string(tok) != string(fakespanner.PartitionToken(partSQL, i)) {
			t.Fatalf("partition %d token %q", i, tok)
		}
		tok[0] ^= 0xff // a copy: the partition keeps its own
		if string(p.GetPartitionToken()) != string(fakespanner.PartitionToken(partSQL, i)) {
			t.Fatal("GetPartitionToken returned the partition's own slice")
		}
	}
}
