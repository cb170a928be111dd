package txn

import (
	"context"
	"time"

	"cloud.google.com/go/spanner/apiv1/spannerpb"

	"github.com/spannerfast/spannerfast/internal/telemetry"
)

// A transaction's span runs from the connection's begin (Trace) to its
// commit or rollback (EndTrace); its statements, commit and rollback are
// its children, whatever context database/sql gives them (traced).

// Trace starts the transaction's span, a child of the span in ctx (the
// context the application began the transaction with), and returns ctx
// with it.
func (t *Txn) Trace(ctx context.Context) context.Context {
	ctx, t.op = t.host.Telemetry().Start(ctx, t.kind(), "")
	t.op.SetTags("", t.Options.Tag)
	return ctx
}

// Continue makes old's span this transaction's (a transaction replaced by
// one of the other mode before it began: SET TRANSACTION) and returns ctx,
// old's begin context.
func (t *Txn) Continue(old *Txn, ctx context.Context) context.Context {
	t.op, old.op = old.op, telemetry.Op{}
	t.op.SetKind(t.kind())
	t.op.SetTags("", t.Options.Tag)
	return ctx
}

// EndTrace ends the transaction's span: end says how it ended ("commit",
// "rollback"), *err what came of it.
func (t *Txn) EndTrace(end string, err *error) {
	if t.op.Recording() {
		t.op.SetAttributes(telemetry.KeyTransactionEnd.String(end))
		if !t.readTS.IsZero() {
			t.op.SetAttributes(telemetry.KeyReadTimestamp.String(t.readTS.UTC().Format(time.RFC3339Nano)))
		}
	}
	t.op.End(*err)
}

func (t *Txn) kind() telemetry.Kind {
	if t.readOnly {
		return telemetry.ReadOnlyTransaction
	}
	return telemetry.ReadWriteTransaction
}

// traced returns ctx with the transaction's span, so that what runs in the
// transaction is its child.
func (t *Txn) traced(ctx context.Context) context.Context { return t.op.Context(ctx) }

// startDML starts the operation of s in the transaction.
func (t *Txn) startDML(ctx context.Context, s *DML) (context.Context, telemetry.Op) {
	tel := t.host.Telemetry()
	if s.Req != nil {
		ctx, op := tel.Start(t.traced(ctx), telemetry.Update, s.Req.GetSql())
		op.SetTags(s.Req.GetRequestOptions().GetRequestTag(), t.Options.Tag)
		return ctx, op
	}
	ctx, op := tel.Start(t.traced(ctx), telemetry.BatchUpdate, "")
	op.SetBatch(len(s.Batch), func(i int) string { return s.Batch[i].GetSql() })
	op.SetTags(s.Tag, t.Options.Tag)
	return ctx, op
}

// endDML ends a DML operation with the rows it changed (and returned).
func endDML(op *telemetry.Op, counts []int64, rs *spannerpb.ResultSet, err error) {
	if op.Recording() {
		var n int64
		for _, c := range counts {
			n += c
		}
		op.SetAttributes(telemetry.KeyRowsAffected.Int64(n))
		if rows := rs.GetRows(); len(rows) > 0 {
			op.AddRows(int64(len(rows)))
		}
	}
	op.End(err)
}

// startApply starts the operation of mutations written outside a
// transaction (CommitWrites).
func (t *Txn) startApply(ctx context.Context) (context.Context, telemetry.Op) {
	ctx, op := t.host.Telemetry().Start(ctx, telemetry.Apply, "")
	if op.Recording() {
		op.SetTags("", t.Options.Tag)
		op.SetAttributes(telemetry.KeyMutationCount.Int(len(t.mutations)))
	}
	return ctx, op
}

// startCommit starts the commit's operation for req.
func (t *Txn) startCommit(ctx context.Context, req *spannerpb.CommitRequest) (context.Context, telemetry.Op) {
	ctx, op := t.host.Telemetry().Start(t.traced(ctx), telemetry.Commit, "")
	if op.Recording() {
		op.SetTags("", t.Options.Tag)
		op.SetAttributes(telemetry.KeyMutationCount.Int(len(req.GetMutations())))
	}
	return ctx, op
}

// endCommit ends the commit's operation with its timestamp.
func endCommit(op *telemetry.Op, resp *spannerpb.CommitResponse, err error) {
	if op.Recording() && resp.GetCommitTimestamp() != nil {
		op.SetAttributes(telemetry.KeyCommitTimestamp.String(resp.GetCommitTimestamp().AsTime().UTC().Format(time.RFC3339Nano)))
	}
	op.End(err)
}
