package txn

import (
	"context"
	"errors"
	"testing"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/spannerfast/spannerfast/internal/transport"
)

// TestCallCommit: which Commit failures are retried, and which leave the
// outcome unknown, for scripted answers of successive attempts.
func TestCallCommit(t *testing.T) {
	quick := func(c codes.Code) error {
		// A tiny RetryInfo delay keeps the backoff out of the test's time.
		st, _ := status.New(c, c.String()).WithDetails(&errdetails.RetryInfo{RetryDelay: durationpb.New(1)})
		return st.Err()
	}
	unavailable, exhausted := quick(codes.Unavailable), quick(codes.ResourceExhausted)
	rst := status.Error(codes.Internal, "stream terminated by RST_STREAM with error code: INTERNAL_ERROR")
	aborted := status.Error(codes.Aborted, "aborted")
	for _, tc := range []struct {
		name     string
		answers  []error // nil: success
		attempts int
		unknown  bool
		code     codes.Code
	}{
		{"success", []error{nil}, 1, false, codes.OK},
		{"refused then success", []error{exhausted, nil}, 2, false, codes.OK},
		{"unavailable then success", []error{unavailable, nil}, 2, false, codes.OK},
		{"RST_STREAM is not retried", []error{rst, nil}, 1, true, codes.Internal},
		{"deadline", []error{status.Error(codes.DeadlineExceeded, "deadline")}, 1, true, codes.DeadlineExceeded},
		{"unavailable then aborted", []error{unavailable, aborted}, 2, true, codes.Unavailable},
		{"unavailable then not found", []error{unavailable, status.Error(codes.NotFound, "Transaction not found")}, 2, true, codes.Unavailable},
		{"refused then aborted", []error{exhausted, aborted}, 2, false, codes.Aborted},
		{"aborted", []error{aborted}, 1, false, codes.Aborted},
		{"failed precondition", []error{status.Error(codes.FailedPrecondition, "no")}, 1, false, codes.FailedPrecondition},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := 0
			_, err := CallCommit(context.Background(), transport.Report{}, func(context.Context) (*spannerpb.CommitResponse, error) {
				e := tc.answers[n]
				n++
				if e != nil {
					return nil, e
				}
				return &spannerpb.CommitResponse{}, nil
			})
			if n != tc.attempts {
				t.Fatalf("%d attempts, want %d", n, tc.attempts)
			}
			if errors.Is(err, ErrCommitOutcomeUnknown) != tc.unknown || status.Code(err) != tc.code {
				t.Fatalf("error %v (code %v), want unknown=%v code %v", err, status.Code(err), tc.unknown, tc.code)
			}
			if tc.unknown && IsAborted(err) {
				t.Fatalf("an unknown outcome %v must never count as an abort", err)
			}
		})
	}
	t.Run("context ended before sending", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		sent := false
		_, err := CallCommit(ctx, transport.Report{}, func(context.Context) (*spannerpb.CommitResponse, error) { sent = true; return nil, nil })
		if sent || errors.Is(err, ErrCommitOutcomeUnknown) || status.Code(err) != codes.Canceled {
			t.Fatalf("sent %v, error %v; want nothing sent and a known CANCELED", sent, err)
		}
	})
}
