package conn

import (
	"context"
	"database/sql/driver"
	"time"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/spannerfast/spannerfast/dsn"
	"github.com/spannerfast/spannerfast/internal/stmtopts"
	txnengine "github.com/spannerfast/spannerfast/internal/txn"
	"github.com/spannerfast/spannerfast/rows"
)

// txn is a connection's open transaction: the transaction engine's state
// (internal/txn: begin, statements, commit, replay) and what only the
// connection needs of it.
type txn struct {
	txnengine.Txn
	ctx context.Context // BeginTx's context: the commit and rollback use it

	// deadlineFixed: its first statement fixed deadline, the
	// transaction_timeout bound (zero: none); see txnDeadline.
	deadlineFixed bool
	deadline      time.Time
}

// newReadWrite prepares a read-write transaction with the connection's
// settings; isolation overrides isolation_level when not unspecified.
func (c *Conn) newReadWrite(session string, isolation spannerpb.TransactionOptions_IsolationLevel, retryAborts bool) *txn {
	if isolation == spannerpb.TransactionOptions_ISOLATION_LEVEL_UNSPECIFIED {
		// dsn validated isolation_level: it maps without error. On a
		// PostgreSQL database default_transaction_isolation stands in for
		// a DEFAULT one.
		isolation, _ = stmtopts.IsolationOf(c.props().TxnIsolation())
	}
	t := &txn{Txn: txnengine.NewReadWrite(c.txnHost(), session, txnengine.Options{
		Begin:          txnengine.ReadWriteBegin(c.props().ReadLockMode.Proto(), isolation, c.props().ExcludeTxnFromChangeStreams),
		Explicit:       c.props().BeginTransactionOption == dsn.BeginTransactionExplicit,
		Tag:            c.state.TakeTransactionTag(),
		CommitPriority: c.props().CommitPriority.Proto(),
		CommitDelay:    c.props().MaxCommitDelay,
		CommitStats:    c.props().ReturnCommitStats,
		RetryAborts:    retryAborts,
	})}
	return t
}

// newReadOnly prepares a multi-use read-only transaction at the
// connection's read_only_staleness. Spanner allows only strong, exact
// staleness and read timestamps for multi-use transactions.
func (c *Conn) newReadOnly(session string) (*txn, error) {
	st := c.props().ReadOnlyStaleness
	if st.Kind == dsn.StalenessMax || st.Kind == dsn.StalenessMinReadTimestamp {
		return nil, status.Errorf(codes.InvalidArgument,
			"spannerfast: read_only_staleness %s is for single queries only; a read-only transaction needs STRONG, EXACT_STALENESS or READ_TIMESTAMP", st)
	}
	ro := st.ReadOnly()
	ro.ReturnReadTimestamp = true
	return &txn{Txn: txnengine.NewReadOnly(c.txnHost(), session, txnengine.Options{
		Begin:    &spannerpb.TransactionOptions{Mode: &spannerpb.TransactionOptions_ReadOnly_{ReadOnly: ro}},
		Explicit: c.props().BeginTransactionOption == dsn.BeginTransactionExplicit,
	})}, nil
}

// txnHost is the connection as the transaction engine sees it.
type txnHost Conn

var _ txnengine.Host = (*txnHost)(nil)

// txnHost returns c as the transaction engine's host (no allocation: a
// pointer converted).
func (c *Conn) txnHost() txnengine.Host { return (*txnHost)(c) }

func (h *txnHost) SessionContext(ctx context.Context, session string, leader bool) context.Context {
	return h.client.SessionContext(ctx, session, leader)
}

func (h *txnHost) Spanner() spannerpb.SpannerClient { return h.client.Spanner() }

func (h *txnHost) StatementContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return (*Conn)(h).statementContext(ctx)
}

// RPCPriority is rpc_priority as it is now: SET changes it for the open
// transaction's next statements too.
func (h *txnHost) RPCPriority() spannerpb.RequestOptions_Priority {
	return (*Conn)(h).props().RPCPriority.Proto()
}

// StreamDeadline is statement_timeout from now, or the transaction's
// transaction_timeout deadline if earlier.
func (h *txnHost) StreamDeadline() txnengine.Deadline {
	d, ok := (*Conn)(h).statementDeadline()
	return txnengine.Deadline{At: d, Set: ok}
}

func (h *txnHost) OpenStream(ctx context.Context, req *spannerpb.ExecuteSqlRequest, leader bool, ro rows.Options, d txnengine.Deadline) (*rows.Rows, []byte, time.Time, error) {
	return (*Conn)(h).streamBeginning(ctx, req, leader, ro, d)
}

// Tx is the driver.Tx of a connection's transaction.
type Tx struct{ c *Conn }

var _ driver.Tx = Tx{}

// Commit commits a read-write transaction (replaying it first if Spanner
// aborted it and retry_aborts_internally is on) or ends a read-only one.
func (x Tx) Commit() error { return x.c.pgError(x.c.commit(context.Background())) }

// Rollback rolls the transaction back.
func (x Tx) Rollback() error { return x.c.pgError(x.c.rollback(context.Background())) }
