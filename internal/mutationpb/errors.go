package mutationpb

import (
	"errors"
	"fmt"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

var errNilMutation = errors.New("mutation is nil")

// Error reports a mutation that cannot be converted. It always has code
// InvalidArgument: the mutation, not the server, is at fault.
type Error struct {
	Index  int    // position of the mutation in the slice given to Convert
	Table  string // table, or queue for Send and Ack; "" if not known
	Column string // column whose value failed; "" if the failure is not a column value
	Part   string // "key" or "payload" when that failed instead of a column value
	Err    error  // the cause, usually the client's *spanner.Error
}

func (e *Error) Error() string {
	where := fmt.Sprintf("mutation %d", e.Index)
	if e.Table != "" {
		where += fmt.Sprintf(" (table %q", e.Table)
		switch {
		case e.Column != "":
			where += fmt.Sprintf(", column %q", e.Column)
		case e.Part != "":
			where += ", " + e.Part
		}
		where += ")"
	}
	return fmt.Sprintf("spannerfast: %s: %v", where, e.Err)
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// GRPCStatus reports InvalidArgument.
func (e *Error) GRPCStatus() *status.Status {
	return status.New(codes.InvalidArgument, e.Error())
}
