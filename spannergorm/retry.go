package spannergorm

import (
	"context"
	"database/sql"

	"gorm.io/gorm"

	"github.com/spannerfast/spannerfast/conn"
	"github.com/spannerfast/spannerfast/driver"
	"github.com/spannerfast/spannerfast/internal/telemetry"
	"github.com/spannerfast/spannerfast/internal/txn"
)

// RunTransaction runs fc in a read-write transaction and runs it again, in
// a new transaction, each time Spanner aborts it (gRPC code ABORTED),
// after the delay the server asked for in RetryInfo (or a backoff with
// jitter when it asked for none). The driver's own
// replay of aborted transactions is off for these transactions: the whole
// function runs again, so it must have no effects outside tx. Any other
// error, or the end of ctx, ends it. Each abort it retries is reported as
// driver.RunTransaction reports it: an "abort" event (action "retry", with
// the attempt's number) on the span of ctx and a record of the connector's
// logger (docs/observability.md).
func RunTransaction(ctx context.Context, db *gorm.DB, fc func(tx *gorm.DB) error, opts ...*sql.TxOptions) error {
	txOpts := retryTxOptions(opts)
	var tel *telemetry.Telemetry
	asked := false
	telOf := func() *telemetry.Telemetry {
		if !asked {
			asked = true
			tel = connectorTelemetry(ctx, db)
		}
		return tel
	}
	return txn.RetryTransaction(ctx, telOf, func() error { return db.WithContext(ctx).Transaction(fc, txOpts) })
}

// connectorTelemetry is the telemetry of the connector db's connections
// come from, asked of one of them (GORM's transaction does not hand its
// connection out); nil when db is not on spannerfast or no connection can
// be had. It is asked after the first abort only, when the aborted
// transaction's connection is back in the pool.
func connectorTelemetry(ctx context.Context, db *gorm.DB) *telemetry.Telemetry {
	sqlDB, err := db.DB()
	if err != nil {
		return nil
	}
	c, err := sqlDB.Conn(ctx)
	if err != nil {
		return nil
	}
	defer c.Close()
	var tel *telemetry.Telemetry
	_ = c.Raw(func(dc any) error {
		if sc, ok := dc.(*conn.Conn); ok {
			tel = sc.Telemetry()
		}
		return nil
	})
	return tel
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
