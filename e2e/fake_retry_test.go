package e2e

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"cloud.google.com/go/spanner"
	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"go.uber.org/goleak"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/spannerfast/spannerfast/internal/fakespanner"
	"github.com/spannerfast/spannerfast/internal/transport"
)

// TestFakeResumableAgainAfterToken: a stream that went past
// max_buffered_bytes without a resume token (and so handed rows out
// unprotected) becomes resumable again at the next token: a later
// UNAVAILABLE resumes from the last token and every row arrives exactly
// once. A failure before that token still ends the query.
func TestFakeResumableAgainAfterToken(t *testing.T) {
	s := fakespanner.Start(t)
	ctx := context.Background()
	rs := faultResultSet()
	for splitName, opts := range faultSplits() {
		opts.ResumeTokenEvery = fakespanner.NoResumeTokens
		msgs, err := fakespanner.SplitChecked(rs, opts)
		if err != nil {
			t.Fatal(err)
		}
		n := len(msgs)
		first := n / 2 // the first message with a token; all after it have one
		for i := first; i < n; i++ {
			msgs[i] = proto.Clone(msgs[i]).(*spannerpb.PartialResultSet)
			msgs[i].ResumeToken = fmt.Appendf(nil, "token-%d", i)
		}
		for _, props := range [][]string{
			{"max_buffered_bytes=1", "prefetch_messages=2"},
			{"max_buffered_bytes=1", "prefetch_messages=5", "rawDecode=true", "poison_raw_buffers=true"},
		} {
			db := openFake(t, s, props...)
			s.AddResult("whole", &fakespanner.Result{ResultSet: rs})
			want, _, err := readCanon(ctx, db, "whole")
			if err != nil || len(want) != faultRows {
				t.Fatalf("%d rows, %v", len(want), err)
			}
			for k := first; k <= n; k++ {
				name := fmt.Sprintf("%s %v: UNAVAILABLE before message %d of %d (tokens from %d)", splitName, props, k, n, first)
				s.ResetRequests()
				s.AddResult("q", &fakespanner.Result{Messages: msgs, Faults: []fakespanner.Fault{{AfterMessage: k, Err: fakespanner.ErrUnavailable}}})
				got, _, err := readCanon(ctx, db, "q")
				reqs := s.RequestsFor("ExecuteStreamingSql")
				if k == first {
					// No token yet: rows went out unprotected, so the
					// failure is final.
					if status.Code(err) != codes.Unavailable || len(reqs) != 1 {
						t.Fatalf("%s: %d requests, error %v; want UNAVAILABLE without retry", name, len(reqs), err)
					}
					if d := diffRows(got, want[:len(got)]); d != "" {
						t.Fatalf("%s: %s", name, d)
					}
					continue
				}
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if d := diffRows(got, want); d != "" {
					t.Fatalf("%s: %s", name, d)
				}
				if len(reqs) != 2 {
					t.Fatalf("%s: %d requests, want 2", name, len(reqs))
				}
				if got, want := reqs[1].ExecuteSQL().GetResumeToken(), lastToken(msgs[:k]); !bytes.Equal(got, want) {
					t.Fatalf("%s: resumed with token %q, want %q", name, got, want)
				}
			}
		}
	}
}

// transientErrs are the failures the driver retries.
var transientErrs = []error{
	fakespanner.ErrUnavailable,
	fakespanner.ErrRSTStream,
	fakespanner.WithRetryDelay(codes.ResourceExhausted, "fakespanner: injected RESOURCE_EXHAUSTED", time.Millisecond),
}

// faultQuery registers "q" as faultResultSet in 12 messages with a resume
// token on each, and returns its rows as a plain read gives them.
func faultQuery(t *testing.T, s *fakespanner.Server, faults ...fakespanner.Fault) [][]any {
	t.Helper()
	rs := faultResultSet()
	s.AddResult("whole", &fakespanner.Result{ResultSet: rs})
	db := openFake(t, s)
	want, _, err := readCanon(context.Background(), db, "whole")
	db.Close() // now: goroutine checks run before the test's cleanups
	if err != nil || len(want) != faultRows {
		t.Fatalf("reference read: %d rows, %v", len(want), err)
	}
	s.AddResult("q", &fakespanner.Result{ResultSet: rs, Split: fakespanner.SplitOptions{MaxValues: 6}, Faults: faults})
	s.ResetRequests()
	return want
}

