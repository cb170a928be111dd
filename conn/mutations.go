package conn

import (
	"context"
	"database/sql/driver"
	"time"

	"cloud.google.com/go/spanner"
	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/spannerfast/spannerfast/internal/mutationpb"
	"github.com/spannerfast/spannerfast/internal/params"
	"github.com/spannerfast/spannerfast/internal/stmtopts"
	txnengine "github.com/spannerfast/spannerfast/internal/txn"
)

// Mutations through the connection, with go-sql-spanner's method
// signatures (reached with sql.Conn.Raw):
//
//   - Apply writes mutations outside a transaction, in a read-write
//     transaction of its own, as the official client's Client.Apply does:
//     BeginTransaction with the mutation_key a multiplexed session needs,
//     then Commit with the mutations and the precommit token, all of it run
//     again when Spanner aborts it. With spanner.ApplyAtLeastOnce() it is a
//     single Commit of a single-use transaction instead (retried on abort,
//     so the mutations may be applied more than once).
//   - BufferWrite adds mutations to the open read-write transaction; they
//     go with its Commit, also after an abort replay.
//
// Mutations are converted when they are handed over (see
// internal/mutationpb), so a bad value fails there, naming the table and
// column, before anything is sent.
//
// Apply takes its transaction options from its ApplyOptions only (read by
// stmtopts.ReadApplyOptions), never from the connection's settings
// (isolation_level, transaction_tag, max_commit_delay, ...): go-sql-spanner
// hands Apply to the official client, which does not know them either. The connection's transaction_tag
// therefore stays for its next transaction.

// Messages of go-sql-spanner, so code that matches them keeps working.
const (
	msgApplyInTxn        = "Apply may not be called while the connection is in a transaction. Use BufferWrite to write mutations in a transaction."
	msgBufferWriteNoTxn  = "BufferWrite may not be called while the connection is not in a transaction. Use Apply to write mutations outside a transaction."
	msgReadOnlyWrite     = "read-only transactions cannot write"
	msgNoCommittedResult = "this connection has not executed a read/write transaction that committed successfully"
)

func failedPrecondition(msg string) error {
	return status.Error(codes.FailedPrecondition, "spannerfast: "+msg)
}

// apply writes ms atomically outside a transaction and returns the commit
// timestamp (in the local time zone, as the official client returns it).
// Inside a transaction it fails with FailedPrecondition: use BufferWrite.
// CommitTimestamp, CommitResponse and SHOW VARIABLE commit_timestamp report
// its commit afterwards.
func (c *Conn) apply(ctx context.Context, ms []*spanner.Mutation, opts ...spanner.ApplyOption) (time.Time, error) {
	if c.closed {
		return time.Time{}, driver.ErrBadConn
	}
	if c.tx != nil {
		return time.Time{}, failedPrecondition(msgApplyInTxn)
	}
	ao, err := stmtopts.ReadApplyOptions(opts)
	if err != nil {
		return time.Time{}, err
	}
	pbs, key, err := mutationpb.Convert(ms)
	if err == nil {
		err = params.CheckMutationsUTF8(pbs) // before anything is sent
	}
	if err != nil {
		return time.Time{}, err
	}
	if err := c.enterReadWrite(ctx); err != nil {
		return time.Time{}, err
	}
	defer c.leaveReadWrite()
	session, err := c.session(ctx)
	if err != nil {
		return time.Time{}, err
	}
	var resp *spannerpb.CommitResponse
	if ao.AtLeastOnce {
		resp, err = c.applyAtLeastOnce(ctx, session, ao, pbs)
	} else {
		resp, err = c.applyInTxn(ctx, session, ao, pbs, key)
	}
	if err != nil {
		c.noteCommitOutcome(err)
		return time.Time{}, err
	}
	c.noteCommit(resp)
	return resp.GetCommitTimestamp().AsTime().Local(), nil
}

// applyInTxn commits pbs in a read-write transaction of their own. The
// transaction begins with BeginTransaction carrying the mutation key
// (commitOnce does that when nothing began it), or without a key when
// there are no mutations, as the official client does. An abort runs both
// again in a new transaction.
func (c *Conn) applyInTxn(ctx context.Context, session string, ao stmtopts.ApplyOptions, pbs []*spannerpb.Mutation, key *spannerpb.Mutation) (*spannerpb.CommitResponse, error) {
	t := txnengine.NewReadWrite(c.txnHost(), session, ao.Txn())
	if err := t.Buffer(pbs, key); err != nil {
		return nil, err
	}
	resp, err := t.CommitWrites(ctx)
	if err != nil {
		t.RollbackAfterFailure(ctx)
	}
	return resp, err
}

// applyAtLeastOnce commits pbs in a single-use read-write transaction: one
// Commit, no BeginTransaction. It is retried when aborted, so the mutations
// may be applied more than once. Like the official client it asks for no
// commit statistics.
func (c *Conn) applyAtLeastOnce(ctx context.Context, session string, ao stmtopts.ApplyOptions, pbs []*spannerpb.Mutation) (*spannerpb.CommitResponse, error) {
	req := ao.SingleUseCommit(session, pbs)
	ctx = c.client.SessionContext(ctx, session, true)
	return txnengine.ApplyAtLeastOnce(ctx, c.client.Telemetry(), req, c.report("Commit"), func(ctx context.Context) (*spannerpb.CommitResponse, error) {
		return c.client.Spanner().Commit(ctx, req) // its rows encoded directly (wire.UnaryCodec)
	})
}

// bufferWrite adds ms to the open read-write transaction; they are sent
// with its Commit. Outside a transaction, or in a read-only one, it fails
// with FailedPrecondition. The mutations are converted now, so a value that
// cannot be sent fails here (InvalidArgument naming table and column) and
// nothing is buffered.
func (c *Conn) bufferWrite(ms []*spanner.Mutation) error {
	if c.closed {
		return driver.ErrBadConn
	}
	t := c.tx
	if t == nil {
		return failedPrecondition(msgBufferWriteNoTxn)
	}
	if t.ReadOnly() {
		return failedPrecondition(msgReadOnlyWrite)
	}
	pbs, key, err := mutationpb.Convert(ms)
	if err == nil {
		err = params.CheckMutationsUTF8(pbs)
	}
	if err != nil || len(pbs) == 0 {
		return err
	}
	return t.Buffer(pbs, key)
}

// CommitTimestamp returns the commit timestamp of the last read-write
// transaction (explicit, autocommit DML or Apply) committed on this
// connection, in the local time zone; FailedPrecondition if there is none.
func (c *Conn) CommitTimestamp() (time.Time, error) {
	ts, resp := c.state.LastCommit()
	if resp == nil {
		return time.Time{}, failedPrecondition(msgNoCommittedResult)
	}
	return ts.Local(), nil
}

// CommitResponse returns the commit timestamp and, when they were asked for
// (return_commit_stats, spanner.ApplyCommitOptions), the commit statistics
// of the last read-write transaction committed on this connection;
// FailedPrecondition if there is none.
func (c *Conn) CommitResponse() (*spanner.CommitResponse, error) {
	ts, resp := c.state.LastCommit()
	if resp == nil {
		return nil, failedPrecondition(msgNoCommittedResult)
	}
	return &spanner.CommitResponse{
		CommitTs:    ts.Local(),
		CommitStats: resp.GetCommitStats(),
	}, nil
}
