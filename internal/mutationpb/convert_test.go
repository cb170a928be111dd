package mutationpb

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"cloud.google.com/go/spanner"
	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"github.com/spannerfast/spannerfast/internal/fakespanner"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
)

const db = "projects/p/instances/i/databases/d"

// official runs the official client against a fake server.
type official struct {
	s      *fakespanner.Server
	client *spanner.Client
}

func startOfficial(t testing.TB) *official {
	t.Helper()
	s := fakespanner.Start(t)
	t.Setenv("SPANNER_EMULATOR_HOST", s.Addr())
	client, err := spanner.NewClientWithConfig(context.Background(), db, spanner.ClientConfig{DisableNativeMetrics: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(client.Close)
	return &official{s: s, client: client}
}

// The three ways the official client commits mutations.
var modes = []string{"Apply", "ApplyAtLeastOnce", "BufferWrite"}

// sent commits ms with the official client in the given mode and returns
// the mutations of its CommitRequest, and the mutation_key of its
// BeginTransaction (nil if none).
func (o *official) sent(t *testing.T, mode string, ms []*spanner.Mutation) (pbs []*spannerpb.Mutation, key *spannerpb.Mutation, err error) {
	t.Helper()
	ctx := context.Background()
	o.s.ResetRequests()
	switch mode {
	case "Apply":
		_, err = o.client.Apply(ctx, ms)
	case "ApplyAtLeastOnce":
		_, err = o.client.Apply(ctx, ms, spanner.ApplyAtLeastOnce())
	case "BufferWrite":
		// Two buffers, to check that the client keeps their order.
		_, err = o.client.ReadWriteTransaction(ctx, func(_ context.Context, tx *spanner.ReadWriteTransaction) error {
			if err := tx.BufferWrite(ms[:len(ms)/2]); err != nil {
				return err
			}
			return tx.BufferWrite(ms[len(ms)/2:])
		})
	default:
		t.Fatalf("unknown mode %q", mode)
	}
	if err != nil {
		return nil, nil, err
	}
	commits := o.s.RequestsFor("Commit")
	if len(commits) != 1 {
		t.Fatalf("%s: %d Commit requests, want 1", mode, len(commits))
	}
	for _, b := range o.s.RequestsFor("BeginTransaction") {
		key = b.Message.(*spannerpb.BeginTransactionRequest).GetMutationKey()
	}
	return commits[0].Message.(*spannerpb.CommitRequest).GetMutations(), key, nil
}

// check compares Convert with what the client sent, in every mode. It
// returns false if the client rejected ms (and then so must Convert).
func (o *official) check(t *testing.T, name string, ms []*spanner.Mutation) (accepted bool, convErr error) {
	t.Helper()
	got, gotKey, convErr := Convert(ms)
	for _, mode := range modes {
		want, wantKey, err := o.sent(t, mode, ms)
		if err != nil {
			if convErr == nil {
				t.Errorf("%s/%s: client rejected it (%v), Convert did not", name, mode, err)
			}
			continue
		}
		if convErr != nil {
			t.Errorf("%s/%s: Convert: %v; the client accepted it", name, mode, convErr)
			continue
		}
		accepted = true
		equalMutations(t, name+"/"+mode, got, want)
		if mode != "ApplyAtLeastOnce" {
			checkKey(t, name+"/"+mode, got, gotKey, wantKey)
		}
	}
	return accepted, convErr
}

func equalMutations(t *testing.T, name string, got, want []*spannerpb.Mutation) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d mutations, client sent %d", name, len(got), len(want))
		return
	}
	for i := range got {
		if !proto.Equal(got[i], want[i]) {
			t.Errorf("%s: mutation %d:\n got %v\nwant %v", name, i, got[i], want[i])
		}
	}
}

