package stmtopts

import (
	"context"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/protobuf/proto"
)

// QueryMetadata is go-sql-spanner's ExecOptions.QueryMetadata: what the
// driver reports about the statement string QueryContext ran.
type QueryMetadata struct {
	// IsMulti reports a string of several statements.
	IsMulti bool
}

// NoteQuery fills in the caller's QueryMetadata, if it gave one, for a
// query string that is several statements (multi) or one.
func (q *QueryOptions) NoteQuery(multi bool) {
	if q.Metadata != nil {
		q.Metadata.IsMulti = multi
	}
}

// DirectExecuteContext is the context that bounds the wait for the running
// query's first response (nil: only the query's own); q may be nil.
func (q *QueryOptions) DirectExecuteContext() context.Context {
	if q == nil {
		return nil
	}
	return q.DirectContext
}

// WithClientContext returns ro with the running statement's ClientContext
// (a copy of ro when it adds one: request options may be shared); q may be
// nil. The official client sends a query's ClientContext in its
// RequestOptions, as here.
func (q *QueryOptions) WithClientContext(ro *spannerpb.RequestOptions) *spannerpb.RequestOptions {
	if q == nil || q.ClientContext == nil {
		return ro
	}
	out := &spannerpb.RequestOptions{}
	if ro != nil {
		out = proto.Clone(ro).(*spannerpb.RequestOptions)
	}
	out.ClientContext = q.ClientContext
	return out
}
