package txn

import (
	"context"
	"time"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/protobuf/types/known/emptypb"

	"github.com/spannerfast/spannerfast/internal/telemetry"
	"github.com/spannerfast/spannerfast/internal/transport"
)

// RollbackTimeout bounds a rollback that no caller's context bounds: one
// sent after a failure (whose context has often ended: that may be the
// failure), the rollback of Tx.Rollback (which has no context) and the
// one of a connection that closes with its transaction open. A network
// that holds the call back then costs at most this long, and what is lost
// is nothing: Spanner ends a transaction that is never committed itself.
const RollbackTimeout = 5 * time.Second

// Rollback ends a begun read-write transaction on the server. Spanner
// rolls back on its own what is never committed, so an error here loses
// nothing; it is returned for the caller to report.
func (t *Txn) Rollback(ctx context.Context) error {
	if send := t.rollbackCall(ctx); send != nil {
		return send()
	}
	return nil
}

// RollbackDetached is Rollback on a context that keeps ctx's values (its
// span) but not its cancellation or deadline, bounded by RollbackTimeout.
func (t *Txn) RollbackDetached(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), RollbackTimeout)
	defer cancel()
	return t.Rollback(ctx)
}

// RollbackAfterFailure ends a transaction whose statement or commit
// failed, as the official client does; its outcome changes nothing for the
// caller. It is sent on a context of its own (RollbackDetached), and the
// caller waits for it no longer than ctx allows: a commit that ran out of
// time returns when its context ends, not when the network gives the
// rollback back (the rollback goes on alone, within RollbackTimeout).
func (t *Txn) RollbackAfterFailure(ctx context.Context) {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), RollbackTimeout)
	send := t.rollbackCall(rctx)
	if send == nil {
		cancel()
		return
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer cancel()
		_ = send()
	}()
	select {
	case <-done:
	case <-ctx.Done():
	}
}

// rollbackCall prepares the Rollback of the transaction on ctx: nil when
// there is nothing to roll back (read-only, or never begun). The call it
// returns reads nothing of t, so it may run while t is reused or ended.
func (t *Txn) rollbackCall(ctx context.Context) func() error {
	if t.readOnly || t.id == nil {
		return nil
	}
	req := &spannerpb.RollbackRequest{Session: t.session, TransactionId: t.id}
	h, r := t.host, t.report("Rollback")
	ctx, op := h.Telemetry().Start(t.traced(ctx), telemetry.Rollback, "")
	ctx = h.SessionContext(ctx, t.session, true)
	return func() error {
		_, err := transport.CallUnary(ctx, r, func(ctx context.Context) (*emptypb.Empty, error) {
			return h.Spanner().Rollback(ctx, req)
		})
		op.End(err)
		return err
	}
}
