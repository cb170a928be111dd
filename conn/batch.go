package conn

import (
	"context"
	"database/sql/driver"

	"cloud.google.com/go/spanner"
	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/spannerfast/spannerfast/internal/params"
	"github.com/spannerfast/spannerfast/internal/sqlparse"
	txnengine "github.com/spannerfast/spannerfast/internal/txn"
)

// DML and DDL batches, as go-sql-spanner has them: START BATCH DML / DDL
// (or StartBatchDML / StartBatchDDL through sql.Conn.Raw) makes the
// connection buffer the statements of that kind; RUN BATCH sends them in
// one request (ExecuteBatchDml, UpdateDatabaseDdl); ABORT BATCH drops them.
// The SQL statements and the methods share the code below.
//
// A DML batch started in a read-write transaction belongs to it: it runs in
// the transaction and is dropped when the transaction ends. Outside a
// transaction it runs in a read-write transaction of its own that commits
// if every statement succeeds. DDL batches only exist outside
// transactions.

// SpannerResult is the result of a DML batch: its RowsAffected is the sum
// of the update counts, BatchRowsAffected has one per statement; and of DDL
// run in ddl_execution_mode ASYNC or ASYNC_WAIT: OperationID names its
// long-running operation. go-sql-spanner's interface of the same name.
type SpannerResult interface {
	driver.Result
	BatchRowsAffected() ([]int64, error)
	OperationID() (string, error)
}

var _ SpannerResult = (*Result)(nil)

type batchKind int

const (
	batchDDL batchKind = iota
	batchDML
)

// batch is the buffered statements of the connection's active batch.
type batch struct {
	kind batchKind
	tx   *txn   // the transaction a DML batch belongs to; nil outside one
	tag  string // statement_tag when the batch started: it tags the batch
	dml  []*spannerpb.ExecuteBatchDmlRequest_Statement
	ddl  []string
	// ddlFirst is ddl[0] parsed: whether the batch creates or drops a
	// database (runParsedDDL).
	ddlFirst statement
	// auto marks the batch of auto_batch_dml (autobatch.go); autoCounts
	// are the update counts ExecContext reported for its statements.
	auto       bool
	autoCounts []int64
}

// activeBatch returns the connection's batch, forgetting one whose
// transaction has ended (committed or rolled back with the batch unrun).
func (c *Conn) activeBatch() *batch {
	if b := c.batch; b != nil && b.tx != nil && b.tx != c.tx {
		c.batch = nil
	}
	return c.batch
}

// inBatch reports whether a DDL or DML batch is active (BeginTx refuses to
// start a transaction then).
func (c *Conn) inBatch() bool { return c.activeBatch() != nil }

// errBatchActive is BeginTx's error while a batch is active.
var errBatchActive = status.Error(codes.FailedPrecondition,
	"spannerfast: the connection has an active batch: run it (RUN BATCH) or abort it (ABORT BATCH) before starting a transaction")

// errReadOnlyBatch: a read-only transaction cannot run DML, so it cannot
// have a DML batch.
var errReadOnlyBatch = status.Error(codes.FailedPrecondition,
	"spannerfast: a read-only transaction cannot write, so it cannot have a DML batch")

// InDDLBatch reports whether a DDL batch is active.
func (c *Conn) InDDLBatch() bool {
	b := c.activeBatch()
	return b != nil && b.kind == batchDDL
}

// InDMLBatch reports whether a DML batch is active.
func (c *Conn) InDMLBatch() bool {
	b := c.activeBatch()
	return b != nil && b.kind == batchDML
}

// GetBatchedStatements returns a copy of the buffered statements of the
// active batch, empty without one. Parameters come back as
// spanner.GenericColumnValue, the form they will be sent in.
func (c *Conn) GetBatchedStatements() []spanner.Statement {
	b := c.activeBatch()
	if b == nil {
		return []spanner.Statement{}
	}
	out := make([]spanner.Statement, 0, len(b.dml)+len(b.ddl))
	for _, sql := range b.ddl {
		out = append(out, spanner.Statement{SQL: sql, Params: map[string]any{}})
	}
	for _, s := range b.dml {
		st := spanner.Statement{SQL: s.GetSql(), Params: make(map[string]any, len(s.GetParams().GetFields()))}
		for name, v := range s.GetParams().GetFields() {
			st.Params[name] = spanner.GenericColumnValue{Type: s.GetParamTypes()[name], Value: v}
		}
		out = append(out, st)
	}
	return out
}

// StartBatchDML starts a DML batch (START BATCH DML).
func (c *Conn) StartBatchDML() error { return c.pgError(c.startBatchDML()) }

// StartBatchDDL starts a DDL batch (START BATCH DDL).
func (c *Conn) StartBatchDDL() error { return c.pgError(c.startBatchDDL()) }

// RunBatch sends the active batch (RUN BATCH).
func (c *Conn) RunBatch(ctx context.Context) error {
	_, err := c.runBatch(ctx)
	return c.pgError(err)
}

