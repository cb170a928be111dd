package conn

import (
	"context"
	"database/sql/driver"
	"fmt"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Automatic DML batching (auto_batch_dml), as go-sql-spanner does it. In a
// read-write transaction, DML run through ExecContext is not sent: it goes
// into a DML batch of the transaction (the batch of START BATCH DML, marked
// automatic) and ExecContext reports auto_batch_dml_update_count rows
// affected. The batch is sent as one ExecuteBatchDml when the transaction
// needs its effects:
//
//   - before a query (or DML through QueryContext) in the transaction;
//   - before DML with THEN RETURN through ExecContext, which then runs on
//     its own so that LastInsertId is real (go-sql-spanner buffers it too);
//   - before the commit: a failure there rolls the transaction back and
//     Commit returns the error (nothing is committed);
//   - RUN BATCH sends it and returns its counts; ABORT BATCH and a rollback
//     drop it unsent.
//
// With auto_batch_dml_update_count_verification (the default) the counts
// Spanner returns are compared with those ExecContext reported; a
// difference is a FailedPrecondition error (at the commit: the transaction
// is rolled back). SET, SHOW and mutations do not send the batch.

// autoBatchDML buffers st in the transaction's automatic DML batch, starting
// one when auto_batch_dml is on. handled is false when st runs as usual.
func (c *Conn) autoBatchDML(ctx context.Context, st statement, tag string, args []driver.NamedValue) (res driver.Result, handled bool, err error) {
	t := c.tx
	if t == nil || t.ReadOnly() || st.kind != kindDML {
		return nil, false, nil
	}
	b := c.activeBatch()
	if b != nil && !b.auto {
		return nil, false, nil // START BATCH DML's batch buffers it
	}
	if st.thenReturn {
		return nil, false, c.flushAutoBatch(ctx)
	}
	if b == nil {
		if !c.props().AutoBatchDML {
			return nil, false, nil
		}
		// The first statement's tag tags the batch.
		b = &batch{kind: batchDML, tx: t, tag: tag, auto: true}
		c.batch = b
	}
	if _, err := c.bufferDML(b, st, args); err != nil {
		return nil, true, err
	}
	n := c.props().AutoBatchDMLUpdateCount
	b.autoCounts = append(b.autoCounts, n)
	return &Result{rowsAffected: n}, true, nil
}

// flushAutoBatch sends the transaction's automatic DML batch, if any, and
// verifies its update counts when auto_batch_dml_update_count_verification
// is on.
func (c *Conn) flushAutoBatch(ctx context.Context) error {
	b := c.activeBatch()
	if b == nil || !b.auto {
		return nil
	}
	c.batch = nil
	ctx, cancel := c.statementContext(ctx)
	defer cancel()
	res, err := c.execDMLBatch(ctx, b)
	if err != nil {
		return fmt.Errorf("spannerfast: the automatic DML batch (auto_batch_dml) failed: %w", err)
	}
	if !c.props().AutoBatchDMLUpdateCountVerification {
		return nil
	}
	got := res.(*Result).batchCounts
	if len(got) != len(b.autoCounts) {
		return status.Errorf(codes.FailedPrecondition,
			"spannerfast: the automatic DML batch returned %d update counts for %d statements", len(got), len(b.autoCounts))
	}
	for i, want := range b.autoCounts {
		if got[i] != want {
			return status.Errorf(codes.FailedPrecondition,
				"spannerfast: statement %d of the automatic DML batch (%q) changed %d rows where ExecContext reported %d (auto_batch_dml_update_count); set auto_batch_dml_update_count_verification = false to accept that",
				i+1, b.dml[i].GetSql(), got[i], want)
		}
	}
	return nil
}

// flushAutoBatchToCommit sends t's automatic DML batch before its commit;
// when that fails, t is rolled back and the error is Commit's.
func (c *Conn) flushAutoBatchToCommit(ctx context.Context, t *txn) error {
	if b := c.activeBatch(); b == nil || !b.auto {
		return nil
	}
	if t.ctx != nil {
		ctx = t.ctx
	}
	err := c.flushAutoBatch(ctx)
	if err != nil {
		_ = c.rollback(ctx)
	}
	return err
}
