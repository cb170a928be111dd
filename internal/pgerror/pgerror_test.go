package pgerror

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/durationpb"
)

func withErrorInfo(code codes.Code, msg string, meta map[string]string) error {
	s, err := status.New(code, msg).WithDetails(&errdetails.ErrorInfo{Metadata: meta})
	if err != nil {
		panic(err)
	}
	return s.Err()
}

// TestSQLState holds go-sql-spanner's mapping: each row is one of its
// rules (or one of the texts a rule knows), with the message Spanner or
// the emulator sends (the emulator's, as it answers on a PostgreSQL-dialect
// database, are those of e2e/emulator_pg_errors_test.go).
func TestSQLState(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"nil", nil, ""},
		// The server says it: ErrorInfo metadata, either key, any case.
		{"ErrorInfo pg_sqlerrcode", withErrorInfo(codes.InvalidArgument, "division by zero", map[string]string{"pg_sqlerrcode": "22012"}), "22012"},
		{"ErrorInfo sqlstate", withErrorInfo(codes.InvalidArgument, "some error", map[string]string{"sqlstate": "42p07"}), "42P07"},
		{"ErrorInfo wins over the code", withErrorInfo(codes.Aborted, "aborted", map[string]string{"pg_sqlerrcode": "40P01"}), "40P01"},
		{"ErrorInfo wins over the message", withErrorInfo(codes.AlreadyExists, "Row [1] in table t already exists", map[string]string{"sqlstate": "23P01"}), "23P01"},
		{"ErrorInfo of another length ignored", withErrorInfo(codes.Internal, "x", map[string]string{"pg_sqlerrcode": "2201"}), InternalError},
		{"ErrorInfo without the keys", withErrorInfo(codes.Internal, "x", map[string]string{"other": "22012"}), InternalError},
		// The text names it already.
		{"text [SQLSTATE x]", errors.New("spanner error: [SQLSTATE 42P01] table users not found"), "42P01"},
		{"text SQLSTATE: x", errors.New("spanner error: SQLSTATE: 42703 column foo does not exist"), "42703"},
		{"text lower case", errors.New("sqlstate 22p02 bad input"), "22P02"},
		{"text before ErrorInfo", withErrorInfo(codes.Internal, "[SQLSTATE 42601] syntax", map[string]string{"sqlstate": "22012"}), "42601"},
		// The code alone.
		{"Aborted", status.Error(codes.Aborted, "Transaction was aborted due to concurrent modification"), SerializationFailure},
		{"Canceled", status.Error(codes.Canceled, "context canceled"), QueryCanceled},
		{"DeadlineExceeded", status.Error(codes.DeadlineExceeded, "deadline"), QueryCanceled},
		{"PermissionDenied", status.Error(codes.PermissionDenied, "permission denied for table users"), InsufficientPrivilege},
		{"Unauthenticated", status.Error(codes.Unauthenticated, "no credentials"), InvalidAuthorization},
		{"Unavailable", status.Error(codes.Unavailable, "server is unavailable"), ConnectionFailure},
		{"Unimplemented", status.Error(codes.Unimplemented, "not implemented"), FeatureNotSupported},
		// Code and message.
		{"in failed transaction", status.Error(codes.FailedPrecondition, InFailedTransactionMessage), InFailedSQLTransaction},
		{"in failed transaction, other code", status.Error(codes.InvalidArgument, InFailedTransactionMessage), InternalError},
		{"column of relation, InvalidArgument (emulator)", status.Error(codes.InvalidArgument, `[ERROR] column "nosuchcol" of relation "parent" does not exist`), UndefinedColumn},
		{"column of relation, NotFound", status.Error(codes.NotFound, `column "foo" of relation "users" does not exist`), UndefinedColumn},
		{"column of relation, other code", status.Error(codes.FailedPrecondition, `column "foo" of relation "users" does not exist`), InternalError},
		{"column without relation (emulator, SELECT)", status.Error(codes.InvalidArgument, `[ERROR] column "nosuchcol" does not exist`), InternalError},
		{"relation, NotFound (emulator)", status.Error(codes.NotFound, `relation "nosuch" does not exist`), UndefinedTable},
		{"relation, InvalidArgument", status.Error(codes.InvalidArgument, `relation "users" does not exist`), UndefinedTable},
		{"relation, other code", status.Error(codes.Internal, `relation "users" does not exist`), InternalError},
		{"primary key (Spanner)", status.Error(codes.AlreadyExists, "Row [1] in table users already exists"), UniqueViolation},
		{"primary key (emulator)", status.Error(codes.AlreadyExists, "Failed to insert row with primary key ({pk#id:1}) due to previously existing row"), UniqueViolation},
		{"unique index (Spanner)", status.Error(codes.AlreadyExists, "Unique index violation on index idx at index key [a,1]. It conflicts with row [1] in table t."), UniqueViolation},
		{"unique index (emulator)", status.Error(codes.AlreadyExists, `UNIQUE violation on index parent_name,  duplicate key: {String("a")} in this transaction.`), UniqueViolation},
		{"AlreadyExists, other text", status.Error(codes.AlreadyExists, "Database already exists"), InternalError},
		{"foreign key (Spanner)", status.Error(codes.FailedPrecondition, `Foreign key constraint "fk_order" is violated on table "orders". Cannot find referenced values in "users"`), ForeignKeyViolation},
		{"foreign key (emulator)", status.Error(codes.FailedPrecondition, "Foreign key `fk_parent` constraint violation on table `child`. Cannot find referenced key `{Int64(99)}` in table `parent`."), ForeignKeyViolation},
		{"foreign key, InvalidArgument", status.Error(codes.InvalidArgument, `Foreign key constraint "fk" is violated on table "c". Cannot find referenced values in "p"`), ForeignKeyViolation},
		{"foreign key, other code", status.Error(codes.AlreadyExists, `Foreign key constraint "fk" is violated on table "c". Cannot find referenced values in "p"`), InternalError},
		{"drop table with indices (emulator)", status.Error(codes.FailedPrecondition, "Cannot drop table parent with indices: parent_name."), FeatureNotSupported},
		{"drop only RESTRICT", status.Error(codes.InvalidArgument, "Only <RESTRICT> behavior is supported by <DROP> statement."), FeatureNotSupported},
		// Nothing known: XX000, as go-sql-spanner (its syntax errors too).
		{"syntax error (emulator)", status.Error(codes.InvalidArgument, `[ERROR] syntax error at or near "SELEC"`), InternalError},
		{"Internal", status.Error(codes.Internal, "some unclassified internal spanner error"), InternalError},
		{"no status", errors.New("plain"), InternalError},
		// Through wrappers.
		{"wrapped status", fmt.Errorf("outer: %w", status.Error(codes.AlreadyExists, "UNIQUE violation on index idx_name duplicate key: foo")), UniqueViolation},
		{"wrapped ErrorInfo", fmt.Errorf("outer: %w", withErrorInfo(codes.Internal, "x", map[string]string{"pg_sqlerrcode": "22003"})), "22003"},
		{"ErrorInfo under a status without it", &ownStatus{withErrorInfo(codes.InvalidArgument, "too long", map[string]string{"pg_sqlerrcode": "22001"})}, "22001"},
		{"an *Error", fmt.Errorf("outer: %w", Wrap(status.Error(codes.Aborted, "x"))), SerializationFailure},
		{"context error", context.Canceled, InternalError},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := SQLState(tc.err); got != tc.want {
				t.Errorf("SQLState(%v) = %q, want %q", tc.err, got, tc.want)
			}
		})
	}
}