// checkKey: for inserts only the choice is deterministic and must be the
// client's; otherwise both must be one of the non-insert mutations (the
// client picks one at random).
func checkKey(t *testing.T, name string, pbs []*spannerpb.Mutation, got, want *spannerpb.Mutation) {
	t.Helper()
	var nonInserts []*spannerpb.Mutation
	for _, pb := range pbs {
		if pb.GetInsert() == nil {
			nonInserts = append(nonInserts, pb)
		}
	}
	if len(nonInserts) == 0 {
		if !proto.Equal(got, want) {
			t.Errorf("%s: mutation key %v, client sent %v", name, got, want)
		}
		return
	}
	in := func(k *spannerpb.Mutation) bool {
		for _, m := range nonInserts {
			if proto.Equal(k, m) {
				return true
			}
		}
		return false
	}
	if !in(got) || !in(want) {
		t.Errorf("%s: mutation key %v / client's %v, want a non-insert", name, got, want)
	}
}

// TestMatchesOfficialClient proves Convert gives exactly the protos the
// official client sends, for every mutation kind, key set and key part.
func TestMatchesOfficialClient(t *testing.T) {
	o := startOfficial(t)
	for _, c := range mutationKinds() {
		if ok, err := o.check(t, c.name, c.ms); !ok {
			t.Errorf("%s: rejected: %v", c.name, err)
		}
	}
	for _, c := range invalidMutations() {
		if ok, err := o.check(t, c.name, c.ms); ok || err == nil {
			t.Errorf("%s: accepted, want rejected by both", c.name)
		}
	}
}

// TestValuesMatchOfficialClient writes every value type, as the client
// accepts it or not: accepted values must convert to the same protos, and
// rejected ones must fail in Convert with an error naming the column.
func TestValuesMatchOfficialClient(t *testing.T) {
	o := startOfficial(t)
	var rejected []string
	for _, v := range values() {
		ms := []*spanner.Mutation{spanner.Insert("T", []string{"K", "V"}, []any{int64(1), v.v})}
		accepted, err := o.check(t, v.name, ms)
		if accepted {
			continue
		}
		rejected = append(rejected, v.name)
		var e *Error
		if !errors.As(err, &e) || e.Table != "T" || e.Column != "V" || status.Code(err) != codes.InvalidArgument {
			t.Errorf("%s: error %v (%#v), want *Error naming T.V with InvalidArgument", v.name, err, e)
		}
	}
	t.Logf("rejected by the client and by Convert: %v", rejected)
	// Guard against a vacuous pass: these must be rejected, and nothing else
	// that the list above expects to work.
	// (*Interval is in the client's list of mutation types but its encoder
	// rejects it; NULL proto columns must be typed nils, not invalid Null*.)
	want := "int32 int16 int8 uint uint64 uint32 uint16 uint8 []int32 *Interval *Interval_nil []*Interval " +
		"NullProtoMessage_null NullProtoEnum_null struct []struct complex128 map chan []GenericColumnValue failingEncoder []any"
	if got := strings.Join(rejected, " "); got != want {
		t.Errorf("rejected %q, want %q", got, want)
	}
}

