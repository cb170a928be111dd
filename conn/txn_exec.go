package conn

import (
	"context"
	"database/sql/driver"
	"fmt"
	"strconv"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/spannerfast/spannerfast/internal/transport"
	txnpkg "github.com/spannerfast/spannerfast/internal/txn"
	"github.com/spannerfast/spannerfast/rows"
)

// Statements inside a transaction: queries stream through the same decoder
// as autocommit reads; DML goes through ExecuteSql (one statement) or
// ExecuteBatchDml (a batch). Both begin the transaction inline when they
// are its first statement (txn.run).

// txnQuery is a query to run in a transaction: the request without its
// selector and sequence number, and how to decode its rows.
type txnQuery struct {
	req *spannerpb.ExecuteSqlRequest
	ro  rows.Options
}

// attemptRequest returns a copy of a statement's request for one attempt
// in the transaction (the template is kept for replays).
func (t *txn) attemptRequest(tmpl *spannerpb.ExecuteSqlRequest, sel *spannerpb.TransactionSelector) *spannerpb.ExecuteSqlRequest {
	req := &spannerpb.ExecuteSqlRequest{
		Session:        t.session,
		Transaction:    sel,
		Sql:            tmpl.GetSql(),
		Params:         tmpl.GetParams(),
		ParamTypes:     tmpl.GetParamTypes(),
		QueryMode:      tmpl.GetQueryMode(),
		QueryOptions:   tmpl.GetQueryOptions(),
		RequestOptions: tmpl.GetRequestOptions(),
		LastStatement:  t.lastStmt,
		// Read-only transactions only: Conn.setDirectedRead refuses it
		// for read-write ones.
		DirectedReadOptions: tmpl.GetDirectedReadOptions(),
	}
	if !t.readOnly {
		req.Seqno = t.nextSeqno()
	}
	return req
}

// openQuery starts a query in the transaction. In a read-write transaction
// its rows report precommit tokens and, when aborts are replayed, are
// checksummed.
func (t *txn) openQuery(ctx context.Context, q *txnQuery) (*rows.Rows, *rows.Checksum, error) {
	var (
		r   *rows.Rows
		sum *rows.Checksum
	)
	err := t.run(ctx, true, func(sel *spannerpb.TransactionSelector) ([]byte, error) {
		if r != nil {
			r.Close() // began inline without an id: run again with the explicit one
			r = nil
		}
		ro := q.ro
		if !t.readOnly {
			ro.Precommit = t.notePrecommitBytes
			if t.retryAborts {
				// Only a transaction that may be replayed needs to
				// remember what it read.
				sum = rows.NewChecksum()
				ro.Checksum = sum
			}
		}
		opened, id, readTS, err := t.c.streamBeginning(ctx, t.attemptRequest(q.req, sel), t.leader(), ro)
		if err != nil {
			return nil, err
		}
		r = opened
		t.begunWith(nil, readTS)
		return id, nil
	})
	if err != nil {
		if r != nil {
			r.Close()
		}
		return nil, nil, err
	}
	return r, sum, nil
}

// txQuery runs a query in the connection's transaction.
func (c *Conn) txQuery(ctx context.Context, t *txn, req *spannerpb.ExecuteSqlRequest, opts QueryOptions) (driver.Rows, error) {
	q := &txnQuery{req: req, ro: c.rowsOptions(opts)}
	if t.readOnly {
		if t.failed != nil {
			return nil, t.failed
		}
		r, _, err := t.openQuery(ctx, q)
		if err != nil {
			return nil, err
		}
		c.state.NoteReadTimestamp(t.readTS)
		return r, nil
	}
	var tr *txnRows
	err := t.withAbortReplay(ctx, func() error {
		r, sum, err := t.openQuery(ctx, q)
		if err == nil {
			tr = &txnRows{inner: r, sum: sum, t: t, ctx: ctx, q: q}
		}
		return err
	})
	if err != nil {
		if !txnpkg.IsAborted(err) {
			// It failed at the start; a replay must fail the same way.
			t.record(&txnRows{t: t, q: q, sum: rows.NewChecksum(), end: err, closed: true})
		}
		return nil, err
	}
	t.record(tr)
	return tr, nil
}

// dmlStatement is one DML statement or a batch of them.
type dmlStatement struct {
	req   *spannerpb.ExecuteSqlRequest                  // one statement
	batch []*spannerpb.ExecuteBatchDmlRequest_Statement // or a batch
	tag   string                                        // the batch's statement tag
}

func (s *dmlStatement) describe() string {
	if s.req != nil {
		return s.req.GetSql()
	}
	return fmt.Sprintf("batch of %d DML statements", len(s.batch))
}

