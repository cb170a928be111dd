package conn

import (
	"context"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
)

// Request options that are not tags or priorities (those are built by
// Conn.requestOptions and txn.requestOptions): directed reads and the
// statement_timeout bound.

// directedRead returns the directed_read property as DirectedReadOptions,
// nil when unset. dsn validated the JSON when it was set, so an error here
// means a value that changed meaning; it is reported, never ignored.
func (c *Conn) directedRead() (*spannerpb.DirectedReadOptions, error) {
	if c.props().DirectedRead == "" {
		return nil, nil
	}
	o := new(spannerpb.DirectedReadOptions)
	if err := protojson.Unmarshal([]byte(c.props().DirectedRead), o); err != nil {
		return nil, status.Errorf(codes.InvalidArgument, "spannerfast: directed_read: %v", err)
	}
	return o, nil
}

// setDirectedRead adds directed_read to a read-only request. Read-write
// work never carries it: Spanner accepts directed reads on read-only work
// only, and go-sql-spanner leaves them off read-write queries and DML
// rather than failing them, so a connection with directed_read set can
// still write.
func (c *Conn) setDirectedRead(req *spannerpb.ExecuteSqlRequest, readOnly bool) error {
	if c.props().DirectedRead == "" || !readOnly {
		return nil
	}
	o, err := c.directedRead()
	req.DirectedReadOptions = o
	return err
}

// statementContext bounds a statement that completes before it returns
// (DML, a commit) by statement_timeout and by the open transaction's
// transaction_timeout (txnprops.go). Streaming queries are bounded by the
// stream itself (Conn.stream), as their rows outlive the call.
func (c *Conn) statementContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if d, ok := c.statementDeadline(); ok {
		return context.WithDeadline(ctx, d)
	}
	return ctx, func() {}
}
