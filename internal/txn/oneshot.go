package txn

import (
	"context"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc/codes"

	"github.com/spannerfast/spannerfast/internal/telemetry"
	"github.com/spannerfast/spannerfast/internal/transport"
)

// Work run again whole after an abort, outside any transaction the
// application sees (partitioned DML, Apply at least once, the function of
// a RunTransaction): each is one operation of the connector's telemetry,
// whose span carries the "abort" events of the retries.

// RunPartitioned runs partitioned DML: once is one attempt (a partitioned
// transaction and the statement, returning the rows it changed, with the
// context it is given). It is run again whole when Spanner aborts it
// (RetryAborted). The whole is one PartitionedUpdate operation of tel, as
// the official client's span: text and tags are the statement's, and its
// streaming query is no Query operation of its own.
func RunPartitioned(ctx context.Context, tel *telemetry.Telemetry, text string, tags telemetry.Tags, once func(context.Context) (int64, error)) (count int64, err error) {
	ctx, op := tel.StartPartitionedUpdate(ctx, text, tags)
	defer func() {
		if err == nil && op.Recording() {
			op.SetAttributes(telemetry.KeyRowsAffected.Int64(count))
		}
		op.End(err)
	}()
	return RetryAborted(ctx, tel, MaxAbortReplays, func() (int64, error) { return once(ctx) })
}

// ApplyAtLeastOnce sends req, the Commit of a single-use read-write
// transaction, with commit (CallCommit's call, reported as r says), and
// sends it again whole when Spanner aborts it, so its mutations may be
// applied more than once. It is one Apply operation of tel, the parent of
// each attempt's Commit, as Apply in a transaction of its own
// (CommitWrites).
func ApplyAtLeastOnce(ctx context.Context, tel *telemetry.Telemetry, req *spannerpb.CommitRequest, r transport.Report, commit func(context.Context) (*spannerpb.CommitResponse, error)) (resp *spannerpb.CommitResponse, err error) {
	tag := req.GetRequestOptions().GetTransactionTag()
	ctx, op := tel.Start(ctx, telemetry.Apply, "")
	if op.Recording() {
		op.SetTags("", tag)
		op.SetAttributes(telemetry.KeyMutationCount.Int(len(req.GetMutations())))
	}
	defer op.EndErr(&err)
	return RetryAborted(ctx, tel, MaxAbortReplays, func() (*spannerpb.CommitResponse, error) {
		cctx, cop := tel.Start(ctx, telemetry.Commit, "")
		if cop.Recording() {
			cop.SetTags("", tag)
			cop.SetAttributes(telemetry.KeyMutationCount.Int(len(req.GetMutations())))
		}
		resp, err := CallCommit(cctx, r, commit)
		endCommit(&cop, resp, err)
		return resp, err
	})
}

// RunAutocommit runs one statement (run, in t) and commits t, a read-write
// transaction of its own (autocommit DML, with or without THEN RETURN).
// Nothing reaches the application before the commit, so an abort runs both
// again whole in a new transaction and nothing is compared (RetryAborted): a
// key from a sequence or an IDENTITY column differs on every run, and the
// outcome is that of the run that committed. On failure t is rolled back.
func RunAutocommit[T any](ctx context.Context, t *Txn, run func() (T, error)) (T, *spannerpb.CommitResponse, error) {
	var resp *spannerpb.CommitResponse
	out, err := RetryAborted(ctx, t.host.Telemetry(), MaxAbortReplays, func() (T, error) {
		var none T
		t.Restart()
		out, err := run()
		if err == nil {
			resp, err = t.CommitOnce(ctx)
		}
		if err != nil {
			return none, err
		}
		return out, nil
	})
	if err != nil {
		t.RollbackAfterFailure(ctx)
	}
	return out, resp, err
}

// RetryTransaction runs f, one attempt of an application's transaction
// function (driver.RunTransaction, spannergorm.RunTransaction), again,
// after the delay Spanner asked for (or a backoff with jitter), for as long
// as it fails with ABORTED and ctx lasts. f must be safe to run again: it
// is the unit of work Spanner aborted. When ctx ends while waiting, the
// error is a *RetryStoppedError (errors.Is matches both the context's
// error and the last abort). Each abort is reported (an
// "abort" event on ctx's span, action "retry", with its attempt number,
// and a record of the connector's logger) to the telemetry tel returns
// after the attempt: the connection the attempt ran on tells it, so nil
// until one did.
//
// The aborts are not counted again (spannerfast.transaction.aborts): the
// attempt's transaction counted each with action "return".
func RetryTransaction(ctx context.Context, tel func() *telemetry.Telemetry, f func() error) error {
	_, err := retryAborted(ctx, nil, tel, -1, func() (struct{}, error) { return struct{}{}, f() })
	return err
}

// retryAborted is RetryAborted reporting to tel, or when telOf is not nil
// to the telemetry it returns after each abort (describing the aborts
// only: RetryTransaction).
func retryAborted[T any](ctx context.Context, tel *telemetry.Telemetry, telOf func() *telemetry.Telemetry, maxRetries int, attempt func() (T, error)) (T, error) {
	bo := transport.Backoff{Report: transport.Report{Tel: tel, Event: telemetry.EventAbort, Action: telemetry.AbortRetry, Counted: telOf != nil}}
	for n := 0; ; n++ {
		out, err := attempt()
		if !IsAborted(err) {
			return out, err
		}
		if telOf != nil {
			bo.Report.Tel = telOf()
		}
		if n == maxRetries {
			// The last abort goes to the caller.
			if tel := bo.Report.Tel; tel.Reporting(ctx, telemetry.LevelAbort) {
				tel.Aborted(ctx, telemetry.Failure{Attempt: n + 1, Code: uint32(codes.Aborted), CodeName: codes.Aborted.String()}, telemetry.AbortReturn)
			}
			return out, err
		}
		if werr := bo.Wait(ctx, transport.Sleep, err, abortDelay(err)); werr != nil {
			return out, werr
		}
	}
}
