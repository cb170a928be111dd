package e2e

import (
	"context"
	"errors"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	sfdriver "github.com/spannerfast/spannerfast/driver"
	"github.com/spannerfast/spannerfast/internal/fakespanner"
)

// TestFakeCommitReturnsAtDeadline: a Commit whose answer the network
// holds, and a network that then holds the rollback too, do not keep the
// caller past its context: the commit returns when the context ends with
// the commit-outcome-unknown error and code DEADLINE_EXCEEDED (the
// official client's code for it), for a transaction's Commit and for
// autocommit DML alike.
func TestFakeCommitReturnsAtDeadline(t *testing.T) {
	const (
		limit = 500 * time.Millisecond
		hold  = 8 * time.Second // the network holds the rollback this long
	)
	check := func(what string, err error, elapsed time.Duration) {
		t.Helper()
		if !errors.Is(err, sfdriver.ErrCommitOutcomeUnknown) || status.Code(err) != codes.DeadlineExceeded {
			t.Errorf("%s: %v (code %v), want ErrCommitOutcomeUnknown with DEADLINE_EXCEEDED", what, err, status.Code(err))
		}
		if elapsed > hold/2 {
			t.Errorf("%s: returned after %v; the context allowed %v", what, elapsed, limit)
		}
	}
	for _, autocommit := range []bool{false, true} {
		s, db := startTxnFake(t)
		if err := db.PingContext(context.Background()); err != nil { // the session and the dialect
			t.Fatal(err)
		}
		s.AddMethodFault("Commit", fakespanner.Fault{Hang: true, Times: -1})
		s.AddMethodFault("Rollback", fakespanner.Fault{Delay: hold, Times: -1})
		ctx, cancel := context.WithTimeout(context.Background(), limit)
		if autocommit {
			start := time.Now()
			_, err := db.ExecContext(ctx, txnInsert)
			check("autocommit DML", err, time.Since(start))
			cancel()
			continue
		}
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.ExecContext(ctx, txnInsert); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		err = tx.Commit()
		check("Tx.Commit", err, time.Since(start))
		cancel()
	}
}
