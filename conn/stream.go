package conn

import (
	"bytes"
	"context"
	"time"

	"cloud.google.com/go/spanner/apiv1/spannerpb"

	"github.com/spannerfast/spannerfast/internal/stream"
	"github.com/spannerfast/spannerfast/internal/telemetry"
	"github.com/spannerfast/spannerfast/internal/transport"
	txnengine "github.com/spannerfast/spannerfast/internal/txn"
	"github.com/spannerfast/spannerfast/rows"
)

// queryRows is a streaming query's Rows and stream in one allocation, with
// what the stream engine (internal/stream) takes from the connection: the
// call's metadata context, the retry policy, the inline begin it follows,
// and the request when the query builds it in place (queryAutocommit).
type queryRows struct {
	rows   rows.Rows
	stream stream.Query
	md     transport.MDContext // the caller's context with the session's metadata
	retry  streamRetry
	begin  inlineBegin
	req    spannerpb.ExecuteSqlRequest
}

// streamRetry is a query stream's retry policy (stream.Backoff):
// internal/transport's transient failures and backoff, each resumption
// reported to the connector's telemetry.
type streamRetry struct {
	b     transport.Backoff
	sleep transport.SleepFunc // nil: transport.Sleep; tests record the waits
	tel   *telemetry.Telemetry
}

var _ stream.Backoff = (*streamRetry)(nil)

func (r *streamRetry) Transient(err error) bool {
	retry, _ := transport.RetryDelay(err)
	return retry
}

func (r *streamRetry) Pause(ctx context.Context, err error, resumeToken []byte) error {
	sleep := r.sleep
	if sleep == nil {
		sleep = transport.Sleep
	}
	r.b.Report = transport.Report{Tel: r.tel, Method: "ExecuteStreamingSql", Event: telemetry.EventResume, Token: resumeToken}
	return r.b.Pause(ctx, sleep, err)
}

func (r *streamRetry) Final(ctx context.Context, err error) error { return r.b.Final(ctx, err) }

func (r *streamRetry) Reset() { r.b.Reset() }

// inlineBegin follows the transaction a streaming request begins inline
// (stream.Reselector). Once a response named it (in the first message's
// metadata, which may have arrived in an attempt that failed before any
// row was handed out), a request sent again selects it by id, so every row
// of the query, and every later statement and the commit, belong to one
// transaction; streamBeginning reports it.
type inlineBegin struct {
	id []byte // nil until a response named the transaction
	ts time.Time
}

var _ stream.Reselector = (*inlineBegin)(nil)

func (b *inlineBegin) Selector() *spannerpb.TransactionSelector {
	if b.id == nil {
		return nil
	}
	return &spannerpb.TransactionSelector{Selector: &spannerpb.TransactionSelector_Id{Id: b.id}}
}

func (b *inlineBegin) Began(id []byte, readTS time.Time) {
	b.id = bytes.Clone(id)
	b.ts = readTS
}

// streamBeginning is stream, bounded by d, for a request that may begin a
// transaction inline (a query in a transaction). It also returns the new
// transaction's id and read timestamp, which the first rows carry unless
// the attempt that named them broke off before any row was handed out and
// the query restarted by id (inlineBegin).
func (c *Conn) streamBeginning(ctx context.Context, req *spannerpb.ExecuteSqlRequest, leader bool, ro rows.Options, d txnengine.Deadline) (*rows.Rows, []byte, time.Time, error) {
	qr := new(queryRows)
	r, err := c.streamUntil(ctx, qr, req, leader, ro, d.At, d.Set)
	if err != nil {
		return nil, nil, time.Time{}, err
	}
	id, ts := r.TransactionID(), r.ReadTimestamp()
	if len(id) == 0 && qr.begin.id != nil {
		id, ts = qr.begin.id, qr.begin.ts
	}
	return r, id, ts, nil
}
