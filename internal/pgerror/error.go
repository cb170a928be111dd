package pgerror

import (
	"database/sql/driver"
	"io"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Error is an error of a PostgreSQL-dialect database with its SQLSTATE.
// It wraps the error it was made of: errors.Is and errors.As see through
// it, status.Code and status.FromError give the wrapped error's status
// (its message prefixed as Error's text is, its details kept).
type Error struct {
	state string
	err   error
}

// Wrap returns err as an *Error with its SQLState; nil stays nil and an
// *Error is returned as it is.
func Wrap(err error) error {
	if err == nil {
		return nil
	}
	if pe, ok := err.(*Error); ok {
		return pe
	}
	return &Error{state: SQLState(err), err: err}
}

// Enrich is Wrap for an error the driver is about to return to
// database/sql, except for the errors database/sql and callers compare by
// identity (the end of rows, a bad connection, ErrSkip), which it returns
// unchanged.
func Enrich(err error) error {
	switch err {
	case nil, io.EOF, driver.ErrBadConn, driver.ErrSkip, driver.ErrRemoveArgument:
		return err
	}
	return Wrap(err)
}

// SQLState returns the error's five-character PostgreSQL SQLSTATE.
func (e *Error) SQLState() string { return e.state }

// Unwrap returns the error e was made of.
func (e *Error) Unwrap() error { return e.err }

// Error is the wrapped error's text after "[SQLSTATE xxxxx] ", unless that
// text names a SQLSTATE already.
func (e *Error) Error() string {
	text := e.err.Error()
	if inText.MatchString(text) {
		return text
	}
	return e.prefix() + text
}

func (e *Error) prefix() string { return "[SQLSTATE " + e.state + "] " }

// GRPCStatus is the wrapped error's status (as status.FromError gives
// it) with the SQLSTATE before its message, details kept; Unknown with
// Error's text for an error without a status.
func (e *Error) GRPCStatus() *status.Status {
	s, ok := status.FromError(e.err)
	if !ok {
		return status.New(codes.Unknown, e.Error())
	}
	p := s.Proto()
	if !inText.MatchString(p.Message) {
		p.Message = e.prefix() + p.Message
	}
	return status.FromProto(p)
}
