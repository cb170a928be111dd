package e2e

import (
	"bytes"
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"go.uber.org/goleak"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/spannerfast/spannerfast/internal/fakespanner"
)

// faultRows is the row count of faultResultSet.
const faultRows = 24

// faultResultSet has faultRows rows of (id INT64, s STRING, a ARRAY<INT64>)
// with id = row number.
func faultResultSet() *spannerpb.ResultSet {
	rs := &spannerpb.ResultSet{Metadata: &spannerpb.ResultSetMetadata{RowType: &spannerpb.StructType{Fields: []*spannerpb.StructType_Field{
		{Name: "id", Type: &spannerpb.Type{Code: spannerpb.TypeCode_INT64}},
		{Name: "s", Type: &spannerpb.Type{Code: spannerpb.TypeCode_STRING}},
		{Name: "a", Type: &spannerpb.Type{Code: spannerpb.TypeCode_ARRAY, ArrayElementType: &spannerpb.Type{Code: spannerpb.TypeCode_INT64}}},
	}}}}
	for i := range faultRows {
		var elems []*structpb.Value
		for j := range i % 5 {
			elems = append(elems, structpb.NewStringValue(fmt.Sprint(i*10+j)))
		}
		rs.Rows = append(rs.Rows, &structpb.ListValue{Values: []*structpb.Value{
			structpb.NewStringValue(fmt.Sprint(i)),
			structpb.NewStringValue(fmt.Sprintf("row %02d: %s", i, strings.Repeat("日本", i))),
			structpb.NewListValue(&structpb.ListValue{Values: elems}),
		}})
	}
	return rs
}

// faultSplits are the stream shapes of the fault matrix: 12 messages with a
// resume token on each; and tokens only on every 3rd message with STRING
// and ARRAY values chunked across message boundaries.
func faultSplits() map[string]fakespanner.SplitOptions {
	var chunks []fakespanner.Chunk
	for r := 1; r < faultRows; r += 3 {
		chunks = append(chunks, fakespanner.Chunk{Row: r, Column: 1, At: 4})
		if r%5 >= 2 {
			chunks = append(chunks, fakespanner.Chunk{Row: r, Column: 2, At: 1})
		}
	}
	return map[string]fakespanner.SplitOptions{
		"token-every-message":     {MaxValues: 6},
		"token-every-3rd-chunked": {MaxValues: 6, ResumeTokenEvery: 3, Chunks: chunks},
	}
}

// lastToken is the resume token a client holds after receiving msgs.
func lastToken(msgs []*spannerpb.PartialResultSet) []byte {
	for i := len(msgs) - 1; i >= 0; i-- {
		if t := msgs[i].GetResumeToken(); len(t) > 0 {
			return t
		}
	}
	return nil
}

// completeRows is how many whole rows msgs carry (a value chunked at the
// end is incomplete).
func completeRows(msgs []*spannerpb.PartialResultSet, ncols int) int {
	vals := 0
	for i, m := range msgs {
		vals += len(m.GetValues())
		if i > 0 && msgs[i-1].GetChunkedValue() {
			vals-- // the first value continues the previous one
		}
	}
	if len(msgs) > 0 && msgs[len(msgs)-1].GetChunkedValue() {
		vals--
	}
	return vals / ncols
}

// readSplit is readCanon that tells QueryContext's error (queryErr, also
// returned as err) from one that ended the rows.
func readSplit(ctx context.Context, db *sql.DB, query string) (rows [][]any, queryErr, err error) {
	r, err := db.QueryContext(ctx, query)
	if err != nil {
		return nil, err, err
	}
	defer r.Close()
	cols, err := r.Columns()
	if err != nil {
		return nil, nil, err
	}
	for r.Next() {
		vals, err := scanAny(r, len(cols))
		if err != nil {
			return rows, nil, err
		}
		rows = append(rows, canonRow(vals))
	}
	return rows, nil, r.Err()
}

