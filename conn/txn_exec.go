package conn

import (
	"context"
	"database/sql/driver"
	"strconv"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	txnengine "github.com/spannerfast/spannerfast/internal/txn"
)

// txQuery runs a query in the connection's transaction.
func (c *Conn) txQuery(ctx context.Context, t *txn, req *spannerpb.ExecuteSqlRequest, opts QueryOptions) (driver.Rows, error) {
	r, err := t.Query(ctx, req, c.rowsOptions(opts))
	if err == nil && t.ReadOnly() {
		c.state.NoteReadTimestamp(t.ReadTimestamp())
	}
	return r, err
}

// txExec runs DML in the connection's transaction.
func (c *Conn) txExec(ctx context.Context, t *txn, s *txnengine.DML, keyword string) (driver.Result, error) {
	if t.ReadOnly() {
		return nil, status.Errorf(codes.FailedPrecondition,
			"spannerfast: %s in a read-only transaction: DML needs a read-write transaction; nothing was sent", keyword)
	}
	counts, rs, err := t.Exec(ctx, s)
	if err != nil {
		return nil, err
	}
	return dmlResult(counts, rs, keyword)
}

// Result is what ExecContext returns for DML: the rows affected, the
// per-statement counts of a batch, and the INT64 a single-column INSERT ...
// THEN RETURN produced (LastInsertId), as go-sql-spanner's result does.
type Result struct {
	rowsAffected    int64
	batchCounts     []int64
	lastInsertID    int64
	hasLastInsertID bool
	operationID     string // DDL in ddl_execution_mode ASYNC / ASYNC_WAIT (ddl.go)
}

var _ driver.Result = (*Result)(nil)

// RowsAffected is the exact count (a lower bound for partitioned DML).
func (r *Result) RowsAffected() (int64, error) { return r.rowsAffected, nil }

// LastInsertId is the value of an INSERT ... THEN RETURN of one INT64
// column; Spanner has no other auto-generated ids.
func (r *Result) LastInsertId() (int64, error) {
	if !r.hasLastInsertID {
		return 0, status.Error(codes.FailedPrecondition,
			"spannerfast: LastInsertId needs an INSERT statement with a THEN RETURN (PostgreSQL: RETURNING) clause of one INT64 column")
	}
	return r.lastInsertID, nil
}

// BatchRowsAffected returns the update count of each statement of a DML
// batch (one entry for a single statement).
func (r *Result) BatchRowsAffected() ([]int64, error) {
	if r.batchCounts == nil {
		return []int64{r.rowsAffected}, nil
	}
	return r.batchCounts, nil
}

// errDMLReturnsRows is go-sql-spanner's rule for DML with THEN RETURN run
// through ExecContext.
var errDMLReturnsRows = status.Error(codes.FailedPrecondition,
	"spannerfast: ExecContext runs DML with THEN RETURN (PostgreSQL: RETURNING) only for an INSERT returning one row of one INT64 column; use QueryContext for the others")

// dmlResult builds the Result of one statement or a batch.
func dmlResult(counts []int64, rs *spannerpb.ResultSet, keyword string) (*Result, error) {
	res := &Result{}
	for _, n := range counts {
		res.rowsAffected += n
	}
	if rs == nil {
		res.batchCounts = counts
		return res, nil
	}
	fields := rs.GetMetadata().GetRowType().GetFields()
	if len(fields) == 0 {
		return res, nil
	}
	if keyword != "INSERT" || len(fields) != 1 || fields[0].GetType().GetCode() != spannerpb.TypeCode_INT64 || len(rs.GetRows()) > 1 {
		return nil, errDMLReturnsRows
	}
	if rs.GetStats().GetRowCount() == nil {
		// THEN RETURN returns one row per row written: a result without
		// a row count (go-sql-spanner's mock server answers ExecuteSql so;
		// it reads such DML as a stream, which carries one) still says it.
		res.rowsAffected = int64(len(rs.GetRows()))
	}
	if len(rs.GetRows()) == 1 {
		v := rs.GetRows()[0].GetValues()[0]
		n, err := strconv.ParseInt(v.GetStringValue(), 10, 64)
		if err != nil {
			return nil, status.Errorf(codes.Internal, "spannerfast: THEN RETURN column %s: %q is not an INT64", fields[0].GetName(), v.GetStringValue())
		}
		res.lastInsertID, res.hasLastInsertID = n, true
	}
	return res, nil
}
