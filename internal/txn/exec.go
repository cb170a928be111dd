package txn

import (
	"context"
	"database/sql/driver"
	"fmt"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/spannerfast/spannerfast/internal/transport"
	"github.com/spannerfast/spannerfast/rows"
)

// Statements inside a transaction: queries stream through the same decoder
// as autocommit reads (Host.OpenStream); DML goes through ExecuteSql (one
// statement) or ExecuteBatchDml (a batch). Both begin the transaction
// inline when they are its first statement (Txn.run).

// query is a query to run in a transaction: the request without its
// selector and sequence number, how to decode its rows, and the context
// and deadline it was opened with (a replay reopens its open rows with
// both, see Rows.replay).
type query struct {
	req      *spannerpb.ExecuteSqlRequest
	ro       rows.Options
	ctx      context.Context
	deadline Deadline
}

// attemptRequest returns a copy of a statement's request for one attempt
// in the transaction (the template is kept for replays).
func (t *Txn) attemptRequest(tmpl *spannerpb.ExecuteSqlRequest, sel *spannerpb.TransactionSelector) *spannerpb.ExecuteSqlRequest {
	req := &spannerpb.ExecuteSqlRequest{
		Session:        t.session,
		Transaction:    sel,
		Sql:            tmpl.GetSql(),
		Params:         tmpl.GetParams(),
		ParamTypes:     tmpl.GetParamTypes(),
		QueryMode:      tmpl.GetQueryMode(),
		QueryOptions:   tmpl.GetQueryOptions(),
		RequestOptions: tmpl.GetRequestOptions(),
		LastStatement:  t.Options.LastStatement,
		// Read-only transactions only: the connection refuses directed
		// reads for read-write ones.
		DirectedReadOptions: tmpl.GetDirectedReadOptions(),
	}
	if !t.readOnly {
		req.Seqno = t.nextSeqno()
	}
	return req
}

// openQuery starts a query in the transaction, its stream bounded by d. In
// a read-write transaction its rows report precommit tokens and, when
// aborts are replayed, are checksummed.
func (t *Txn) openQuery(ctx context.Context, q *query, d Deadline) (*rows.Rows, *rows.Checksum, error) {
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
			if t.Options.RetryAborts {
				// Only a transaction that may be replayed needs to
				// remember what it read.
				sum = rows.NewChecksum()
				ro.Checksum = sum
			}
		}
		opened, id, readTS, err := t.host.OpenStream(t.traced(ctx), t.attemptRequest(q.req, sel), t.leader(), ro, d)
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

// Query runs a query in the transaction: req without selector and
// sequence number, its rows decoded with ro. The rows of a read-only
// transaction are a *rows.Rows; those of a read-write one are *Rows, which
// carry on after a replay.
func (t *Txn) Query(ctx context.Context, req *spannerpb.ExecuteSqlRequest, ro rows.Options) (driver.Rows, error) {
	q := &query{req: req, ro: ro, ctx: ctx, deadline: t.host.StreamDeadline()}
	if t.readOnly {
		if t.failed != nil {
			return nil, t.failed
		}
		r, _, err := t.openQuery(ctx, q, q.deadline)
		if err != nil {
			return nil, err
		}
		return r, nil
	}
	var tr *Rows
	// The error that ends the rows goes to ro.Errors once the replays are
	// done with it: the streams' own rows report to no one.
	hook := ro.Errors
	q.ro.Errors = nil
	err := t.withAbortReplay(ctx, func() error {
		r, sum, err := t.openQuery(ctx, q, q.deadline)
		if err == nil {
			tr = &Rows{inner: r, sum: sum, t: t, q: q, errs: hook}
		}
		return err
	})
	if err != nil {
		if !IsAborted(err) {
			// It failed at the start; a replay must fail the same way.
			t.record(&Rows{t: t, q: q, sum: rows.NewChecksum(), end: err, closed: true})
		}
		return nil, err
	}
	t.record(tr)
	return tr, nil
}

// QueryOnce runs a query in the transaction once, neither replaying nor
// logging it: work whose rows nobody has seen yet (autocommit DML with THEN
// RETURN, whose rows are read whole before its commit) runs again whole
// after an abort instead, in a new transaction, with nothing to compare.
func (t *Txn) QueryOnce(ctx context.Context, req *spannerpb.ExecuteSqlRequest, ro rows.Options) (*rows.Rows, error) {
	q := &query{req: req, ro: ro, ctx: ctx, deadline: t.host.StreamDeadline()}
	r, _, err := t.openQuery(ctx, q, q.deadline)
	return r, err
}

// DML is one DML statement or a batch of them.
type DML struct {
	Req   *spannerpb.ExecuteSqlRequest                  // one statement
	Batch []*spannerpb.ExecuteBatchDmlRequest_Statement // or a batch
	Tag   string                                        // the batch's statement tag
}

func (s *DML) describe() string {
	if s.Req != nil {
		return s.Req.GetSql()
	}
	return fmt.Sprintf("batch of %d DML statements", len(s.Batch))
}

// Exec runs DML in a read-write transaction, replaying the transaction
// when Spanner aborts it (Options.RetryAborts), and returns the update
// counts (one per statement) and, for one statement, its result (THEN
// RETURN rows).
func (t *Txn) Exec(ctx context.Context, s *DML) ([]int64, *spannerpb.ResultSet, error) {
	var (
		counts []int64
		rs     *spannerpb.ResultSet
	)
	err := t.withAbortReplay(ctx, func() (err error) {
		counts, rs, err = t.RunDML(ctx, s)
		return err
	})
	if !IsAborted(err) {
		t.record(&dmlRecord{stmt: s, counts: counts, returned: rs.GetRows(), err: err})
	}
	return counts, rs, err
}

// RunDML sends a DML statement or batch in the transaction once, neither
// replaying nor logging it (autocommit DML retries its whole transaction
// instead), and returns the update counts (one per statement) and, for one
// statement, its result (THEN RETURN rows). Each call is an operation of
// its own (an Update or BatchUpdate span, a child of the transaction's).
func (t *Txn) RunDML(ctx context.Context, s *DML) ([]int64, *spannerpb.ResultSet, error) {
	ctx, op := t.startDML(ctx, s)
	counts, rs, err := t.runDML(ctx, s)
	endDML(&op, counts, rs, err)
	return counts, rs, err
}

func (t *Txn) runDML(ctx context.Context, s *DML) ([]int64, *spannerpb.ResultSet, error) {
	if s.Req != nil {
		var rs *spannerpb.ResultSet
		err := t.run(ctx, true, func(sel *spannerpb.TransactionSelector) ([]byte, error) {
			req := t.attemptRequest(s.Req, sel)
			out, err := transport.CallUnary(t.host.SessionContext(ctx, t.session, true), t.report("ExecuteSql"), func(ctx context.Context) (*spannerpb.ResultSet, error) {
				return t.host.Spanner().ExecuteSql(ctx, req)
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
			Statements:     s.Batch,
			Seqno:          t.nextSeqno(),
			RequestOptions: t.RequestOptions(s.Tag),
			LastStatements: t.Options.LastStatement,
		}
		resp, err := transport.CallUnary(t.host.SessionContext(ctx, t.session, true), t.report("ExecuteBatchDml"), func(ctx context.Context) (*spannerpb.ExecuteBatchDmlResponse, error) {
			return t.host.Spanner().ExecuteBatchDml(ctx, req)
		})
		if err != nil {
			return nil, err
		}
		t.notePrecommit(resp.GetPrecommitToken())
		counts = make([]int64, 0, len(resp.GetResultSets())) // one allocation
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