// TestFakeFaultMatrix injects a fault at every message boundary (before
// message k, k = 0..n) of multi-message streams. Retryable faults are
// invisible: the full result arrives exactly once, in order, and the
// resumed request carries the last token the driver had. Other faults end
// the result after the rows before the fault with the injected code.
func TestFakeFaultMatrix(t *testing.T) {
	s := fakespanner.Start(t)
	ctx := context.Background()
	rs := faultResultSet()
	dbs := map[string]*sql.DB{
		"safe": openFake(t, s, "prefetch_messages=2"),
		"raw":  openFake(t, s, "prefetch_messages=5", "rawDecode=true", "poison_raw_buffers=true"),
	}
	s.AddResult("whole", &fakespanner.Result{ResultSet: rs})
	wants := map[string][][]any{}
	for name, db := range dbs {
		want, _, err := readCanon(ctx, db, "whole")
		if err != nil {
			t.Fatal(err)
		}
		if len(want) != faultRows {
			t.Fatalf("%s: %d rows, want %d", name, len(want), faultRows)
		}
		for i, row := range want {
			if row[0] != canon(int64(i)) {
				t.Fatalf("%s: row %d has id %v", name, i, row[0])
			}
		}
		wants[name] = want
	}

	retryable := map[string]error{
		"UNAVAILABLE":        fakespanner.ErrUnavailable,
		"INTERNAL/RST":       fakespanner.ErrRSTStream,
		"RESOURCE_EXHAUSTED": fakespanner.WithRetryDelay(codes.ResourceExhausted, "fakespanner: injected RESOURCE_EXHAUSTED", time.Millisecond),
	}
	fatal := map[string]error{
		"ABORTED":           fakespanner.ErrAborted,
		"INTERNAL":          fakespanner.ErrInternal,
		"DEADLINE_EXCEEDED": fakespanner.ErrDeadlineExceeded,
		"INVALID_ARGUMENT":  status.Error(codes.InvalidArgument, "fakespanner: injected INVALID_ARGUMENT"),
		// RESOURCE_EXHAUSTED without a retry delay is not retried.
		"RESOURCE_EXHAUSTED/no-delay": status.Error(codes.ResourceExhausted, "fakespanner: injected RESOURCE_EXHAUSTED"),
	}

	for splitName, opts := range faultSplits() {
		msgs, err := fakespanner.SplitChecked(rs, opts)
		if err != nil {
			t.Fatal(err)
		}
		n := len(msgs)
		chunked := 0
		for _, m := range msgs {
			if m.GetChunkedValue() {
				chunked++
			}
		}
		if n < 12 || (strings.Contains(splitName, "chunked") && chunked < 4) {
			t.Fatalf("%s: %d messages, %d chunked", splitName, n, chunked)
		}
		for modeName, db := range dbs {
			want := wants[modeName]
			for errName, ferr := range retryable {
				for k := 0; k <= n; k++ {
					name := fmt.Sprintf("%s/%s/%s before message %d of %d", splitName, modeName, errName, k, n)
					s.ResetRequests()
					s.AddResult("q", &fakespanner.Result{ResultSet: rs, Split: opts, Faults: []fakespanner.Fault{{AfterMessage: k, Err: ferr}}})
					got, _, err := readCanon(ctx, db, "q")
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					if d := diffRows(got, want); d != "" {
						t.Fatalf("%s: %s", name, d)
					}
					reqs := s.RequestsFor("ExecuteStreamingSql")
					if len(reqs) != 2 {
						t.Fatalf("%s: %d ExecuteStreamingSql requests, want 2", name, len(reqs))
					}
					if tok := reqs[0].ExecuteSQL().GetResumeToken(); tok != nil {
						t.Fatalf("%s: first request has resume token %q", name, tok)
					}
					if got, want := reqs[1].ExecuteSQL().GetResumeToken(), lastToken(msgs[:k]); !bytes.Equal(got, want) {
						t.Fatalf("%s: resumed with token %q, want %q", name, got, want)
					}
				}
			}
			for errName, ferr := range fatal {
				code := status.Code(ferr)
				for k := 0; k <= n; k++ {
					name := fmt.Sprintf("%s/%s/%s before message %d of %d", splitName, modeName, errName, k, n)
					s.ResetRequests()
					s.AddResult("q", &fakespanner.Result{ResultSet: rs, Split: opts, Faults: []fakespanner.Fault{{AfterMessage: k, Err: ferr}}})
					got, queryErr, err := readSplit(ctx, db, "q")
					if k == 0 && queryErr == nil {
						t.Fatalf("%s: QueryContext succeeded; a failure before the first message must be its error", name)
					}
					if k > 0 && queryErr != nil {
						t.Fatalf("%s: QueryContext failed (%v); the error must come from rows.Err() after the rows", name, queryErr)
					}
					if status.Code(err) != code {
						t.Fatalf("%s: error %v (code %v), want code %v", name, err, status.Code(err), code)
					}
					if wantRows := completeRows(msgs[:k], 3); len(got) != wantRows {
						t.Fatalf("%s: %d rows before the error, want %d", name, len(got), wantRows)
					}
					if d := diffRows(got, want[:len(got)]); d != "" {
						t.Fatalf("%s: %s", name, d)
					}
					if reqs := s.RequestsFor("ExecuteStreamingSql"); len(reqs) != 1 {
						t.Fatalf("%s: %d ExecuteStreamingSql requests, want 1 (no retry)", name, len(reqs))
					}
				}
			}
		}
	}
}

