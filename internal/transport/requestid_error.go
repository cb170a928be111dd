package transport

import (
	"context"
	"errors"
	"strconv"

	"cloud.google.com/go/spanner"
	"google.golang.org/grpc/status"
)

// RequestIDError is a failure of an RPC with the request id
// (x-goog-spanner-request-id) the failed attempt carried: the id Google
// support needs to find it. It changes nothing else: Unwrap returns the
// failure, GRPCStatus its status, so status.Code, errors.Is and errors.As
// see the failure as before. errors.As also gives the official client's
// *spanner.Error for it, with RequestID set, as go-sql-spanner's errors
// are.
type RequestIDError struct {
	ID  string // the attempt's x-goog-spanner-request-id
	Err error  // the failure

	request, attempt uint32 // for RetryContext; 0 for a caller's own id
}

var (
	_ error                                    = (*RequestIDError)(nil)
	_ interface{ GRPCStatus() *status.Status } = (*RequestIDError)(nil)
)

// Error is the failure's message with the id, in the official client's
// words.
func (e *RequestIDError) Error() string {
	return e.Err.Error() + ", requestID = " + strconv.Quote(e.ID)
}

// Unwrap returns the failure.
func (e *RequestIDError) Unwrap() error { return e.Err }

// GRPCStatus is the failure's status (its code, message and details).
func (e *RequestIDError) GRPCStatus() *status.Status { return status.Convert(e.Err) }

// As gives the official client's *spanner.Error for e: the failure as
// spanner.ToSpannerError converts it, with RequestID set (a copy when the
// failure already holds one).
func (e *RequestIDError) As(target any) bool {
	p, ok := target.(**spanner.Error)
	if !ok {
		return false
	}
	var se *spanner.Error
	if !errors.As(spanner.ToSpannerError(e.Err), &se) {
		return false
	}
	c := *se
	c.RequestID = e.ID
	*p = &c
	return true
}

// RequestIDOf returns the request id err carries ("" if none): the id of
// the RPC attempt whose failure err is or wraps.
func RequestIDOf(err error) string {
	if e := requestIDErrorOf(err); e != nil {
		return e.ID
	}
	return ""
}

func requestIDErrorOf(err error) *RequestIDError {
	if err == nil {
		return nil
	}
	var e *RequestIDError
	if errors.As(err, &e) {
		return e
	}
	return nil
}

// withRequestID gives err the id of the attempt that failed with it,
// unless it carries one already. Only errors with a gRPC status get one:
// others (a canceled context the caller made, a decoding failure) are not
// a server's answer to that request, and a status would change what
// status.FromError reports for them.
func withRequestID(err error, id string, request, attempt uint32) error {
	if err == nil || id == "" {
		return err
	}
	if _, ok := status.FromError(err); !ok {
		return err
	}
	if requestIDErrorOf(err) != nil {
		return err
	}
	return &RequestIDError{ID: id, Err: err, request: request, attempt: attempt}
}

// WithLastRequestID gives err, a failure of a call made with ctx, the id
// of the call's last attempt when ctx tracks its attempts (a streaming
// query's context, see StreamContext) and err carries none yet.
func WithLastRequestID(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	id, request, attempt := lastRequestID(ctx)
	return withRequestID(err, id, request, attempt)
}
