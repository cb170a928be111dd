package driver

import "github.com/spannerfast/spannerfast/internal/transport"

// RequestIDError is an RPC's failure with the request id
// (x-goog-spanner-request-id) of the attempt that failed: the id Google
// support looks a request up by. It wraps the failure (errors.Is and
// errors.As see through it), keeps its gRPC status (status.Code,
// spanner.ErrCode) and adds `, requestID = "..."` to its text, as the
// official client's errors do. errors.As also gives the official client's
// *spanner.Error for it, with its RequestID field set, so code written for
// go-sql-spanner that reads that field works unchanged.
type RequestIDError = transport.RequestIDError

// RequestIDOf returns the request id that err carries: the
// x-goog-spanner-request-id of the RPC attempt whose failure err is or
// wraps, "" if none (an error the driver found itself, before or without
// a call to Spanner).
func RequestIDOf(err error) string { return transport.RequestIDOf(err) }
