package transport

import "context"

// MaxUnaryAttempts bounds the attempts of one unary call. Streams retry for
// as long as their context allows (they make progress); a unary call that
// keeps failing with a transient error is given up after this many tries,
// so a call without a deadline (Tx.Commit has no context) cannot spin.
const MaxUnaryAttempts = 8

// CallUnary runs a unary Spanner RPC, retrying its transient failures
// (UNAVAILABLE, the retryable INTERNAL errors, RESOURCE_EXHAUSTED with a
// retry delay: the rules of RetryDelay, which streams follow too) with the
// same Backoff, as the official client's generated stubs do for these
// methods. Retrying is safe for every call it wraps: DML carries a sequence
// number that Spanner applies once (a request that began its transaction
// inline and got no answer begins it again: the lost transaction never
// commits), and a rollback names its transaction. Commit is not among them:
// it has rules of its own (its caller retries with Backoff.Wait). Each
// retry is reported as r says (Report: its Method and Log).
//
// The attempts after the first are attempts of one request: their request
// ids (x-goog-spanner-request-id) differ in the attempt number only.
func CallUnary[T any](ctx context.Context, r Report, call func(context.Context) (T, error)) (T, error) {
	bo := Backoff{Report: r}
	actx := ctx
	for attempt := 1; ; attempt++ {
		out, err := call(actx)
		if err == nil || attempt >= MaxUnaryAttempts {
			return out, err
		}
		if perr := bo.Pause(ctx, Sleep, err); perr != nil {
			return out, perr
		}
		actx = RetryContext(ctx, err)
	}
}
