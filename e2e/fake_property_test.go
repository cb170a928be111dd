package e2e

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc/codes"

	"github.com/spannerfast/spannerfast/internal/fakespanner"
	"github.com/spannerfast/spannerfast/internal/randrs"
)

// TestFakeStreamProperty: random result sets cut into random messages
// (sizes, chunk points inside strings and nested lists, resume tokens on
// every message, every Nth or none, separate metadata and stats messages,
// last flag), sometimes with a retryable fault at a random boundary, read
// with prefetch depth 1..8 in safe and raw mode, give exactly the rows of
// the same result sent as one message.
func TestFakeStreamProperty(t *testing.T) {
	s := fakespanner.Start(t)
	ctx := context.Background()

	type dbKey struct {
		prefetch int
		raw      bool
	}
	dbs := map[dbKey]*sql.DB{}
	dbFor := func(k dbKey) *sql.DB {
		if db, ok := dbs[k]; ok {
			return db
		}
		// Poisoned buffers make a value that aliases a released receive
		// buffer read garbage, so the comparison catches it.
		db := openFake(t, s, fmt.Sprintf("prefetch_messages=%d", k.prefetch), fmt.Sprintf("rawDecode=%t", k.raw),
			"poison_raw_buffers=true", "num_channels=1")
		dbs[k] = db
		return db
	}
	retryable := []error{
		fakespanner.ErrUnavailable,
		fakespanner.ErrRSTStream,
		fakespanner.WithRetryDelay(codes.ResourceExhausted, "fakespanner: injected RESOURCE_EXHAUSTED", time.Millisecond),
	}

	runs := iterations(40, 100, 2000)
	faulted, chunked, multi := 0, 0, 0
	for it := range runs {
		rng := rand.New(rand.NewPCG(uint64(it), 0x9e3779b9))
		long := []int{-1, 3000, 40000}[rng.IntN(3)]
		rs := randrs.ResultSet(rng, randrs.Options{
			MaxRows:         []int{1, 8, 40}[rng.IntN(3)],
			LongStringLen:   long,
			TopLevelStructs: rng.IntN(2) == 0,
		})
		if rng.IntN(3) == 0 {
			rs.Stats = &spannerpb.ResultSetStats{RowCount: &spannerpb.ResultSetStats_RowCountLowerBound{RowCountLowerBound: int64(len(rs.Rows))}}
		}
		key := dbKey{prefetch: 1 + rng.IntN(8), raw: rng.IntN(2) == 0}
		db := dbFor(key)

		// The reference: the whole result in one message, through the same
		// driver and decode path.
		single := fakespanner.Split(rs, fakespanner.SplitOptions{})
		if len(single) != 1 {
			t.Fatalf("iteration %d: unsplit result has %d messages", it, len(single))
		}
		s.AddResult("whole", &fakespanner.Result{Messages: single})
		want, _, err := readCanon(ctx, db, "whole")
		if err != nil {
			t.Fatalf("iteration %d: single message: %v", it, err)
		}
		if len(want) != len(rs.Rows) {
			t.Fatalf("iteration %d: single message gave %d rows, want %d", it, len(want), len(rs.Rows))
		}

		opts := fakespanner.SplitOptions{
			Random:    rng.IntN(4) != 0,
			Seed:      int64(it),
			MaxValues: []int{0, 0, 1, 2, 3, 5}[rng.IntN(6)],
			// Not below 64: fakespanner's Split loops forever when a
			// message cap is smaller than the framing of a deeply nested
			// empty string.
			MaxBytes:         []int{0, 0, 64, 100, 256, 1024, 8192}[rng.IntN(7)],
			ResumeTokenEvery: []int{1, 1, 2, 3, 4, 7, fakespanner.NoResumeTokens}[rng.IntN(7)],
			Last:             rng.IntN(3) == 0,
			SeparateMetadata: rng.IntN(5) == 0,
			SeparateStats:    rng.IntN(5) == 0,
		}
		msgs := fakespanner.Split(rs, opts)
		if len(msgs) > 1 {
			multi++
		}
		for _, m := range msgs {
			if m.GetChunkedValue() {
				chunked++
				break
			}
		}
		var faults []fakespanner.Fault
		if rng.IntN(2) == 0 {
			faults = []fakespanner.Fault{{AfterMessage: rng.IntN(len(msgs) + 1), Err: retryable[rng.IntN(len(retryable))]}}
		}
		s.ResetRequests()
		s.AddResult("split", &fakespanner.Result{ResultSet: rs, Split: opts, Faults: faults})
		got, kept, err := readCanon(ctx, db, "split")
		desc := fmt.Sprintf("iteration %d (%d rows, %d messages, split %+v, faults %v, prefetch %d, raw %v)",
			it, len(rs.Rows), len(msgs), opts, faults, key.prefetch, key.raw)
		if err != nil {
			t.Fatalf("%s: %v", desc, err)
		}
		if d := diffRows(got, want); d != "" {
			t.Fatalf("%s: %s", desc, d)
		}
		if !key.raw {
			again := make([][]any, len(kept))
			for i, row := range kept {
				again[i] = canonRow(row)
			}
			if d := diffRows(again, want); d != "" {
				t.Fatalf("%s: a kept safe-mode value changed after Close: %s", desc, d)
			}
		}
		if n := len(s.RequestsFor("ExecuteStreamingSql")); n > 2 {
			t.Fatalf("%s: %d ExecuteStreamingSql requests, want at most 2", desc, n)
		} else if n == 2 {
			faulted++
		}
	}
	t.Logf("%d iterations: %d multi-message, %d with chunked values, %d resumed after a fault", runs, multi, chunked, faulted)
	if multi == 0 || chunked == 0 || faulted == 0 {
		t.Fatalf("the random cases did not cover multi-message results (%d), chunked values (%d) and resumed streams (%d)", multi, chunked, faulted)
	}
}
