package stream

import (
	"context"
	"io"

	"google.golang.org/grpc/status"
)

// Bound returns what ends a wait for the query's first response that
// direct bounds (go-sql-spanner's ExecOptions.DirectExecuteContext; nil:
// no bound but the query's own context). When direct ends during the wait,
// the call is cancelled; the returned function, given the wait's error and
// what the wait opened, then closes that and reports direct's end as a
// status error with its code (DeadlineExceeded, Canceled). Otherwise it
// returns the wait's error, and direct's end no longer touches the query.
func (q *Query) Bound(direct context.Context) func(error, io.Closer) error {
	if direct == nil {
		return unbounded
	}
	stop := context.AfterFunc(direct, q.Cancel)
	return func(err error, opened io.Closer) error {
		if stop() {
			return err
		}
		if err == nil {
			_ = opened.Close()
		}
		return status.FromContextError(direct.Err()).Err()
	}
}

func unbounded(err error, _ io.Closer) error { return err }
