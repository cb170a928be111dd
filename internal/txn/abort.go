package txn

import (
	"context"
	"errors"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/spannerfast/spannerfast/internal/telemetry"
	"github.com/spannerfast/spannerfast/internal/transport"
)

// ErrAbortedDueToConcurrentModification is the error of a transaction whose
// replay after an abort saw different data (status code ABORTED). Run the
// whole transaction again, for example with RunTransaction.
var ErrAbortedDueToConcurrentModification = status.Error(codes.Aborted,
	"spannerfast: transaction was aborted and its replay saw different data (concurrent modification); run the transaction again")

// MaxAbortReplays bounds how often one transaction is replayed, and how
// often conn retries whole work that was aborted (the caller's context
// bounds both too).
const MaxAbortReplays = 50

// IsAborted reports an abort that may be answered by running the work again:
// never a commit whose outcome is unknown.
func IsAborted(err error) bool {
	return err != nil && status.Code(err) == codes.Aborted && !errors.Is(err, ErrCommitOutcomeUnknown)
}

// RetryAborted runs attempt until it does not fail with ABORTED, waiting
// Spanner's retry delay (or a backoff) in between, as long as ctx lasts and
// at most maxRetries times more (negative: no limit). Work that returned
// nothing to the caller yet (autocommit DML, Apply, partitioned DML, a
// RunTransaction function) is retried whole this way; an open transaction
// is replayed instead. Each abort retried is reported to tel (an "abort"
// event, action "retry"), and one given up on with action "return".
func RetryAborted[T any](ctx context.Context, tel *telemetry.Telemetry, maxRetries int, attempt func() (T, error)) (T, error) {
	return retryAborted(ctx, tel, nil, maxRetries, attempt)
}

// abortDelay is the wait an ABORTED error asks for (its RetryInfo), 0 if
// none.
func abortDelay(err error) time.Duration { return transport.ServerRetryDelay(status.Convert(err)) }

// report is how a unary call of the transaction's retries are reported:
// RPC method, to the connector's telemetry.
func (t *Txn) report(method string) transport.Report {
	return transport.Report{Tel: t.host.Telemetry(), Method: method}
}