// TestFakeFaultBeforeFirstMessage: a non-retryable fault before the first
// message is QueryContext's error.
func TestFakeFaultBeforeFirstMessage(t *testing.T) {
	s := fakespanner.Start(t)
	db := openFake(t, s)
	s.AddResult("q", &fakespanner.Result{ResultSet: faultResultSet(), Split: fakespanner.SplitOptions{MaxValues: 6},
		Faults: []fakespanner.Fault{{AfterMessage: 0, Err: fakespanner.ErrAborted}}})
	rows, err := db.QueryContext(context.Background(), "q")
	if err == nil {
		rows.Close()
		t.Fatal("QueryContext succeeded; want the injected ABORTED")
	}
	if status.Code(err) != codes.Aborted || !strings.Contains(err.Error(), "injected ABORTED") {
		t.Fatalf("QueryContext error %v (code %v), want the injected ABORTED", err, status.Code(err))
	}
	// An unknown SQL text fails on the server the same way.
	if _, err := db.QueryContext(context.Background(), "no such query"); status.Code(err) != codes.InvalidArgument {
		t.Fatalf("unknown query: %v, want INVALID_ARGUMENT", err)
	}
}

// TestFakeMaxBufferedBytes: without resume tokens, once more than
// max_buffered_bytes wait the stream is no longer resumable, so a later
// retryable fault is an error (never a restart that would repeat rows).
// Below the limit, the same fault restarts the query from the start.
func TestFakeMaxBufferedBytes(t *testing.T) {
	s := fakespanner.Start(t)
	ctx := context.Background()
	rs := faultResultSet()
	opts := fakespanner.SplitOptions{MaxValues: 6, ResumeTokenEvery: fakespanner.NoResumeTokens}
	msgs := fakespanner.Split(rs, opts)
	n := len(msgs)
	small := openFake(t, s, "max_buffered_bytes=1")
	large := openFake(t, s, "max_buffered_bytes=1MiB")
	s.AddResult("whole", &fakespanner.Result{ResultSet: rs})
	want, _, err := readCanon(ctx, large, "whole")
	if err != nil || len(want) != faultRows {
		t.Fatalf("%d rows, %v", len(want), err)
	}
	for k := 0; k <= n; k++ {
		for _, c := range []struct {
			name    string
			db      *sql.DB
			failing bool
		}{
			// Before any message nothing is buffered: still resumable.
			{"small", small, k > 0},
			{"large", large, false},
		} {
			name := fmt.Sprintf("%s buffer, UNAVAILABLE before message %d of %d", c.name, k, n)
			s.ResetRequests()
			s.AddResult("q", &fakespanner.Result{ResultSet: rs, Split: opts, Faults: []fakespanner.Fault{{AfterMessage: k, Err: fakespanner.ErrUnavailable}}})
			got, _, err := readCanon(ctx, c.db, "q")
			reqs := s.RequestsFor("ExecuteStreamingSql")
			if c.failing {
				if status.Code(err) != codes.Unavailable {
					t.Fatalf("%s: error %v, want UNAVAILABLE", name, err)
				}
				if len(got) != completeRows(msgs[:k], 3) {
					t.Fatalf("%s: %d rows before the error, want %d", name, len(got), completeRows(msgs[:k], 3))
				}
				if len(reqs) != 1 {
					t.Fatalf("%s: %d requests, want 1", name, len(reqs))
				}
			} else {
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if len(reqs) != 2 || reqs[1].ExecuteSQL().GetResumeToken() != nil {
					t.Fatalf("%s: %d requests; want a restart from the beginning", name, len(reqs))
				}
			}
			if d := diffRows(got, want[:len(got)]); d != "" {
				t.Fatalf("%s: %s", name, d)
			}
			if !c.failing && len(got) != faultRows {
				t.Fatalf("%s: %d rows, want %d", name, len(got), faultRows)
			}
		}
	}
}

