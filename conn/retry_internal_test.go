package conn

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/spannerfast/spannerfast/internal/stream"
	"github.com/spannerfast/spannerfast/internal/transport"
	"github.com/spannerfast/spannerfast/internal/wire"
)

var errUnavailable = status.Error(codes.Unavailable, "test: UNAVAILABLE")

// ceilings are the first backoff ceilings: 20 ms, x1.3 each (the policy of
// transport.Backoff, whose own tests pin it).
func ceilings(n int) []time.Duration {
	out := []time.Duration{20 * time.Millisecond}
	for len(out) < n {
		out = append(out, time.Duration(float64(out[len(out)-1])*1.3))
	}
	return out
}

// script is one attempt of a scripted stream: an error from open, or frames
// followed by an error (io.EOF: normal end).
type script struct {
	openErr error
	msgs    []*spannerpb.PartialResultSet
	end     error
}

type scriptSource struct {
	msgs []*spannerpb.PartialResultSet
	end  error
}

func (s *scriptSource) Recv() (*wire.Frame, error) {
	if len(s.msgs) == 0 {
		return nil, s.end
	}
	b, err := proto.Marshal(s.msgs[0])
	if err != nil {
		return nil, err
	}
	s.msgs = s.msgs[1:]
	return wire.NewFrame(b), nil
}

func (s *scriptSource) Close() error { return nil }

// scripted is a resumable stream (internal/stream) with a query stream's
// retry policy over attempts; it records the tokens attempts were opened
// with and the waits, with jitter off (every wait is the ceiling).
type scripted struct {
	*stream.Resumable
	retry  streamRetry
	tokens []string
	sleeps []time.Duration
}

func newScripted(t *testing.T, maxBuffered int64, attempts ...script) *scripted {
	t.Helper()
	return newScriptedIn(t, context.Background(), maxBuffered, attempts...)
}

// newScriptedIn is newScripted for a stream whose attempts run under
// parent.
func newScriptedIn(t *testing.T, parent context.Context, maxBuffered int64, attempts ...script) *scripted {
	t.Helper()
	sc := &scripted{}
	open := func(_ context.Context, token []byte) (stream.Source, error) {
		sc.tokens = append(sc.tokens, string(token))
		if len(attempts) == 0 {
			t.Fatal("more attempts than scripted")
		}
		a := attempts[0]
		attempts = attempts[1:]
		if a.openErr != nil {
			return nil, a.openErr
		}
		return &scriptSource{msgs: a.msgs, end: a.end}, nil
	}
	ctx, cancel := context.WithCancel(parent)
	t.Cleanup(cancel)
	sc.retry.b.Rand = func(n int64) int64 { return n - 1 }
	sc.retry.sleep = func(ctx context.Context, d time.Duration) error {
		sc.sleeps = append(sc.sleeps, d)
		return ctx.Err()
	}
	sc.Resumable = stream.NewResumable(ctx, cancel, open, maxBuffered, &sc.retry)
	return sc
}

// msg is a message with one INT64 value v and resume token tok ("": none).
func msg(v int, tok string) *spannerpb.PartialResultSet {
	m := &spannerpb.PartialResultSet{Values: []*structpb.Value{structpb.NewStringValue(fmt.Sprint(v))}}
	if tok != "" {
		m.ResumeToken = []byte(tok)
	}
	return m
}

// drain returns the values of every frame until the stream ends, and the
// final error (nil at a normal end).
func drain(t *testing.T, s *stream.Resumable) ([]string, error) {
	t.Helper()
	defer s.Close()
	var vals []string
	for {
		f, err := s.Recv()
		if err == io.EOF {
			return vals, nil
		}
		if err != nil {
			return vals, err
		}
		var m spannerpb.PartialResultSet
		if err := proto.Unmarshal(f.Data, &m); err != nil {
			t.Fatal(err)
		}
		for _, v := range m.Values {
			vals = append(vals, v.GetStringValue())
		}
	}
}

// TestStreamRetriesOpenAndResetsBackoff: failures to open, before the first
// response and mid-stream are all retried; the wait grows while nothing
// comes through and starts over after a response with a new resume token.
func TestStreamRetriesOpenAndResetsBackoff(t *testing.T) {
	rst := status.Error(codes.Internal, "stream terminated by RST_STREAM with error code: INTERNAL_ERROR")
	s := newScripted(t, 1<<20,
		script{openErr: errUnavailable},
		script{end: rst}, // before the first response
		script{openErr: errUnavailable},
		script{msgs: []*spannerpb.PartialResultSet{msg(0, "a"), msg(1, "")}, end: errUnavailable},
		script{end: errUnavailable},
		script{msgs: []*spannerpb.PartialResultSet{msg(1, "b"), msg(2, "")}, end: io.EOF},
	)
	vals, err := drain(t, s.Resumable)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"0", "1", "2"}; !slices.Equal(vals, want) {
		t.Fatalf("values %q, want %q", vals, want)
	}
	if want := []string{"", "", "", "", "a", "a"}; !slices.Equal(s.tokens, want) {
		t.Fatalf("attempts opened with tokens %q, want %q", s.tokens, want)
	}
	c := ceilings(3)
	if want := []time.Duration{c[0], c[1], c[2], c[0], c[1]}; !slices.Equal(s.sleeps, want) {
		t.Fatalf("waits %v, want %v (reset after the token)", s.sleeps, want)
	}
}