// runDML sends a DML statement or batch in the transaction and returns the
// update counts (one per statement) and, for one statement, its result
// (THEN RETURN rows).
func (t *txn) runDML(ctx context.Context, s *dmlStatement) ([]int64, *spannerpb.ResultSet, error) {
	if s.req != nil {
		var rs *spannerpb.ResultSet
		err := t.run(ctx, true, func(sel *spannerpb.TransactionSelector) ([]byte, error) {
			req := t.attemptRequest(s.req, sel)
			out, err := transport.CallUnary(t.c.client.SessionContext(ctx, t.session, true), func(ctx context.Context) (*spannerpb.ResultSet, error) {
				return t.c.client.Spanner().ExecuteSql(ctx, req)
			})
			if err != nil {
				return nil, err
			}
			rs = out
			t.notePrecommit(out.GetPrecommitToken())
			return out.GetMetadata().GetTransaction().GetId(), nil
		})
		if err != nil {
			return nil, nil, err
		}
		return []int64{rs.GetStats().GetRowCountExact()}, rs, nil
	}
	var counts []int64
	var batchErr error
	// A batch whose first statement failed begins at once and runs again,
	// as the official client does for a batch.
	err := t.run(ctx, false, func(sel *spannerpb.TransactionSelector) ([]byte, error) {
		req := &spannerpb.ExecuteBatchDmlRequest{
			Session:        t.session,
			Transaction:    sel,
			Statements:     s.batch,
			Seqno:          t.nextSeqno(),
			RequestOptions: t.requestOptions(s.tag),
			LastStatements: t.lastStmt,
		}
		resp, err := transport.CallUnary(t.c.client.SessionContext(ctx, t.session, true), func(ctx context.Context) (*spannerpb.ExecuteBatchDmlResponse, error) {
			return t.c.client.Spanner().ExecuteBatchDml(ctx, req)
		})
		if err != nil {
			return nil, err
		}
		t.notePrecommit(resp.GetPrecommitToken())
		counts = counts[:0]
		for _, rs := range resp.GetResultSets() {
			counts = append(counts, rs.GetStats().GetRowCountExact())
		}
		var id []byte
		if rss := resp.GetResultSets(); len(rss) > 0 {
			id = rss[0].GetMetadata().GetTransaction().GetId()
		}
		batchErr = nil
		if st := resp.GetStatus(); st.GetCode() != int32(codes.OK) {
			batchErr = &BatchError{BatchUpdateCounts: append([]int64(nil), counts...), Err: status.ErrorProto(st)}
			if len(counts) == 0 {
				return id, batchErr // the first statement failed: it may not have begun
			}
		}
		return id, nil
	})
	if err != nil {
		return nil, nil, err
	}
	return counts, nil, batchErr
}

// txExec runs DML in the connection's transaction.
func (c *Conn) txExec(ctx context.Context, t *txn, s *dmlStatement, keyword string) (driver.Result, error) {
	if t.readOnly {
		return nil, status.Errorf(codes.FailedPrecondition,
			"spannerfast: %s in a read-only transaction: DML needs a read-write transaction; nothing was sent", keyword)
	}
	var (
		counts []int64
		rs     *spannerpb.ResultSet
	)
	err := t.withAbortReplay(ctx, func() (err error) {
		counts, rs, err = t.runDML(ctx, s)
		return err
	})
	if !txnpkg.IsAborted(err) {
		t.record(&dmlRecord{stmt: s, counts: counts, returned: rs.GetRows(), err: err})
	}
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
			"spannerfast: LastInsertId needs an INSERT statement with a THEN RETURN clause of one INT64 column")
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

// BatchError is the error of a batch in which a statement failed: the
// statements before it ran, and BatchUpdateCounts has their update counts (-1 for
// each DDL statement applied).
type BatchError struct {
	BatchUpdateCounts []int64
	Err               error
}

func (e *BatchError) Error() string {
	return fmt.Sprintf("spannerfast: batch statement %d failed (the %d before it ran): %v", len(e.BatchUpdateCounts)+1, len(e.BatchUpdateCounts), e.Err)
}

func (e *BatchError) Unwrap() error { return e.Err }

// GRPCStatus is the failing statement's status.
func (e *BatchError) GRPCStatus() *status.Status {
	st := status.Convert(e.Err)
	return status.New(st.Code(), e.Error())
}

// errDMLReturnsRows is go-sql-spanner's rule for DML with THEN RETURN run
// through ExecContext.
var errDMLReturnsRows = status.Error(codes.FailedPrecondition,
	"spannerfast: ExecContext runs DML with THEN RETURN only for an INSERT returning one row of one INT64 column; use QueryContext for the others")

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