// TestFakeLastStopsReading: after a message with last=true the driver stops
// reading; the fake server then hangs until the client cancels, so a driver
// that waited for the end of the stream would never finish. A fault after
// the last message is never seen either.
func TestFakeLastStopsReading(t *testing.T) {
	s := fakespanner.Start(t)
	rs := faultResultSet()
	db := openFake(t, s, "prefetch_messages=3")
	for _, c := range []struct {
		name  string
		opts  fakespanner.SplitOptions
		fault fakespanner.Fault
	}{
		{"single message, hang", fakespanner.SplitOptions{Last: true}, fakespanner.Fault{Hang: true}},
		{"12 messages with tokens, hang", fakespanner.SplitOptions{MaxValues: 6, Last: true}, fakespanner.Fault{Hang: true}},
		{"12 messages without tokens, hang", fakespanner.SplitOptions{MaxValues: 6, Last: true, ResumeTokenEvery: fakespanner.NoResumeTokens}, fakespanner.Fault{Hang: true}},
		{"12 messages with tokens, UNAVAILABLE", fakespanner.SplitOptions{MaxValues: 6, Last: true}, fakespanner.Fault{Err: fakespanner.ErrUnavailable}},
		{"12 messages, every 3rd token, RST", fakespanner.SplitOptions{MaxValues: 6, Last: true, ResumeTokenEvery: 3}, fakespanner.Fault{Err: fakespanner.ErrRSTStream}},
	} {
		n := len(fakespanner.Split(rs, c.opts))
		c.fault.AfterMessage = n
		s.ResetRequests()
		s.AddResult("q", &fakespanner.Result{ResultSet: rs, Split: c.opts, Faults: []fakespanner.Fault{c.fault}})
		done := make(chan struct{})
		var got [][]any
		var err error
		go func() {
			defer close(done)
			got, _, err = readCanon(context.Background(), db, "q")
		}()
		select {
		case <-done:
		case <-time.After(time.Minute):
			t.Fatalf("%s: the query did not finish: the driver waits for the end of the stream after last=true", c.name)
		}
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if len(got) != faultRows {
			t.Fatalf("%s: %d rows, want %d", c.name, len(got), faultRows)
		}
		if reqs := s.RequestsFor("ExecuteStreamingSql"); len(reqs) != 1 {
			t.Fatalf("%s: %d ExecuteStreamingSql requests, want 1: the driver kept reading after last=true", c.name, len(reqs))
		}
	}
}

// hangingResult is a long result (48 messages with tokens) whose stream
// hangs before message hangAt until the client cancels, every time.
func hangingResult(hangAt int) (*fakespanner.Result, []*spannerpb.PartialResultSet) {
	rs := faultResultSet()
	for len(rs.Rows) < 4*faultRows {
		rs.Rows = append(rs.Rows, rs.Rows[:faultRows]...)
	}
	opts := fakespanner.SplitOptions{MaxValues: 6}
	return &fakespanner.Result{ResultSet: rs, Split: opts, Faults: []fakespanner.Fault{{AfterMessage: hangAt, Hang: true, Times: -1}}},
		fakespanner.Split(rs, opts)
}

// within runs f and fails the test if it does not return in a minute (a
// guard against hanging forever, not a timing assertion).
func within(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatalf("%s did not return", what)
	}
}

