package e2e

import (
	"context"
	"database/sql"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/spannerfast/spannerfast/internal/fakespanner"
)

// A connector's shared startup steps (the multiplexed session, the
// dialect question) run once for all its first callers; one caller's
// deadline must not fail the others.

// lateTimerCtx is a context whose deadline has passed while its timer has
// not fired yet (Done still open, Err nil), as a loaded machine makes it
// for a moment: gRPC refuses a call past its deadline on the clock alone,
// so a failure caused by this caller's deadline comes back before the
// context says it ended. Cancel ends it.
type lateTimerCtx struct {
	context.Context
	deadline time.Time
}

func (c lateTimerCtx) Deadline() (time.Time, bool) { return c.deadline, true }

// TestFakeStartupSurvivesShortDeadline: the first caller has a deadline
// shorter than the slow session creation (or dialect answer); callers that
// come while that is in progress, with long deadlines, get their point
// reads and read-only transactions, and the one slow step is not asked
// twice. The short caller alone fails, with DEADLINE_EXCEEDED. Also when
// the short caller's failure comes back before its context reports the
// deadline (lateTimerCtx), which used to hand that failure to everyone.
func TestFakeStartupSurvivesShortDeadline(t *testing.T) {
	for _, slow := range []string{"CreateSession", "dialect"} {
		for _, late := range []bool{false, true} {
			name := slow
			if late {
				name += "/late-timer"
			}
			t.Run(name, func(t *testing.T) { startupShortDeadline(t, slow, late) })
		}
	}
}

func startupShortDeadline(t *testing.T, slow string, late bool) {
	s := fakespanner.Start(t)
	s.AddResult(txnQuery, &fakespanner.Result{ResultSet: stringRows("a", "b")})
	const hold = 400 * time.Millisecond
	r := fakespanner.DialectResult("GOOGLE_STANDARD_SQL")
	if slow == "dialect" {
		r.Faults = []fakespanner.Fault{{Delay: hold, Times: -1}}
	} else {
		s.AddMethodFault("CreateSession", fakespanner.Fault{Delay: hold, Times: -1})
	}
	s.AddResult(fakespanner.DialectQuery, r)
	db := openFake(t, s)

	const shortLimit = 50 * time.Millisecond
	var short context.Context
	var cancel context.CancelFunc
	if late {
		// The timer fires long after the deadline.
		inner, c := context.WithTimeout(context.Background(), 10*time.Second)
		short, cancel = lateTimerCtx{inner, time.Now().Add(shortLimit)}, c
	} else {
		short, cancel = context.WithTimeout(context.Background(), shortLimit)
	}
	defer cancel()
	shortErr := make(chan error, 1)
	go func() {
		var v int64
		shortErr <- db.QueryRowContext(short, "SELECT 1").Scan(&v)
	}()
	time.Sleep(20 * time.Millisecond) // the short caller starts the shared steps

	long, cancelLong := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancelLong()
	var wg sync.WaitGroup
	errs := make([]error, 6)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if i%2 == 0 {
				var v int64
				errs[i] = db.QueryRowContext(long, "SELECT 1").Scan(&v)
				return
			}
			errs[i] = readOnlyTxn(long, db)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("caller %d with a long deadline: %v", i, err)
		}
	}
	if err := <-shortErr; !late && status.Code(err) != codes.DeadlineExceeded {
		t.Errorf("the short caller: %v, want DEADLINE_EXCEEDED", err)
	}
	if n := len(s.RequestsFor("CreateSession")); n != 1 {
		t.Errorf("%d CreateSession requests, want 1 (the step goes on for the others)", n)
	}
	if n := s.DialectQueries(); n != 1 {
		t.Errorf("%d dialect queries, want 1 (the step goes on for the others)", n)
	}
}

// readOnlyTxn reads txnQuery in a read-only transaction.
func readOnlyTxn(ctx context.Context, db *sql.DB) error {
	tx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return err
	}
	rows, err := tx.QueryContext(ctx, txnQuery)
	if err != nil {
		tx.Rollback()
		return err
	}
	for rows.Next() {
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}
