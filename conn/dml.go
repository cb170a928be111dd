package conn

import (
	"context"
	"database/sql/driver"
	"errors"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/spannerfast/spannerfast/dsn"
	"github.com/spannerfast/spannerfast/internal/transport"
	txnengine "github.com/spannerfast/spannerfast/internal/txn"
	"github.com/spannerfast/spannerfast/rows"
)

// DML outside a transaction (autocommit). With autocommit_dml_mode
// TRANSACTIONAL (the default) each statement runs in a read-write
// transaction of its own: ExecuteSql begins it inline, Commit ends it, and
// an abort runs both again (nothing was returned to the caller yet, so
// there is nothing to compare). With PARTITIONED_NON_ATOMIC it runs as
// partitioned DML.

// execAutocommit runs one DML statement or batch outside a transaction.
func (c *Conn) execAutocommit(ctx context.Context, s *txnengine.DML, keyword string) (driver.Result, error) {
	if err := c.enterReadWrite(ctx); err != nil {
		return nil, err
	}
	defer c.leaveReadWrite()
	if c.props().AutocommitDMLMode == dsn.AutocommitPartitionedNonAtomic && s.Req != nil {
		return c.execPartitioned(ctx, s.Req)
	}
	session, err := c.session(ctx)
	if err != nil {
		return nil, err
	}
	t := c.newReadWrite(session, spannerpb.TransactionOptions_ISOLATION_LEVEL_UNSPECIFIED, false)
	t.Options.LastStatement = true
	if s.Req != nil {
		s.Req.RequestOptions = t.Tagged(s.Req.RequestOptions)
	}
	res, resp, err := txnengine.RunAutocommit(ctx, &t.Txn, func() (driver.Result, error) {
		counts, rs, err := t.RunDML(ctx, s)
		if err != nil {
			return nil, err
		}
		// Check the result before committing: a THEN RETURN that
		// ExecContext cannot report must not be applied.
		return dmlResult(counts, rs, keyword)
	})
	c.noteCommit(resp)
	c.noteCommitOutcome(err)
	return res, err
}

// noteCommitOutcome marks the connection for discarding after work that
// ended in a commit whose outcome is unknown (autocommit DML, Apply); any
// other failure of that work leaves the connection as it was.
func (c *Conn) noteCommitOutcome(err error) {
	if errors.Is(err, ErrCommitOutcomeUnknown) {
		c.stateUnknown = true
	}
}

// noteCommit keeps what SHOW VARIABLE commit_timestamp and commit_response
// report.
func (c *Conn) noteCommit(resp *spannerpb.CommitResponse) {
	if resp == nil {
		return
	}
	c.state.NoteCommit(resp)
}

// execPartitioned runs partitioned DML: BeginTransaction with
// partitioned_dml, then the statement as a streaming query whose stats
// carry a lower bound of the rows changed. Spanner may abort it; it is then
// run again in a new partitioned transaction (partitioned DML must be
// idempotent for this reason). It is one PartitionedUpdate span.
func (c *Conn) execPartitioned(ctx context.Context, tmpl *spannerpb.ExecuteSqlRequest) (driver.Result, error) {
	session, err := c.session(ctx)
	if err != nil {
		return nil, err
	}
	opts := &spannerpb.TransactionOptions{
		Mode:                        &spannerpb.TransactionOptions_PartitionedDml_{PartitionedDml: &spannerpb.TransactionOptions_PartitionedDml{}},
		ExcludeTxnFromChangeStreams: c.props().ExcludeTxnFromChangeStreams,
	}
	count, err := txnengine.RunPartitioned(ctx, c.client.Telemetry(), tmpl.GetSql(), tmpl.GetRequestOptions(), func(ctx context.Context) (int64, error) {
		return c.partitionedOnce(ctx, session, opts, tmpl)
	})
	if err != nil {
		return nil, err
	}
	return &Result{rowsAffected: count}, nil
}

func (c *Conn) partitionedOnce(ctx context.Context, session string, opts *spannerpb.TransactionOptions, tmpl *spannerpb.ExecuteSqlRequest) (int64, error) {
	begin := &spannerpb.BeginTransactionRequest{Session: session, Options: opts, RequestOptions: tmpl.GetRequestOptions()}
	tx, err := transport.CallUnary(c.client.SessionContext(ctx, session, true), c.report("BeginTransaction"), func(ctx context.Context) (*spannerpb.Transaction, error) {
		return c.client.Spanner().BeginTransaction(ctx, begin)
	})
	if err != nil {
		return 0, err
	}
	req := &spannerpb.ExecuteSqlRequest{
		Session:        session,
		Transaction:    &spannerpb.TransactionSelector{Selector: &spannerpb.TransactionSelector_Id{Id: tx.GetId()}},
		Sql:            tmpl.GetSql(),
		Params:         tmpl.GetParams(),
		ParamTypes:     tmpl.GetParamTypes(),
		QueryOptions:   tmpl.GetQueryOptions(),
		RequestOptions: tmpl.GetRequestOptions(),
		Seqno:          1,
	}
	r, err := c.stream(ctx, req, true, c.rowsOptions(QueryOptions{}))
	if err != nil {
		return 0, err
	}
	defer r.Close()
	if err := rows.Drain(r); err != nil {
		return 0, err
	}
	stats := new(spannerpb.ResultSetStats)
	if err := proto.Unmarshal(r.Stats(), stats); err != nil {
		return 0, err
	}
	if stats.GetRowCount() == nil {
		return 0, errNoRowCount
	}
	return stats.GetRowCountLowerBound() + stats.GetRowCountExact(), nil
}

// errNoRowCount: a partitioned DML result must report how many rows it
// changed.
var errNoRowCount = status.Error(codes.Internal, "spannerfast: partitioned DML result has no row count")

// queryAutocommitDML runs DML with THEN RETURN through QueryContext outside
// a transaction: in a read-write transaction of its own, reading every
// returned row before the commit (so the rows handed out are the committed
// ones). An abort runs both again whole, comparing nothing
// (txnengine.RunAutocommit), as go-sql-spanner does.
func (c *Conn) queryAutocommitDML(ctx context.Context, req *spannerpb.ExecuteSqlRequest, opts QueryOptions) (driver.Rows, error) {
	if err := c.enterReadWrite(ctx); err != nil {
		return nil, err
	}
	defer c.leaveReadWrite()
	session, err := c.session(ctx)
	if err != nil {
		return nil, err
	}
	safe := false
	opts.RawDecode = &safe // buffered values must own their memory
	ro := c.rowsOptions(opts)
	ro.Errors = nil // the rows are read here: their error is the statement's
	t := c.newReadWrite(session, spannerpb.TransactionOptions_ISOLATION_LEVEL_UNSPECIFIED, false)
	t.Options.LastStatement = true
	req.RequestOptions = t.Tagged(req.RequestOptions)
	buf, resp, err := txnengine.RunAutocommit(ctx, &t.Txn, func() (driver.Rows, error) {
		r, err := t.QueryOnce(ctx, req, ro)
		if err != nil {
			return nil, err
		}
		return rows.Buffer(r)
	})
	c.noteCommit(resp)
	c.noteCommitOutcome(err)
	return buf, err
}