// RunDmlBatch sends the active DML batch and returns its update counts.
// Outside a transaction a DDL batch is run too, and then reported as not a
// DML batch (FailedPrecondition), as go-sql-spanner does.
func (c *Conn) RunDmlBatch(ctx context.Context) (SpannerResult, error) {
	res, err := c.runBatch(ctx)
	if err != nil {
		return nil, c.pgError(err)
	}
	r, ok := res.(*Result)
	if !ok || r.operationID != "" {
		return nil, c.pgError(status.Error(codes.FailedPrecondition, "spannerfast: RunDmlBatch ran a DDL batch, not a DML batch"))
	}
	return r, nil
}

// AbortBatch drops the active batch (ABORT BATCH); without one it does
// nothing.
func (c *Conn) AbortBatch() error {
	c.abortBatch()
	return nil
}

func (c *Conn) startBatchDML() error {
	if c.tx != nil {
		if c.tx.ReadOnly() {
			return errReadOnlyBatch
		}
		if c.activeBatch() != nil {
			return status.Error(codes.FailedPrecondition, "spannerfast: the transaction already has an active batch")
		}
	} else if c.activeBatch() != nil {
		return errAlreadyBatch
	}
	// Like go-sql-spanner, the batch takes statement_tag as it starts.
	c.batch = &batch{kind: batchDML, tx: c.tx, tag: c.takeStatementTag(), dml: make([]*spannerpb.ExecuteBatchDmlRequest_Statement, 0, 16)}
	return nil
}

var errAlreadyBatch = status.Error(codes.FailedPrecondition, "spannerfast: the connection already has an active batch")

func (c *Conn) startBatchDDL() error {
	if c.activeBatch() != nil {
		return errAlreadyBatch
	}
	if c.tx != nil {
		return status.Error(codes.FailedPrecondition,
			"spannerfast: DDL batches cannot run in a transaction (DDL is not transactional); end the transaction first")
	}
	c.batch = &batch{kind: batchDDL}
	return nil
}

var (
	errNoTxBatch   = status.Error(codes.FailedPrecondition, "spannerfast: the transaction has no active batch")
	errNoConnBatch = status.Error(codes.FailedPrecondition, "spannerfast: the connection has no active batch")
	bufferedResult = &Result{} // every buffered statement's (no method changes a Result)
)

// runBatch sends the active batch and ends it, whether it succeeds or not.
func (c *Conn) runBatch(ctx context.Context) (driver.Result, error) {
	if c.tx != nil && c.tx.ReadOnly() {
		return nil, errReadOnlyBatch
	}
	b := c.activeBatch()
	if b == nil {
		if c.tx != nil {
			return nil, errNoTxBatch
		}
		return nil, errNoConnBatch
	}
	c.batch = nil
	if b.kind == batchDDL {
		if len(b.ddl) == 0 {
			return driver.ResultNoRows, nil
		}
		return c.runParsedDDL(ctx, b.ddlFirst, b.ddl)
	}
	return c.execDMLBatch(ctx, b)
}

// execDMLBatch sends a DML batch as one ExecuteBatchDml: in its
// transaction, or in a transaction of its own. A failing statement gives a
// *BatchError with the counts of the statements before it. An empty batch
// sends nothing.
func (c *Conn) execDMLBatch(ctx context.Context, b *batch) (driver.Result, error) {
	if len(b.dml) == 0 {
		return &Result{batchCounts: []int64{}}, nil
	}
	s := &txnengine.DML{Batch: b.dml, Tag: b.tag}
	if c.tx != nil {
		return c.txExec(ctx, c.tx, s, "BATCH")
	}
	return c.execAutocommit(ctx, s, "BATCH")
}

func (c *Conn) abortBatch() {
	if c.tx != nil && c.tx.ReadOnly() {
		return
	}
	c.batch = nil
}

// bufferDML adds a DML statement to the active DML batch, binding its parameters now (a bad
// argument fails here, not at RUN BATCH). Nothing is sent: no rows affected, as go-sql-spanner's.
func (c *Conn) bufferDML(b *batch, st statement, args []driver.NamedValue) (driver.Result, error) {
	sql, params, types, err := params.Bind(st.sql, st.names, args, c.props().SendTypedStrings)
	if err != nil {
		return nil, err
	}
	b.dml = append(b.dml, &spannerpb.ExecuteBatchDmlRequest_Statement{Sql: sql, Params: params, ParamTypes: types})
	return bufferedResult, nil
}

// execBatchStatement runs START BATCH, RUN BATCH or ABORT BATCH.
func (c *Conn) execBatchStatement(ctx context.Context, st statement) (driver.Result, error) {
	kind, err := batchStatementKind(st)
	if err != nil {
		return nil, err
	}
	switch st.kind {
	case kindBatchStart:
		if kind == batchDDL {
			err = c.startBatchDDL()
		} else {
			err = c.startBatchDML()
		}
	case kindBatchRun:
		return c.runBatch(ctx)
	default:
		c.abortBatch()
	}
	if err != nil {
		return nil, err
	}
	return driver.ResultNoRows, nil
}

// batchStatementKind is what START BATCH starts (batchDDL for RUN and ABORT
// BATCH), or why the statement is malformed.
func batchStatementKind(st statement) (batchKind, error) {
	if st.invalid != nil {
		return 0, st.invalid
	}
	if st.client.Batch == sqlparse.BatchDML {
		return batchDML, nil
	}
	return batchDDL, nil
}
