package multistmt

import (
	"fmt"

	"google.golang.org/grpc/status"
)

// StatementError is the failure of one statement of a string holding
// several. The statements before it ran (those of an implicit transaction
// were rolled back).
type StatementError struct {
	Index int    // the failing statement, from 0
	Last  int    // the last statement of the batch it was sent in; Index otherwise
	Count int    // statements in the string
	SQL   string // the failing statement
	Err   error
}

// Fail returns the failure of statement i (of a batch ending at last) with
// err.
func (p *Plan) Fail(i, last int, err error) *StatementError {
	return &StatementError{Index: i, Last: max(last, i), Count: len(p.Stmts), SQL: p.Stmts[i], Err: err}
}

func (e *StatementError) Error() string {
	which := fmt.Sprintf("statement %d of %d", e.Index+1, e.Count)
	if e.Last > e.Index {
		which = fmt.Sprintf("statements %d-%d of %d (sent as one batch)", e.Index+1, e.Last+1, e.Count)
	}
	return fmt.Sprintf("spannerfast: %s failed: %v (statement: %q)", which, e.Err, e.SQL)
}

func (e *StatementError) Unwrap() error { return e.Err }

// GRPCStatus keeps the failing statement's code.
func (e *StatementError) GRPCStatus() *status.Status {
	return status.New(status.Code(e.Err), e.Error())
}
