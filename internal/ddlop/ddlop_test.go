package ddlop

import (
	"context"
	"errors"
	"slices"
	"testing"

	"cloud.google.com/go/longrunning/autogen/longrunningpb"
	databasepb "cloud.google.com/go/spanner/admin/database/apiv1/databasepb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// operation is an operation whose metadata says, as Spanner's does, that
// the first applied of its statements were applied: a commit timestamp
// each.
func operation(t *testing.T, applied int, stmts []string) *longrunningpb.Operation {
	t.Helper()
	md := &databasepb.UpdateDatabaseDdlMetadata{Statements: stmts}
	for range applied {
		md.CommitTimestamps = append(md.CommitTimestamps, timestamppb.Now())
	}
	a, err := anypb.New(md)
	if err != nil {
		t.Fatal(err)
	}
	return &longrunningpb.Operation{Name: "op", Metadata: a}
}

var errMissingKind = status.Error(codes.FailedPrecondition,
	"The sequence kind must be specified. Please specify the sequence kind explicitly or set the database option 'default_sequence_kind'.")

func TestApplied(t *testing.T) {
	if n := Applied(nil); n != 0 {
		t.Errorf("Applied(nil) = %d", n)
	}
	other, _ := anypb.New(&databasepb.CreateDatabaseMetadata{Database: "d"})
	if n := Applied(&longrunningpb.Operation{Metadata: other}); n != 0 {
		t.Errorf("Applied of other metadata = %d", n)
	}
	if n := Applied(operation(t, 2, []string{"a", "b", "c", "d"})); n != 2 {
		t.Errorf("Applied(2 of 4) = %d", n)
	}
}

func TestMissingSequenceKind(t *testing.T) {
	if !MissingSequenceKind(errMissingKind) {
		t.Error("Spanner's refusal not recognised")
	}
	for _, err := range []error{nil, errors.New("default_sequence_kind"), status.Error(codes.InvalidArgument, "Please specify the sequence kind explicitly")} {
		if MissingSequenceKind(err) {
			t.Errorf("MissingSequenceKind(%v) = true", err)
		}
	}
}

// TestSetSequenceKind: the statement in each dialect, the database id
// quoted by the dialect's rule (sqlparse.QuoteIdent), an empty id refused.
func TestSetSequenceKind(t *testing.T) {
	for _, c := range []struct {
		pg       bool
		db, want string
	}{
		{false, "d", "ALTER DATABASE `d` SET OPTIONS (default_sequence_kind = 'bit_reversed_positive')"},
		{true, "d", `ALTER DATABASE "d" SET spanner.default_sequence_kind = 'bit_reversed_positive'`},
		{false, "d\\`", "ALTER DATABASE `d\\\\\\`` SET OPTIONS (default_sequence_kind = 'bit_reversed_positive')"},
		{true, `d"`, `ALTER DATABASE "d""" SET spanner.default_sequence_kind = 'bit_reversed_positive'`},
	} {
		if got, err := SetSequenceKind(c.pg, c.db, "bit_reversed_positive"); err != nil || got != c.want {
			t.Errorf("SetSequenceKind(%v, %q) = %q, %v; want %q", c.pg, c.db, got, err, c.want)
		}
	}
	if _, err := SetSequenceKind(false, "", "bit_reversed_positive"); status.Code(err) != codes.InvalidArgument {
		t.Errorf("empty database id: %v, want InvalidArgument", err)
	}
}

// TestSend: the default_sequence_kind retry sends the statements not
// applied again, once, and only when every condition holds.
func TestSend(t *testing.T) {
	stmts := []string{"CREATE SEQUENCE a", "CREATE SEQUENCE b", "CREATE SEQUENCE c"}
	other := status.Error(codes.InvalidArgument, "syntax error")
	for _, tc := range []struct {
		name    string
		results []error // what each send returns, in order
		applied []int   // statements each send reports applied
		noKind  bool    // setKind nil (default_sequence_kind unset)
		kindErr error   // setKind's error
		sent    [][]string
		kindSet bool
		err     error
		want    int // applied
	}{
		{name: "success", results: []error{nil}, applied: []int{3}, sent: [][]string{stmts}},
		{name: "retry of the rest", results: []error{errMissingKind, nil}, applied: []int{1, 2},
			sent: [][]string{stmts, stmts[1:]}, kindSet: true},
		{name: "retry fails too", results: []error{errMissingKind, errMissingKind}, applied: []int{1, 1},
			sent: [][]string{stmts, stmts[1:]}, kindSet: true, err: errMissingKind, want: 2},
		{name: "no default kind", results: []error{errMissingKind}, applied: []int{1}, noKind: true,
			sent: [][]string{stmts}, err: errMissingKind, want: 1},
		{name: "another error", results: []error{other}, applied: []int{0},
			sent: [][]string{stmts}, err: other},
		{name: "setting the kind fails", results: []error{errMissingKind}, applied: []int{0}, kindErr: errors.New("no"),
			sent: [][]string{stmts}, kindSet: true, err: errMissingKind},
		{name: "all applied", results: []error{errMissingKind}, applied: []int{3},
			sent: [][]string{stmts}, err: errMissingKind, want: 3},
	} {
		var sent [][]string
		send := func(_ context.Context, s []string) (*longrunningpb.Operation, error) {
			i := len(sent)
			sent = append(sent, s)
			return operation(t, tc.applied[i], s), tc.results[i]
		}
		kindSet := false
		setKind := func() error { kindSet = true; return tc.kindErr }
		if tc.noKind {
			setKind = nil
		}
		op, applied, err := Send(context.Background(), nil, stmts, send, setKind)
		if !slices.EqualFunc(sent, tc.sent, slices.Equal) || kindSet != tc.kindSet {
			t.Errorf("%s: sent %q, kind set %v; want %q, %v", tc.name, sent, kindSet, tc.sent, tc.kindSet)
		}
		if !errors.Is(err, tc.err) || (err != nil && applied != tc.want) || op == nil {
			t.Errorf("%s: applied %d, err %v, op %v; want %d, %v", tc.name, applied, err, op, tc.want, tc.err)
		}
	}
}
