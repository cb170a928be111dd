package pgerror

import (
	"errors"
	"regexp"
	"strings"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// SQLSTATE values this package produces itself (others come from the
// server's ErrorInfo or from an error's text).
const (
	UniqueViolation        = "23505"
	ForeignKeyViolation    = "23503"
	SerializationFailure   = "40001"
	UndefinedTable         = "42P01"
	UndefinedColumn        = "42703"
	InsufficientPrivilege  = "42501"
	InvalidAuthorization   = "28000"
	QueryCanceled          = "57014"
	ConnectionFailure      = "08006"
	FeatureNotSupported    = "0A000"
	InFailedSQLTransaction = "25P02"
	InternalError          = "XX000" // nothing more specific is known
)

// InFailedTransactionMessage is PostgreSQL's text for a statement refused
// because an earlier one failed in the same transaction; with
// FailedPrecondition it maps to InFailedSQLTransaction.
const InFailedTransactionMessage = "current transaction is failed, commands ignored until end of transaction block"

// inText finds a SQLSTATE an error's text already carries ("[SQLSTATE
// 42P01]", "SQLSTATE: 42703").
var inText = regexp.MustCompile(`(?i)SQLSTATE[\s:]*([0-9A-Z]{5})`)

// byCode is the SQLSTATE of the gRPC codes that say enough on their own.
var byCode = map[codes.Code]string{
	codes.Aborted:          SerializationFailure,
	codes.Canceled:         QueryCanceled,
	codes.DeadlineExceeded: QueryCanceled,
	codes.PermissionDenied: InsufficientPrivilege,
	codes.Unauthenticated:  InvalidAuthorization,
	codes.Unavailable:      ConnectionFailure,
	codes.Unimplemented:    FeatureNotSupported,
}

// messageRule maps an error with one of codes whose text matches one of
// texts to state. Rules are tried in order: the first that matches wins.
type messageRule struct {
	state string
	codes []codes.Code
	texts []*regexp.Regexp
}

func texts(patterns ...string) []*regexp.Regexp {
	out := make([]*regexp.Regexp, len(patterns))
	for i, p := range patterns {
		out[i] = regexp.MustCompile(`(?i)` + p)
	}
	return out
}

// byMessage holds the failures that share a gRPC code with others and are
// told apart by Spanner's (or the emulator's) message. The column rule
// comes before the relation rule: its message names a relation too.
var byMessage = []messageRule{
	{InFailedSQLTransaction, []codes.Code{codes.FailedPrecondition},
		[]*regexp.Regexp{regexp.MustCompile(regexp.QuoteMeta(InFailedTransactionMessage))}},
	{UndefinedColumn, []codes.Code{codes.NotFound, codes.InvalidArgument},
		texts(`column .+ of relation .+ does not exist`)},
	{UndefinedTable, []codes.Code{codes.NotFound, codes.InvalidArgument},
		texts(`relation .+ does not exist`)},
	{UniqueViolation, []codes.Code{codes.AlreadyExists}, texts(
		`Row .+ in table .+ already exists`,                                       // Spanner, primary key
		`Failed to insert row with primary key .+ due to previously existing row`, // emulator, primary key
		`Unique index violation on index .+ at index key .+`,                      // Spanner, unique index
		`UNIQUE violation on index .+ duplicate key: .+`,                          // emulator, unique index
	)},
	{ForeignKeyViolation, []codes.Code{codes.FailedPrecondition, codes.InvalidArgument}, texts(
		`Foreign key constraint .+ is violated on table .+\. Cannot find referenced values in .+`,     // Spanner
		`Foreign key .+ constraint violation on table .+\. Cannot find referenced key .+ in table .+`, // emulator
	)},
	{FeatureNotSupported, []codes.Code{codes.FailedPrecondition, codes.InvalidArgument}, texts(
		`Cannot drop table .+ with indices`,
		`Only <RESTRICT> behavior is supported by <DROP> statement\.`,
	)},
}

// SQLState returns err's SQLSTATE, "" for nil. It never fails: an error
// nothing more is known of is InternalError (XX000).
func SQLState(err error) string {
	if err == nil {
		return ""
	}
	var pe *Error
	if errors.As(err, &pe) {
		return pe.state
	}
	text := err.Error()
	if m := inText.FindStringSubmatch(text); m != nil {
		return strings.ToUpper(m[1])
	}
	if state := fromErrorInfo(err); state != "" {
		return state
	}
	s, _ := status.FromError(err) // Unknown for an error without a status
	if state, ok := byCode[s.Code()]; ok {
		return state
	}
	for _, r := range byMessage {
		if r.matches(s.Code(), text) {
			return r.state
		}
	}
	return InternalError
}

func (r *messageRule) matches(code codes.Code, text string) bool {
	hasCode := false
	for _, c := range r.codes {
		hasCode = hasCode || c == code
	}
	if !hasCode {
		return false
	}
	for _, re := range r.texts {
		if re.MatchString(text) {
			return true
		}
	}
	return false
}

// errorInfoKeys are the ErrorInfo metadata keys that carry a SQLSTATE, in
// order of preference.
var errorInfoKeys = []string{"pg_sqlerrcode", "sqlstate"}

// fromErrorInfo returns the SQLSTATE of the ErrorInfo details of err's
// status, or "". Every status in err's chain is looked at: a wrapper that
// makes a status of its own (a batch's error naming the failing statement)
// may leave the details out of it.
func fromErrorInfo(err error) string {
	for e := err; e != nil; e = errors.Unwrap(e) {
		gs, ok := e.(interface{ GRPCStatus() *status.Status })
		if !ok {
			continue
		}
		for _, d := range gs.GRPCStatus().Details() {
			info, ok := d.(*errdetails.ErrorInfo)
			if !ok {
				continue
			}
			for _, k := range errorInfoKeys {
				if v := info.GetMetadata()[k]; len(v) == 5 {
					return strings.ToUpper(v)
				}
			}
		}
	}
	return ""
}
