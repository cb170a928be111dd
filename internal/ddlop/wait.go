package ddlop

import (
	"context"
	"time"

	"cloud.google.com/go/longrunning/autogen/longrunningpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Wait waits for op through await as ddl_execution_mode says: with noWait
// (ASYNC) not at all, with limited (ASYNC_WAIT) up to limit, after which op
// is returned still running and without an error; otherwise (SYNC) until it
// is done. An operation already done reports its outcome in every mode.
func Wait(ctx context.Context, op *longrunningpb.Operation, noWait, limited bool, limit time.Duration,
	await func(context.Context, *longrunningpb.Operation) (*longrunningpb.Operation, error)) (*longrunningpb.Operation, error) {
	switch {
	case noWait:
		if !op.GetDone() {
			return op, nil
		}
	case limited:
		wctx, cancel := context.WithTimeout(ctx, limit)
		defer cancel()
		last, err := await(wctx, op)
		// gRPC may report the deadline (DEADLINE_EXCEEDED) an instant
		// before wctx's own timer marks it done; the caller's deadline, if
		// it comes first, is the caller's error.
		waitEnded := wctx.Err() != nil || status.Code(err) == codes.DeadlineExceeded
		end, _ := wctx.Deadline()
		callerFirst := false
		if d, ok := ctx.Deadline(); ok && !d.After(end) {
			callerFirst = true
		}
		if err != nil && !last.GetDone() && waitEnded && !callerFirst && ctx.Err() == nil {
			return last, nil // the wait is over; the operation goes on
		}
		return last, err
	}
	return await(ctx, op)
}
