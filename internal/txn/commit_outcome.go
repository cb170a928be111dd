package txn

import (
	"context"
	"errors"
	"fmt"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/spannerfast/spannerfast/internal/transport"
)

// Commits whose outcome the driver cannot know.
//
// A Commit that broke off after it was sent (the connection reset, an
// INTERNAL "RST_STREAM", a deadline) may or may not have been applied.
// Sending it again cannot tell: if the first one committed, the retry may
// answer ABORTED, NOT_FOUND or FAILED_PRECONDITION for the finished
// transaction, and an abort replay (or a retry of autocommit work) would
// then apply the transaction's DML a second time. So a Commit is retried
// only on the codes the official client retries it on (UNAVAILABLE and
// RESOURCE_EXHAUSTED, answers of a server that did not apply it), an answer
// after such a retry other than success is not believed, and every other
// failure after sending is reported as an outcome the caller must check:
// a *CommitOutcomeUnknownError, which errors.Is matches with
// ErrCommitOutcomeUnknown. The transaction is never replayed on it. The
// connection is discarded by the pool afterwards (conn decides that).

// ErrCommitOutcomeUnknown is matched (errors.Is) by the error of a commit,
// an autocommit DML statement or an Apply whose Commit failed in a way that
// leaves open whether it was applied. Check the data before doing the work
// again.
var ErrCommitOutcomeUnknown = errors.New("spannerfast: the outcome of the commit is unknown: it may or may not have been applied")

// CommitOutcomeUnknownError is the error of a Commit whose outcome is
// unknown. Its gRPC code (status.Code) is Cause's; Unwrap returns Cause.
type CommitOutcomeUnknownError struct {
	// Cause is the failure after which the commit may have been applied.
	Cause error
	// Retry is what a later attempt answered, if one was made and failed
	// (for example ABORTED): it says nothing about the first attempt.
	Retry error
}

func (e *CommitOutcomeUnknownError) Error() string {
	if e.Retry != nil {
		return fmt.Sprintf("%v: %v (a retry then answered: %v)", ErrCommitOutcomeUnknown, e.Cause, e.Retry)
	}
	return fmt.Sprintf("%v: %v", ErrCommitOutcomeUnknown, e.Cause)
}

// Is matches ErrCommitOutcomeUnknown.
func (e *CommitOutcomeUnknownError) Is(target error) bool { return target == ErrCommitOutcomeUnknown }

// Unwrap returns the failure that left the outcome open.
func (e *CommitOutcomeUnknownError) Unwrap() error { return e.Cause }

// GRPCStatus carries Cause's code, never ABORTED from a retry, so that no
// retry-on-abort loop (here or the application's) runs the work again.
func (e *CommitOutcomeUnknownError) GRPCStatus() *status.Status {
	return status.New(status.Code(e.Cause), e.Error())
}

// commitRetryable reports whether a failed Commit may be sent again: the
// codes the official client's Commit retries on.
func commitRetryable(err error) bool {
	switch status.Code(err) {
	case codes.Unavailable, codes.ResourceExhausted:
		return true
	}
	return false
}

// commitMaybeApplied reports whether a Commit that failed with err may
// nevertheless have been applied: the call broke off rather than being
// answered by a server that refused it.
func commitMaybeApplied(err error) bool {
	var rs *transport.RetryStoppedError
	if errors.As(err, &rs) {
		return true
	}
	switch status.Code(err) {
	case codes.Unknown, codes.Internal, codes.Unavailable, codes.DeadlineExceeded, codes.Canceled, codes.DataLoss:
		return true
	}
	return false
}

// CallCommit sends a Commit, retrying it on UNAVAILABLE and
// RESOURCE_EXHAUSTED with the usual backoff (at most
// transport.MaxUnaryAttempts attempts), and reports an outcome it cannot know as a
// *CommitOutcomeUnknownError. Its retries are reported as r says
// (transport.Report: to r.Tel, method "Commit").
func CallCommit(ctx context.Context, r transport.Report, call func(context.Context) (*spannerpb.CommitResponse, error)) (*spannerpb.CommitResponse, error) {
	if err := ctx.Err(); err != nil {
		// Nothing is sent: the outcome is known.
		return nil, status.FromContextError(err).Err()
	}
	r.Method = "Commit"
	var (
		bo        = transport.Backoff{Report: r}
		uncertain error // the first failure after which it may have committed
	)
	actx := ctx // attempts after the first retry the same request
	for attempt := 1; ; attempt++ {
		resp, err := call(actx)
		if err == nil {
			return resp, nil
		}
		if uncertain == nil && commitMaybeApplied(err) {
			uncertain = err
		}
		if !commitRetryable(err) || attempt >= transport.MaxUnaryAttempts {
			return nil, commitFailure(uncertain, err)
		}
		if perr := pauseCommit(ctx, &bo, err); perr != nil {
			return nil, commitFailure(uncertain, perr)
		}
		actx = transport.RetryContext(ctx, err)
	}
}

// pauseCommit waits before the next attempt after err, as Backoff.Pause
// does, for the codes commitRetryable accepts (RESOURCE_EXHAUSTED without
// a retry delay included).
func pauseCommit(ctx context.Context, bo *transport.Backoff, err error) error {
	return bo.Wait(ctx, transport.Sleep, err, transport.ServerRetryDelay(status.Convert(err)))
}

// commitFailure is the error of a Commit that failed with last, after an
// earlier attempt failed with uncertain (nil: every attempt was refused).
func commitFailure(uncertain, last error) error {
	switch {
	case uncertain == nil:
		return last
	case uncertain == last:
		return &CommitOutcomeUnknownError{Cause: uncertain}
	default:
		return &CommitOutcomeUnknownError{Cause: uncertain, Retry: last}
	}
}

// OutcomeUnknown reports whether a commit or rollback failed in a way that
// leaves open what the server did: the call broke off rather than being
// refused, or the commit's outcome is unknown (*CommitOutcomeUnknownError).
// A connection that saw one cannot vouch for its state.
func OutcomeUnknown(err error) bool {
	if errors.Is(err, ErrCommitOutcomeUnknown) {
		return true
	}
	switch status.Code(err) {
	case codes.Unknown, codes.Unavailable, codes.DeadlineExceeded, codes.Canceled, codes.Internal:
		return true
	}
	return false
}