// TestErrorText: the text gets the SQLSTATE in front, once.
func TestErrorText(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"status", status.Error(codes.NotFound, `relation "users" does not exist`),
			`[SQLSTATE 42P01] rpc error: code = NotFound desc = relation "users" does not exist`},
		{"already named", errors.New("spanner error: [SQLSTATE 42P01] table users not found"),
			"spanner error: [SQLSTATE 42P01] table users not found"},
		{"wrapped *Error", fmt.Errorf("outer wrapper: %w", Wrap(status.Error(codes.NotFound, `relation "users" does not exist`))),
			`outer wrapper: [SQLSTATE 42P01] rpc error: code = NotFound desc = relation "users" does not exist`},
		{"in failed transaction", status.Error(codes.FailedPrecondition, InFailedTransactionMessage),
			"[SQLSTATE 25P02] rpc error: code = FailedPrecondition desc = " + InFailedTransactionMessage},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Wrap(tc.err).Error(); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
	if Wrap(nil) != nil {
		t.Error("Wrap(nil) is not nil")
	}
}

// TestErrorKeepsStatusAndChain: what a caller of a wrapped error relies on
// still works: errors.Is/As through it, status.Code, the status's details.
func TestErrorKeepsStatusAndChain(t *testing.T) {
	st, err := status.New(codes.Aborted, "Transaction was aborted").WithDetails(&errdetails.RetryInfo{RetryDelay: durationpb.New(time.Second)})
	if err != nil {
		t.Fatal(err)
	}
	sentinel := errors.New("sentinel")
	inner := fmt.Errorf("%w: %w", sentinel, st.Err())
	got := Wrap(inner)

	var pe *Error
	if !errors.As(got, &pe) || pe.SQLState() != SerializationFailure {
		t.Fatalf("errors.As: %v, SQLSTATE %q", pe, pe.SQLState())
	}
	if !errors.Is(got, sentinel) {
		t.Error("errors.Is does not find the wrapped sentinel")
	}
	if errors.Unwrap(got) != inner {
		t.Error("Unwrap does not return the wrapped error")
	}
	s, ok := status.FromError(got)
	if !ok || s.Code() != codes.Aborted || status.Code(got) != codes.Aborted {
		t.Fatalf("status %v (ok %v), want Aborted", s, ok)
	}
	if want := "[SQLSTATE 40001] " + inner.Error(); s.Message() != want {
		t.Errorf("status message %q, want %q", s.Message(), want)
	}
	if d := s.Details(); len(d) != 1 || d[0].(*errdetails.RetryInfo).GetRetryDelay().GetSeconds() != 1 {
		t.Errorf("details %v, want the RetryInfo of 1s", d)
	}
	direct := Wrap(st.Err())
	if s := status.Convert(direct); s.Message() != "[SQLSTATE 40001] Transaction was aborted" {
		t.Errorf("status message of a direct status %q", s.Message())
	}

	plain := Wrap(errors.New("plain"))
	if s := status.Convert(plain); s.Code() != codes.Unknown || s.Message() != "[SQLSTATE XX000] plain" {
		t.Errorf("status of an error without one: %v", s)
	}
	if again := Wrap(got); again != got {
		t.Error("an *Error is wrapped again")
	}
}

// TestEnrichPassesSentinels: errors compared by identity are left alone.
func TestEnrichPassesSentinels(t *testing.T) {
	for _, e := range []error{nil, io.EOF, driver.ErrBadConn, driver.ErrSkip, driver.ErrRemoveArgument} {
		if got := Enrich(e); got != e {
			t.Errorf("Enrich(%v) = %v", e, got)
		}
	}
	if _, ok := Enrich(io.ErrUnexpectedEOF).(*Error); !ok {
		t.Error("Enrich leaves another error without a SQLSTATE")
	}
}

// ownStatus makes a status of its own without its wrapped error's details,
// as a batch's error does.
type ownStatus struct{ err error }

func (e *ownStatus) Error() string { return "batch statement 1 failed: " + e.err.Error() }
func (e *ownStatus) Unwrap() error { return e.err }
func (e *ownStatus) GRPCStatus() *status.Status {
	return status.New(status.Code(e.err), e.Error())
}