func TestErrorNamesTableAndColumn(t *testing.T) {
	valid := spanner.Insert("Singers", []string{"Id"}, []any{int64(1)})
	for _, c := range []struct {
		name           string
		ms             []*spanner.Mutation
		index          int
		table, column  string
		part, contains string
	}{
		{"nil", []*spanner.Mutation{valid, nil}, 1, "", "", "", "mutation 1: mutation is nil"},
		{"value", []*spanner.Mutation{valid, valid, spanner.Update("Singers", []string{"Id", "Bad"}, []any{int64(1), complex(1, 2)})},
			2, "Singers", "Bad", "", `mutation 2 (table "Singers", column "Bad")`},
		{"encoder", []*spanner.Mutation{spanner.InsertMap("Albums", map[string]any{"E": failingEncoder{}})},
			0, "Albums", "E", "", "encoder says no"},
		{"delete key", []*spanner.Mutation{valid, spanner.Delete("T", spanner.Key{uint64(1)})}, 1, "T", "", "key", `(table "T", key)`},
		{"range key", invalidMutations()[1].ms, 0, "T", "", "key", "key"},
		{"send key", invalidMutations()[2].ms, 0, "Q", "", "key", "key"},
		{"send payload", invalidMutations()[3].ms, 0, "Q", "", "payload", "payload"},
		{"ack key", invalidMutations()[4].ms, 0, "Q", "", "key", "key"},
	} {
		pbs, key, err := Convert(c.ms)
		var e *Error
		if !errors.As(err, &e) || pbs != nil || key != nil {
			t.Errorf("%s: %v, %v, %v; want *Error", c.name, pbs, key, err)
			continue
		}
		if e.Index != c.index || e.Table != c.table || e.Column != c.column || e.Part != c.part {
			t.Errorf("%s: %+v, want index %d table %q column %q part %q", c.name, e, c.index, c.table, c.column, c.part)
		}
		if status.Code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), c.contains) {
			t.Errorf("%s: %v (code %v), want InvalidArgument containing %q", c.name, err, status.Code(err), c.contains)
		}
		var se *spanner.Error
		if c.name != "nil" && c.name != "encoder" && (!errors.As(err, &se) || e.Unwrap() == nil) {
			t.Errorf("%s: cause %v is not the client's *spanner.Error", c.name, e.Unwrap())
		}
	}
}

func TestMutationKey(t *testing.T) {
	pbs, key, err := Convert(mutationKinds()[len(mutationKinds())-2].ms) // Inserts_only
	if err != nil {
		t.Fatal(err)
	}
	// The wrapped insert has two rows: the most, so it is the key.
	if k, err := MutationKey(pbs); err != nil || k != pbs[1] || key != pbs[1] {
		t.Fatalf("inserts only: key %v / %v, %v; want the two-row insert %v", k, key, err, pbs[1])
	}
	if k, err := MutationKey(nil); k != nil || err != nil {
		t.Fatalf("no mutations: %v, %v", k, err)
	}
	var mixed []*spannerpb.Mutation
	for _, c := range mutationKinds() {
		if c.name == "Mixed" {
			mixed, _, _ = Convert(c.ms)
		}
	}
	seen := map[*spannerpb.Mutation]bool{}
	for range 64 {
		k, _ := MutationKey(mixed)
		if k.GetInsert() != nil {
			t.Fatalf("mixed: picked insert %v", k)
		}
		seen[k] = true
	}
	if len(seen) != 2 {
		t.Fatalf("mixed: picked %d distinct non-inserts in 64 tries, want both", len(seen))
	}
	if _, err := MutationKey([]*spannerpb.Mutation{nil}); status.Code(err) != codes.InvalidArgument {
		t.Fatalf("nil proto: %v", err)
	}
}

// TestLayoutRefusesOtherShapes: a Mutation whose fields this package
// cannot read (missing, or of another type) makes findLayout fail with
// FailedPrecondition naming the field; it never converts by guesswork.
func TestLayoutRefusesOtherShapes(t *testing.T) {
	for _, c := range []struct {
		name string
		typ  reflect.Type
		want string
	}{
		{"not a struct", reflect.TypeFor[int](), "not a struct"},
		{"no fields", reflect.TypeFor[struct{ x int }](), `no field "op"`},
		{"op not an int", reflect.TypeFor[struct {
			op    string
			table string
		}](), `field "op" is a string`},
		{"values renamed", reflect.TypeFor[struct {
			op      int
			table   string
			keySet  spanner.KeySet
			columns []string
			vals    []any
		}](), `no field "values"`},
		{"table of another type", reflect.TypeFor[struct {
			op    int
			table []byte
		}](), `field "table" is a []uint8`},
	} {
		_, err := findLayout(c.typ)
		if status.Code(err) != codes.FailedPrecondition || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want FailedPrecondition containing %q", c.name, err, c.want)
		}
	}
	l, err := findLayout(typeMutation)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.ops) != 7 || len(l.unknown) != 0 {
		t.Fatalf("ops %v, unknown fields %v; want 7 kinds and none unknown", l.ops, l.unknown)
	}
}