// TestFakeCreateSessionRetried: CreateSession failing transiently is
// retried until it succeeds; a failure that is not transient is the
// query's error at once, and the next query tries again.
func TestFakeCreateSessionRetried(t *testing.T) {
	s := fakespanner.Start(t)
	ctx := context.Background()
	want := faultQuery(t, s)
	for _, ferr := range transientErrs {
		name := fmt.Sprintf("CreateSession fails 3 times with %v", ferr)
		s.AddMethodFault("CreateSession", fakespanner.Fault{Err: ferr, Times: 3})
		s.ResetRequests()
		got, _, err := readCanon(ctx, openFake(t, s), "q")
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if d := diffRows(got, want); d != "" {
			t.Fatalf("%s: %s", name, d)
		}
		if n := len(s.RequestsFor("CreateSession")); n != 4 {
			t.Fatalf("%s: %d CreateSession requests, want 4", name, n)
		}
		if n := len(s.RequestsFor("ExecuteStreamingSql")); n != 1 {
			t.Fatalf("%s: %d ExecuteStreamingSql requests, want 1", name, n)
		}
	}

	s.AddMethodFault("CreateSession", fakespanner.Fault{Err: status.Error(codes.PermissionDenied, "fakespanner: injected PERMISSION_DENIED")})
	s.ResetRequests()
	db := openFake(t, s)
	if _, _, err := readCanon(ctx, db, "q"); status.Code(err) != codes.PermissionDenied {
		t.Fatalf("PERMISSION_DENIED from CreateSession: query error %v, want that code", err)
	}
	if n, m := len(s.RequestsFor("CreateSession")), len(s.RequestsFor("ExecuteStreamingSql")); n != 1 || m != 0 {
		t.Fatalf("PERMISSION_DENIED: %d CreateSession and %d ExecuteStreamingSql requests, want 1 and 0", n, m)
	}
	got, _, err := readCanon(ctx, db, "q")
	if err != nil || diffRows(got, want) != "" {
		t.Fatalf("query after the failure: %d rows, %v", len(got), err)
	}
}

// TestFakeStreamStartRetried: a query whose first attempts fail before the
// first response (at the method's start, or at stream position 0) is
// retried from the beginning; a query error that is not transient is not
// retried.
func TestFakeStreamStartRetried(t *testing.T) {
	ctx := context.Background()
	for _, ferr := range transientErrs {
		for _, where := range []string{"method", "position 0"} {
			name := fmt.Sprintf("%s at %s, 3 times", ferr, where)
			s := fakespanner.Start(t)
			var want [][]any
			if where == "method" {
				want = faultQuery(t, s)
				s.AddMethodFault("ExecuteStreamingSql", fakespanner.Fault{Err: ferr, Times: 3})
			} else {
				want = faultQuery(t, s, fakespanner.Fault{AfterMessage: 0, Err: ferr, Times: 3})
			}
			got, _, err := readCanon(ctx, openFake(t, s, "prefetch_messages=3"), "q")
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if d := diffRows(got, want); d != "" {
				t.Fatalf("%s: %s", name, d)
			}
			reqs := s.RequestsFor("ExecuteStreamingSql")
			if len(reqs) != 4 {
				t.Fatalf("%s: %d ExecuteStreamingSql requests, want 4", name, len(reqs))
			}
			for i, r := range reqs {
				if tok := r.ExecuteSQL().GetResumeToken(); tok != nil {
					t.Fatalf("%s: request %d resumes at %q; nothing was received to resume after", name, i, tok)
				}
			}
		}
	}

	s := fakespanner.Start(t)
	faultQuery(t, s)
	s.AddMethodFault("ExecuteStreamingSql", fakespanner.Fault{Err: fakespanner.ErrInternal, Times: -1})
	if _, _, err := readCanon(ctx, openFake(t, s), "q"); status.Code(err) != codes.Internal || errors.As(err, new(*transport.RetryStoppedError)) {
		t.Fatalf("non-transient INTERNAL: %v, want it as it is", err)
	}
	if n := len(s.RequestsFor("ExecuteStreamingSql")); n != 1 {
		t.Fatalf("non-transient INTERNAL: %d requests, want 1", n)
	}
}

