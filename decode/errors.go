package decode

import (
	"errors"
	"fmt"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protowire"
)

// ErrMalformed is matched (errors.Is) by every error about bytes that do not
// follow the protobuf wire format or Spanner's value encodings.
var ErrMalformed = errors.New("malformed Spanner result data")

// ProtocolError reports server data that breaks the wire format or the
// result-stream protocol (for example a chunked number). It carries gRPC code
// FailedPrecondition for protocol violations and Internal for broken bytes.
type ProtocolError struct {
	What string // where in the message the problem was found
	Err  error  // the underlying cause, if any
	Code codes.Code
}

func (e *ProtocolError) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("spannerfast: malformed result stream: %s: %v", e.What, e.Err)
	}
	return "spannerfast: malformed result stream: " + e.What
}

// Unwrap returns the cause.
func (e *ProtocolError) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrMalformed) true.
func (e *ProtocolError) Is(target error) bool { return target == ErrMalformed }

// GRPCStatus lets status.Code(err) report the error's code.
func (e *ProtocolError) GRPCStatus() *status.Status { return status.New(e.Code, e.Error()) }

func wireError(what string, n int) error {
	return &ProtocolError{What: what, Err: protowire.ParseError(n), Code: codes.Internal}
}

// ProtocolErrorf returns a *ProtocolError with code FailedPrecondition: the
// stream broke the result-stream protocol (a chunk that cannot be merged, a
// row cut short).
func ProtocolErrorf(format string, args ...any) error {
	return &ProtocolError{What: fmt.Sprintf(format, args...), Code: codes.FailedPrecondition}
}

// ColumnError says which column a value could not be decoded for.
type ColumnError struct {
	Index int    // zero-based column index
	Name  string // column name from the result metadata
	Type  string // GoogleSQL type name, e.g. ARRAY<INT64>
	Err   error
}

func (e *ColumnError) Error() string {
	return fmt.Sprintf("spannerfast: column %d %q (%s): %v", e.Index, e.Name, e.Type, e.Err)
}

// Unwrap returns the cause.
func (e *ColumnError) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrMalformed) true when the server sent something
// other than the column's declared type. A client-side condition (a NULL
// element for a native array, a type this driver does not decode) is not
// malformed data.
func (e *ColumnError) Is(target error) bool {
	if target != ErrMalformed {
		return false
	}
	var ne *NullElementError
	var ue *UnsupportedTypeError
	return !errors.As(e.Err, &ne) && !errors.As(e.Err, &ue)
}

// GRPCStatus reports codes.Internal, unless the cause carries its own code
// (FailedPrecondition for a NullElementError, Unimplemented for an
// UnsupportedTypeError).
func (e *ColumnError) GRPCStatus() *status.Status {
	code := codes.Internal
	if s, ok := status.FromError(e.Err); ok && s.Code() != codes.Unknown {
		code = s.Code()
	}
	return status.New(code, e.Error())
}

// valueError describes a value that does not fit its column type.
type valueError struct {
	want string // what the type needs, e.g. "a decimal string"
	got  Value
}

func (e *valueError) Error() string {
	if e.got.Kind == KindString {
		s := string(e.got.Bytes)
		if len(s) > 64 {
			s = s[:64] + "..."
		}
		return fmt.Sprintf("want %s, got string %q", e.want, s)
	}
	return fmt.Sprintf("want %s, got %s value", e.want, e.got.Kind)
}

func badValue(want string, got Value) error { return &valueError{want: want, got: got} }

// NullElementError reports a NULL array element met with
// decode_to_native_arrays on: a []int64 (etc.) has no place for it. It is the
// query's or the connection's choice, not bad data: code FailedPrecondition.
type NullElementError struct {
	Index    int    // zero-based element index
	ElemType string // the Go element type, e.g. "int64"
}

func (e *NullElementError) Error() string {
	return fmt.Sprintf("element %d is NULL, which a []%s cannot hold (decode_to_native_arrays is on): "+
		"turn decode_to_native_arrays off to get spanner.Null* elements, or filter the NULLs out in the query",
		e.Index, e.ElemType)
}

// GRPCStatus lets status.Code(err) report FailedPrecondition.
func (e *NullElementError) GRPCStatus() *status.Status {
	return status.New(codes.FailedPrecondition, e.Error())
}

// UnsupportedTypeError reports a column type this driver cannot decode: code
// Unimplemented.
type UnsupportedTypeError struct {
	Code spannerpb.TypeCode // the type code not supported (an array's element code for arrays)
	Type string             // the column's GoogleSQL type name
}

func (e *UnsupportedTypeError) Error() string {
	return fmt.Sprintf("type %s (type code %v) is not supported: CAST the column to a supported type, "+
		"for example CAST(col AS STRING), in the query", e.Type, e.Code)
}

// GRPCStatus lets status.Code(err) report Unimplemented.
func (e *UnsupportedTypeError) GRPCStatus() *status.Status {
	return status.New(codes.Unimplemented, e.Error())
}