// TestStreamNonTransientOpenError: an error that is not transient is
// returned at once, with its code, and nothing is retried.
func TestStreamNonTransientOpenError(t *testing.T) {
	for _, err := range []error{
		status.Error(codes.PermissionDenied, "test: denied"),
		status.Error(codes.Internal, "test: a real internal error"),
		status.Error(codes.InvalidArgument, "test: bad query"),
		status.Error(codes.ResourceExhausted, "test: no retry delay"),
	} {
		s := newScripted(t, 1<<20, script{openErr: err}, script{end: io.EOF})
		_, got := drain(t, s.Resumable)
		if !errors.Is(got, err) || status.Code(got) != status.Code(err) {
			t.Fatalf("got %v, want %v", got, err)
		}
		if len(s.tokens) != 1 || len(s.sleeps) != 0 {
			t.Fatalf("%v: %d attempts, %d waits; want no retry", err, len(s.tokens), len(s.sleeps))
		}
	}
}

// TestStreamRetryStoppedByContext: when the context ends during a wait the
// error has the context's code and names both causes.
func TestStreamRetryStoppedByContext(t *testing.T) {
	ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	s := newScriptedIn(t, ctx, 1<<20, script{openErr: errUnavailable}, script{openErr: errUnavailable})
	_, err := drain(t, s.Resumable)
	var stopped *transport.RetryStoppedError
	if !errors.As(err, &stopped) || status.Code(err) != codes.DeadlineExceeded ||
		!errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, errUnavailable) {
		t.Fatalf("got %v (code %v), want a RetryStoppedError with DEADLINE_EXCEEDED wrapping the UNAVAILABLE", err, status.Code(err))
	}
	if len(s.tokens) != 1 {
		t.Fatalf("%d attempts after the deadline, want 1", len(s.tokens))
	}
}

// TestStreamResumableAgainAfterToken: past maxBuffered without a token the
// stream hands frames out unprotected; a failure then is final. The next
// token makes it resumable from that token again.
func TestStreamResumableAgainAfterToken(t *testing.T) {
	// A big message alone is past maxBuffered; a small one is not.
	big := func(v int) *spannerpb.PartialResultSet {
		return &spannerpb.PartialResultSet{Values: []*structpb.Value{structpb.NewStringValue(fmt.Sprint(v) + strings.Repeat(".", 40))}}
	}
	const maxBuffered = 16
	s := newScripted(t, maxBuffered,
		script{msgs: []*spannerpb.PartialResultSet{big(0), big(1), msg(2, "t2"), msg(3, "")}, end: errUnavailable},
		script{msgs: []*spannerpb.PartialResultSet{msg(3, ""), msg(4, "t4")}, end: io.EOF},
	)
	vals, err := drain(t, s.Resumable)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"0", "1", "2", "3", "4"}; !slices.Equal(trimDots(vals), want) {
		t.Fatalf("values %q, want %q", vals, want)
	}
	if want := []string{"", "t2"}; !slices.Equal(s.tokens, want) {
		t.Fatalf("attempts opened with tokens %q, want %q", s.tokens, want)
	}

	// Without a new token a failure stays final.
	s = newScripted(t, maxBuffered,
		script{msgs: []*spannerpb.PartialResultSet{big(0), msg(1, "")}, end: errUnavailable},
	)
	vals, err = drain(t, s.Resumable)
	if status.Code(err) != codes.Unavailable || !slices.Equal(trimDots(vals), []string{"0", "1"}) {
		t.Fatalf("values %q, error %v; want 0, 1 then UNAVAILABLE", vals, err)
	}
}

func trimDots(vals []string) []string {
	out := make([]string, len(vals))
	for i, v := range vals {
		out[i] = strings.TrimRight(v, ".")
	}
	return out
}

// TestStreamRepeatedTokenCoversNothing: a message carrying the token it
// follows is not covered by it, so a failure after it drops it and the
// resumed stream sends it once more: it arrives exactly once.
func TestStreamRepeatedTokenCoversNothing(t *testing.T) {
	s := newScripted(t, 1<<20,
		script{msgs: []*spannerpb.PartialResultSet{msg(0, "a"), msg(1, "a")}, end: errUnavailable},
		script{msgs: []*spannerpb.PartialResultSet{msg(1, "b")}, end: io.EOF},
	)
	vals, err := drain(t, s.Resumable)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"0", "1"}; !slices.Equal(vals, want) {
		t.Fatalf("values %q, want %q", vals, want)
	}
	if want := []string{"", "a"}; !slices.Equal(s.tokens, want) {
		t.Fatalf("attempts opened with tokens %q, want %q", s.tokens, want)
	}
}