// TestFakeRetryDeadline: endless transient failures are retried until the
// context, statement_timeout or connect_timeout ends; the error then has
// code DEADLINE_EXCEEDED, as the official client's has, and names the last
// transient failure.
func TestFakeRetryDeadline(t *testing.T) {
	// Long enough for several retries even on a loaded machine.
	const limit = 1500 * time.Millisecond
	check := func(name string, s *fakespanner.Server, method string, err error, elapsed time.Duration) {
		t.Helper()
		var stopped *transport.RetryStoppedError
		if status.Code(err) != codes.DeadlineExceeded || !errors.As(err, &stopped) ||
			!errors.Is(stopped.Last, fakespanner.ErrUnavailable) {
			t.Fatalf("%s: %v (code %v), want DEADLINE_EXCEEDED naming the last UNAVAILABLE", name, err, status.Code(err))
		}
		if n := len(s.RequestsFor(method)); n < 3 {
			t.Fatalf("%s: %d %s requests, want several retries", name, n, method)
		}
		if elapsed < limit || elapsed > 10*time.Second {
			t.Fatalf("%s: gave up after %v, want about %v", name, elapsed, limit)
		}
	}
	for _, c := range []struct {
		name, method string
		props        []string
		ctxLimit     bool
	}{
		{"query, context deadline", "ExecuteStreamingSql", nil, true},
		{"query, statement_timeout", "ExecuteStreamingSql", []string{"statement_timeout=1500ms"}, false},
		{"CreateSession, context deadline", "CreateSession", nil, true},
		{"CreateSession, connect_timeout", "CreateSession", []string{"connect_timeout=1500ms"}, false},
	} {
		s := fakespanner.Start(t)
		faultQuery(t, s)
		s.AddMethodFault(c.method, fakespanner.Fault{Err: fakespanner.ErrUnavailable, Times: -1})
		db := openFake(t, s, c.props...)
		ctx := context.Background()
		// The clock starts before the deadline is set, so that the time
		// measured is never shorter than the time the deadline allowed.
		start := time.Now()
		if c.ctxLimit {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, limit)
			defer cancel()
		}
		_, _, err := readCanon(ctx, db, "q")
		check(c.name, s, c.method, err, time.Since(start))
	}

	// The official client reports the same code for the same failure.
	s := fakespanner.Start(t)
	faultQuery(t, s)
	client := officialClient(t, s)
	s.AddMethodFault("ExecuteStreamingSql", fakespanner.Fault{Err: fakespanner.ErrUnavailable, Times: -1})
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	_, err := officialRows(ctx, client, "q")
	if spanner.ErrCode(err) != codes.DeadlineExceeded {
		t.Fatalf("official client: %v (code %v); this test expects DEADLINE_EXCEEDED", err, spanner.ErrCode(err))
	}
}

