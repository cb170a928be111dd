package spannergorm

import (
	"context"
	"database/sql"

	"gorm.io/gorm"

	"github.com/spannerfast/spannerfast/conn"
	"github.com/spannerfast/spannerfast/driver"
)

// RunTransaction runs fc in a read-write transaction and runs it again, in
// a new transaction, each time Spanner aborts it (gRPC code ABORTED),
// after the delay the server asked for in RetryInfo (or a backoff with
// jitter when it asked for none). The driver's own
// replay of aborted transactions is off for these transactions: the whole
// function runs again, so it must have no effects outside tx. Any other
// error, or the end of ctx, ends it.
func RunTransaction(ctx context.Context, db *gorm.DB, fc func(tx *gorm.DB) error, opts ...*sql.TxOptions) error {
	txOpts := retryTxOptions(opts)
	return conn.RetryOnAbort(ctx, func() error { return db.WithContext(ctx).Transaction(fc, txOpts) })
}

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
