package driver

import (
	"context"
	"database/sql"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/spannerfast/spannerfast/conn"
)

// DmlBatch is the batch ExecuteBatchDml hands to its function.
type DmlBatch interface {
	// ExecContext adds a DML statement to the batch; it is sent when the
	// function returns nil.
	ExecContext(ctx context.Context, dml string, args ...any) error
}

// ExecuteBatchDml runs f with a DML batch on a connection of db and sends
// the statements f added in one ExecuteBatchDml request, in the
// connection's transaction if f opened none (autocommit). When f returns
// an error the batch is dropped and nothing is sent. It is START BATCH DML
// / RUN BATCH (or ABORT BATCH) on one connection, which then goes back to
// db. A failing statement is a *BatchError with the counts of those before
// it.
func ExecuteBatchDml(ctx context.Context, db *sql.DB, f func(ctx context.Context, batch DmlBatch) error) (SpannerResult, error) {
	c, err := db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	return ExecuteBatchDmlOnConn(ctx, c, f)
}

// ExecuteBatchDmlOnConn is ExecuteBatchDml on c, inside c's transaction
// if it has one.
func ExecuteBatchDmlOnConn(ctx context.Context, c *sql.Conn, f func(ctx context.Context, batch DmlBatch) error) (SpannerResult, error) {
	if err := withConn(c, (*conn.Conn).StartBatchDML); err != nil {
		return nil, err
	}
	if err := f(ctx, &dmlBatch{c: c}); err != nil {
		_ = withConn(c, (*conn.Conn).AbortBatch)
		return nil, err
	}
	var res SpannerResult
	err := withConn(c, func(sc *conn.Conn) error {
		var err error
		if res, err = sc.RunDmlBatch(ctx); err != nil && sc.InDMLBatch() {
			_ = sc.AbortBatch()
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// dmlBatch adds statements to the batch of its connection.
type dmlBatch struct{ c *sql.Conn }

func (b *dmlBatch) ExecContext(ctx context.Context, dml string, args ...any) error {
	err := withConn(b.c, func(sc *conn.Conn) error {
		if !sc.InDMLBatch() {
			return status.Error(codes.FailedPrecondition, "spannerfast: this DML batch has ended")
		}
		return nil
	})
	if err != nil {
		return err
	}
	_, err = b.c.ExecContext(ctx, dml, args...)
	return err
}