// TestSelfCheckCatchesMeaning: a layout whose fields are found but mean
// something else (here table and queue swapped, and two kinds swapped)
// fails the self-check at first use.
func TestSelfCheckCatchesMeaning(t *testing.T) {
	l, err := findLayout(typeMutation)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.selfCheck(); err != nil {
		t.Fatalf("self-check of the real layout: %v", err)
	}
	swapped := *l
	swapped.table, swapped.queue = l.queue, l.table
	if err := swapped.selfCheck(); status.Code(err) != codes.FailedPrecondition || !strings.Contains(err.Error(), "self-check") {
		t.Errorf("table/queue swapped: %v, want a FailedPrecondition self-check error", err)
	}
	kinds := *l
	kinds.ops = map[int]kind{}
	for op, k := range l.ops {
		switch k {
		case kindInsert:
			k = kindUpdate
		case kindUpdate:
			k = kindInsert
		}
		kinds.ops[op] = k
	}
	if err := kinds.selfCheck(); status.Code(err) != codes.FailedPrecondition {
		t.Errorf("insert/update swapped: %v, want FailedPrecondition", err)
	}
}

// TestUnknownFieldSet: a field a later release adds is ignored while zero
// and refuses the mutation (FailedPrecondition naming it) once set, so an
// option this package does not know is never dropped silently.
func TestUnknownFieldSet(t *testing.T) {
	l, err := findLayout(typeMutation)
	if err != nil {
		t.Fatal(err)
	}
	f, _ := typeMutation.FieldByName("ignoreNotFound")
	pretend := *l
	pretend.unknown = []int{f.Index[0]} // as if this package did not know it
	if _, err := pretend.convert(spanner.Ack("Q", spanner.Key{"k"})); err != nil {
		t.Fatalf("field zero: %v", err)
	}
	_, err = pretend.convert(spanner.Ack("Q", spanner.Key{"k"}, spanner.WithIgnoreNotFound(true)))
	if status.Code(err) != codes.FailedPrecondition || !strings.Contains(err.Error(), `"ignoreNotFound"`) {
		t.Fatalf("field set: %v, want FailedPrecondition naming it", err)
	}
}

// TestLayoutErrorConvertsNothing: when the layout is unusable, Convert
// returns its error and nothing else.
func TestLayoutErrorConvertsNothing(t *testing.T) {
	saved := theLayout
	t.Cleanup(func() { theLayout = saved })
	theLayout = func() (*layout, error) { return nil, layoutError("spanner.Mutation has no field %q", "op") }
	pbs, key, err := Convert([]*spanner.Mutation{spanner.Insert("T", nil, nil)})
	var le *LayoutError
	if status.Code(err) != codes.FailedPrecondition || !errors.As(err, &le) || pbs != nil || key != nil {
		t.Fatalf("Convert: %v, %v, %v; want a FailedPrecondition *LayoutError", pbs, key, err)
	}
}

// TestNoPanics: a value whose encoding panics (here a user's Encoder; the
// client would let the panic through) and a key set holding nil (the
// client would dereference it) fail with InvalidArgument instead.
func TestNoPanics(t *testing.T) {
	for _, c := range []struct {
		name string
		m    *spanner.Mutation
	}{
		{"panicking Encoder", spanner.Insert("T", []string{"A"}, []any{panickingEncoder{}})},
		{"nil in KeySets", spanner.Delete("T", spanner.KeySets(spanner.Key{1}, nil))},
	} {
		_, _, err := Convert([]*spanner.Mutation{c.m})
		var e *Error
		if !errors.As(err, &e) || status.Code(err) != codes.InvalidArgument || e.Table != "T" {
			t.Errorf("%s: %v, want an InvalidArgument *Error naming table T", c.name, err)
		}
	}
}

type panickingEncoder struct{}

func (panickingEncoder) EncodeSpanner() (any, error) { panic("encoder panics") }
