package stmtopts

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"cloud.google.com/go/spanner"
	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// TestApplyOptionLayout pins the official client's applyOption struct
// (v1.96.1, unchanged in v1.96.2): ReadApplyOptions reads its fields by name. When a client
// release changes it, this fails: check the new fields in client.go and
// what Apply must do with them, then update applyOptionFields and this
// list.
func TestApplyOptionLayout(t *testing.T) {
	l := applyLayout()
	if l.err != nil {
		t.Fatal(l.err)
	}
	want := []string{
		"atLeastOnce bool",
		"transactionTag string",
		"priority spannerpb.RequestOptions_Priority",
		"excludeTxnFromChangeStreams bool",
		"commitOptions spanner.CommitOptions",
		"isolationLevel spannerpb.TransactionOptions_IsolationLevel",
	}
	if got := structFields(l.typ); !reflect.DeepEqual(got, want) {
		t.Fatalf("applyOption fields\n got %q\nwant %q", got, want)
	}
	wantCommit := []string{"ReturnCommitStats bool", "MaxCommitDelay *time.Duration"}
	if got := structFields(reflect.TypeOf(spanner.CommitOptions{})); !reflect.DeepEqual(got, wantCommit) {
		t.Fatalf("spanner.CommitOptions fields\n got %q\nwant %q", got, wantCommit)
	}
	if len(l.unknown) != 0 || len(l.commitUnknown) != 0 {
		t.Fatalf("fields Apply does not read: %v, %v", l.unknown, l.commitUnknown)
	}
}

func structFields(t reflect.Type) []string {
	var out []string
	for i := 0; i < t.NumField(); i++ {
		out = append(out, t.Field(i).Name+" "+t.Field(i).Type.String())
	}
	return out
}

// TestReadApplyOptions: every option the client offers is read, later
// options override earlier ones as in the client, and no options read as
// zero.
func TestReadApplyOptions(t *testing.T) {
	if ao, err := ReadApplyOptions(nil); err != nil || !reflect.DeepEqual(ao, ApplyOptions{}) {
		t.Fatalf("no options: %+v, %v", ao, err)
	}
	delay := 150 * time.Millisecond
	ao, err := ReadApplyOptions([]spanner.ApplyOption{
		spanner.TransactionTag("first"),
		spanner.ApplyAtLeastOnce(),
		spanner.TransactionTag("tag"),
		spanner.Priority(spannerpb.RequestOptions_PRIORITY_LOW),
		spanner.ExcludeTxnFromChangeStreams(),
		spanner.ApplyCommitOptions(spanner.CommitOptions{ReturnCommitStats: true, MaxCommitDelay: &delay}),
		spanner.IsolationLevel(spannerpb.TransactionOptions_REPEATABLE_READ),
		nil,
	})
	if err != nil {
		t.Fatal(err)
	}
	want := ApplyOptions{
		AtLeastOnce: true, Tag: "tag", Priority: spannerpb.RequestOptions_PRIORITY_LOW,
		ExcludeFromChangeStreams: true, ReturnCommitStats: true, MaxCommitDelay: &delay,
		Isolation: spannerpb.TransactionOptions_REPEATABLE_READ,
	}
	if !reflect.DeepEqual(ao, want) {
		t.Fatalf("options\n got %+v\nwant %+v", ao, want)
	}
	// A zero max commit delay is still a delay the caller set.
	var zero time.Duration
	ao, err = ReadApplyOptions([]spanner.ApplyOption{spanner.ApplyCommitOptions(spanner.CommitOptions{MaxCommitDelay: &zero})})
	if err != nil || ao.MaxCommitDelay == nil || *ao.MaxCommitDelay != 0 {
		t.Fatalf("zero delay: %+v, %v", ao, err)
	}
}

// Stand-ins for a changed client: a struct with a field Apply does not
// know, and one missing a field Apply reads.
type newerApplyOption struct {
	atLeastOnce                 bool
	transactionTag              string
	priority                    spannerpb.RequestOptions_Priority
	excludeTxnFromChangeStreams bool
	commitOptions               spanner.CommitOptions
	isolationLevel              spannerpb.TransactionOptions_IsolationLevel
	lastStatement               bool
}

type olderApplyOption struct {
	atLeastOnce bool
	priority    string // wrong kind
}

// TestApplyOptionLayoutChanges: a missing or retyped field makes the layout
// unusable with FailedPrecondition naming it; an unknown field is refused
// with Unimplemented only when an option set it.
func TestApplyOptionLayoutChanges(t *testing.T) {
	older := newApplyOptionLayout(reflect.TypeOf(func(*olderApplyOption) {}), applyOptionFields)
	if status.Code(older.err) != codes.FailedPrecondition || !strings.Contains(older.err.Error(), "ApplyOption has no") {
		t.Fatalf("older layout: %v", older.err)
	}
	notFunc := newApplyOptionLayout(reflect.TypeOf(0), applyOptionFields)
	if status.Code(notFunc.err) != codes.FailedPrecondition {
		t.Fatalf("not a func: %v", notFunc.err)
	}
	badCommit, err := commitOptionsLayout(reflect.TypeOf(struct{ ReturnCommitStats bool }{}))
	if status.Code(err) != codes.FailedPrecondition || badCommit != nil {
		t.Fatalf("commitOptions of another type: %v", err)
	}

	newer := newApplyOptionLayout(reflect.TypeOf(func(*newerApplyOption) {}), applyOptionFields)
	if newer.err != nil || len(newer.unknown) != 1 {
		t.Fatalf("newer layout: %+v", newer)
	}
	v := reflect.New(newer.typ).Elem()
	if err := unsupportedSet(v, newer.unknown); err != nil {
		t.Fatalf("unset unknown field refused: %v", err)
	}
	reflect.ValueOf(func(o *newerApplyOption) { o.lastStatement = true }).Call([]reflect.Value{v.Addr()})
	err = unsupportedSet(v, newer.unknown)
	if status.Code(err) != codes.Unimplemented || !strings.Contains(err.Error(), "lastStatement") {
		t.Fatalf("set unknown field: %v", err)
	}
}