// TestFakeRetryProperty: random transient faults when creating the
// session, at the start of ExecuteStreamingSql and at random stream
// positions, over random message splits and read modes, never lose or
// repeat a row, and each fault costs exactly one more request.
func TestFakeRetryProperty(t *testing.T) {
	s := fakespanner.Start(t)
	ctx := context.Background()
	rs := faultResultSet()
	wants := map[bool][][]any{false: faultQuery(t, s)} // by rawDecode
	raw, _, err := readCanon(ctx, openFake(t, s, "rawDecode=true"), "whole")
	if err != nil {
		t.Fatal(err)
	}
	wants[true] = raw
	splits := faultSplits()
	splitNames := []string{"token-every-message", "token-every-3rd-chunked"}
	runs := iterations(10, 40, 400)
	for it := range runs {
		rng := rand.New(rand.NewPCG(uint64(it), 0x5eed))
		opts := splits[splitNames[rng.IntN(2)]]
		opts.ResumeTokenEvery = []int{1, 2, 3, 5, fakespanner.NoResumeTokens}[rng.IntN(5)]
		n := len(fakespanner.Split(rs, opts))
		pick := func() error { return transientErrs[rng.IntN(len(transientErrs))] }

		sessionFaults, openFaults := rng.IntN(3), rng.IntN(3)
		if sessionFaults > 0 {
			s.AddMethodFault("CreateSession", fakespanner.Fault{Err: pick(), Times: sessionFaults})
		}
		if openFaults > 0 {
			s.AddMethodFault("ExecuteStreamingSql", fakespanner.Fault{Err: pick(), Times: openFaults})
		}
		var faults []fakespanner.Fault
		for range rng.IntN(4) {
			faults = append(faults, fakespanner.Fault{AfterMessage: rng.IntN(n + 1), Err: pick()})
		}
		s.AddResult("q", &fakespanner.Result{ResultSet: rs, Split: opts, Faults: faults})
		s.ResetRequests()

		rawDecode := rng.IntN(2) == 0
		want := wants[rawDecode]
		props := []string{fmt.Sprintf("prefetch_messages=%d", 1+rng.IntN(4)), fmt.Sprintf("rawDecode=%t", rawDecode), "poison_raw_buffers=true"}
		desc := fmt.Sprintf("iteration %d (split %+v, %d messages, %d CreateSession faults, %d start faults, stream faults %v, %v)",
			it, opts, n, sessionFaults, openFaults, faults, props)
		db := openFake(t, s, props...) // a new connector: a new session
		got, _, err := readCanon(ctx, db, "q")
		db.Close()
		if err != nil {
			t.Fatalf("%s: %v", desc, err)
		}
		if d := diffRows(got, want); d != "" {
			t.Fatalf("%s: %s", desc, d)
		}
		if got, want := len(s.RequestsFor("CreateSession")), 1+sessionFaults; got != want {
			t.Fatalf("%s: %d CreateSession requests, want %d", desc, got, want)
		}
		if got, want := len(s.RequestsFor("ExecuteStreamingSql")), 1+openFaults+len(faults); got != want {
			t.Fatalf("%s: %d ExecuteStreamingSql requests, want %d", desc, got, want)
		}
	}
}

// TestFakeCloseDuringRetry: closing the rows while the reader goroutine
// retries an endlessly failing stream, or cancelling the context while Next
// waits for it, returns promptly and leaves no goroutine behind.
func TestFakeCloseDuringRetry(t *testing.T) {
	ignore := goleak.IgnoreCurrent()
	s := fakespanner.Start(t)
	faultQuery(t, s, fakespanner.Fault{AfterMessage: 3, Err: fakespanner.ErrUnavailable, Times: -1})
	for _, prefetch := range []string{"prefetch_messages=1", "prefetch_messages=4"} {
		for _, how := range []string{"close", "cancel"} {
			name := prefetch + ", " + how
			db := openFake(t, s, prefetch)
			ctx, cancel := context.WithCancel(context.Background())
			within(t, name, func() {
				r, err := db.QueryContext(ctx, "q")
				if err != nil {
					t.Errorf("%s: %v", name, err)
					return
				}
				for range 6 { // the rows of the messages before the failing point
					if !r.Next() {
						t.Errorf("%s: rows ended early: %v", name, r.Err())
					}
				}
				// The next row needs message 3, which never comes: the
				// driver keeps retrying (ahead of the consumer when
				// prefetching) until it is stopped.
				retrying := func() {
					for len(s.RequestsFor("ExecuteStreamingSql")) < 3 {
						time.Sleep(time.Millisecond)
					}
				}
				if how == "close" {
					retrying()
					r.Close()
					return
				}
				go func() {
					retrying()
					cancel()
				}()
				if r.Next() {
					t.Errorf("%s: a row past the failing point", name)
				}
				if status.Code(r.Err()) != codes.Canceled && !errors.Is(r.Err(), context.Canceled) {
					t.Errorf("%s: rows error %v, want cancellation", name, r.Err())
				}
				r.Close()
			})
			cancel()
			db.Close()
			if n := len(s.RequestsFor("ExecuteStreamingSql")); n < 2 {
				t.Fatalf("%s: %d requests; the stream was not being retried", name, n)
			}
			s.ResetRequests()
		}
	}
	s.Close()
	goleak.VerifyNone(t, ignore)
}
