package spannergorm

import (
	"context"
	"database/sql"
	"time"

	"cloud.google.com/go/spanner"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"gorm.io/gorm"

	"github.com/spannerfast/spannerfast/conn"
	"github.com/spannerfast/spannerfast/driver"
)

// abortBackoff is the wait before a retry when Spanner's error carries no
// RetryInfo delay.
const abortBackoff = 10 * time.Millisecond

// RunTransaction runs fc in a read-write transaction and runs it again, in
// a new transaction, each time Spanner aborts it (gRPC code ABORTED),
// after the delay the server asked for in RetryInfo. The driver's own
// replay of aborted transactions is off for these transactions: the whole
// function runs again, so it must have no effects outside tx. Any other
// error, or the end of ctx, ends it.
func RunTransaction(ctx context.Context, db *gorm.DB, fc func(tx *gorm.DB) error, opts ...*sql.TxOptions) error {
	txOpts := retryTxOptions(opts)
	for {
		err := db.WithContext(ctx).Transaction(fc, txOpts)
		if status.Code(err) != codes.Aborted {
			return err
		}
		delay, ok := spanner.ExtractRetryDelay(err)
		if !ok {
			delay = abortBackoff
		}
		if err := sleep(ctx, delay); err != nil {
			return err
		}
	}
}

// retryTxOptions returns opts (or the default options) with the
// driver's abort replay turned off.
func retryTxOptions(opts []*sql.TxOptions) *sql.TxOptions {
	o := sql.TxOptions{}
	if len(opts) > 0 && opts[0] != nil {
		o = *opts[0]
	}
	if o.Isolation&sql.IsolationLevel(conn.IsolationDisableRetryAborts) == 0 {
		o.Isolation = driver.WithDisableRetryAborts(o.Isolation)
	}
	return &o
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