// TestFakeCancelAndClose: cancelling the context or closing the rows in the
// middle of a stream that hangs (or of one the driver is not reading fast
// enough) returns promptly, stops the reader goroutine and the RPC, and
// reports cancellation.
func TestFakeCancelAndClose(t *testing.T) {
	// Everything the test starts must be gone once it closed its handles
	// and the server (TestMain checks the whole package as well).
	ignore := goleak.IgnoreCurrent()
	defer func() {
		if !t.Failed() {
			goleak.VerifyNone(t, ignore)
		}
	}()
	s := fakespanner.Start(t)
	res, msgs := hangingResult(6)
	s.AddResult("hang", res)
	before := completeRows(msgs[:6], 3)

	for _, props := range [][]string{{"prefetch_messages=1"}, {"prefetch_messages=4", "rawDecode=true"}} {
		db, err := sql.Open("spannerfast", fakeDSN(s, props...))
		if err != nil {
			t.Fatal(err)
		}
		name := strings.Join(props, ";")

		// Cancel while Next waits for the stream.
		ctx, cancel := context.WithCancel(context.Background())
		rows, err := db.QueryContext(ctx, "hang")
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		n := 0
		within(t, "Next after cancel", func() {
			for rows.Next() {
				if n++; n == 3 {
					cancel()
				}
			}
		})
		if n < 3 || n > before {
			t.Fatalf("%s: %d rows before cancellation, want 3..%d", name, n, before)
		}
		// Whichever sees the cancellation first reports it: database/sql
		// (context.Canceled) or the driver (status CANCELED).
		if err := rows.Err(); !errors.Is(err, context.Canceled) && status.Code(err) != codes.Canceled {
			t.Fatalf("%s: rows.Err() = %v, want cancellation", name, err)
		}
		within(t, "Close after cancel", func() { rows.Close() })

		// Close in the middle of a hanging stream.
		rows, err = db.QueryContext(context.Background(), "hang")
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for range 2 {
			if !rows.Next() {
				t.Fatalf("%s: %v", name, rows.Err())
			}
		}
		within(t, "Close of a hanging stream", func() {
			if err := rows.Close(); err != nil {
				t.Errorf("%s: Close: %v", name, err)
			}
		})

		// Close while the read-ahead is full and the server keeps sending.
		s.AddResult("long", &fakespanner.Result{ResultSet: res.ResultSet, Split: fakespanner.SplitOptions{MaxValues: 3}})
		rows, err = db.QueryContext(context.Background(), "long")
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !rows.Next() {
			t.Fatalf("%s: %v", name, rows.Err())
		}
		within(t, "Close with a full read-ahead", func() { rows.Close() })

		// Cancel while QueryContext waits for the first message.
		s.AddResult("hang-first", &fakespanner.Result{ResultSet: res.ResultSet, Faults: []fakespanner.Fault{{AfterMessage: 0, Hang: true, Times: -1}}})
		s.ResetRequests()
		ctx, cancel = context.WithCancel(context.Background())
		go func() {
			for len(s.RequestsFor("ExecuteStreamingSql")) == 0 {
				time.Sleep(time.Millisecond)
			}
			cancel()
		}()
		within(t, "QueryContext after cancel", func() {
			rows, err = db.QueryContext(ctx, "hang-first")
		})
		if err == nil {
			rows.Close()
			t.Fatalf("%s: QueryContext succeeded on a hanging stream", name)
		}
		if !errors.Is(err, context.Canceled) && status.Code(err) != codes.Canceled {
			t.Fatalf("%s: QueryContext error %v, want cancellation", name, err)
		}

		// At the driver level the error keeps its gRPC status: Canceled.
		conn, err := db.Conn(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		err = conn.Raw(func(dc any) error {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			dr, err := dc.(driver.QueryerContext).QueryContext(ctx, "hang", nil)
			if err != nil {
				return err
			}
			defer dr.Close()
			dest := make([]driver.Value, len(dr.Columns()))
			for i := 0; ; i++ {
				if i == 3 {
					cancel()
				}
				var err error
				within(t, "driver Next after cancel", func() { err = dr.Next(dest) })
				if err == io.EOF {
					return errors.New("the stream ended normally after cancellation")
				}
				if err != nil {
					if status.Code(err) != codes.Canceled {
						return fmt.Errorf("driver Next error %v (code %v), want CANCELED", err, status.Code(err))
					}
					if i < 3 || i > before {
						return fmt.Errorf("%d rows before the error, want 3..%d", i, before)
					}
					return nil
				}
			}
		})
		conn.Close()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		db.Close()
	}
	s.Close()
}

// TestFakeLastEndsCallNormally: after a message with last=true the rows are
// complete at once, and the call still ends normally on the server: the
// driver reads the status the server sends behind the last message (here
// 300 ms later) in the background instead of cancelling the call, as the
// official client does, so server-side monitoring does not count every
// point read as cancelled.
func TestFakeLastEndsCallNormally(t *testing.T) {
	s := fakespanner.Start(t)
	rs := faultResultSet()
	opts := fakespanner.SplitOptions{Last: true}
	n := len(fakespanner.Split(rs, opts))
	s.AddResult("q", &fakespanner.Result{ResultSet: rs, Split: opts,
		Faults: []fakespanner.Fault{{AfterMessage: n, Delay: 300 * time.Millisecond, Times: -1}}})
	db := openFake(t, s)
	for i := range 3 {
		got, _, err := readCanon(context.Background(), db, "q")
		if err != nil || len(got) != faultRows {
			t.Fatalf("query %d: %d rows, %v", i, len(got), err)
		}
		// The server is still holding its status back: the rows did not
		// wait for it.
		if o := s.StreamOutcomes(); o.Ended != i {
			t.Fatalf("query %d returned after its call ended on the server (%+v): the driver waited for the status behind last=true", i, o)
		}
		within(t, "the server's handler", func() {
			for s.StreamOutcomes().Ended < i+1 {
				time.Sleep(10 * time.Millisecond)
			}
		})
		if o := s.StreamOutcomes(); o.Cancelled != 0 {
			t.Fatalf("server outcomes %+v: a call ended by last=true was cancelled", o)
		}
	}
}
