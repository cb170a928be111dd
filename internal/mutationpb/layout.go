package mutationpb

import (
	"fmt"
	"reflect"
	"sync"
	"time"
	"unsafe"

	"cloud.google.com/go/spanner"
	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// A spanner.Mutation keeps what its constructor was given in unexported
// fields. This file finds them once per process, by name and type through
// reflection, and checks everything it relies on; Convert then reads them
// at those offsets. Nothing here depends on a client release: a release
// that renames a field or changes its type makes every Convert fail with
// FailedPrecondition naming the field (never a wrong conversion), a
// release that adds a field is accepted as long as the new field is
// zero in the mutation at hand (see unknownSet).

// kind is a mutation's operation, as this package names it. The client's
// own numbers (its unexported op constants) are learnt from its public
// constructors, never assumed.
type kind uint8

const (
	kindUnknown kind = iota
	kindInsert
	kindUpdate
	kindInsertOrUpdate
	kindReplace
	kindDelete
	kindSend
	kindAck
)

// fieldSpec is one Mutation field Convert reads.
type fieldSpec struct {
	name string
	typ  reflect.Type // nil: any type of kind Int (the unexported op type)
}

// The fields Convert reads, with their offsets once found.
type layout struct {
	op, table, keySet, columns, values   uintptr
	queue, key, payload, deliverTime     uintptr
	ignoreNotFound, wrapped              uintptr
	ops                                  map[int]kind
	unknown                              []int // indexes of fields this package does not know
	allKeysType, unionType, keySliceType reflect.Type
	keyType, keyRangeType                reflect.Type
	checked                              bool
}

var (
	typeMutation = reflect.TypeFor[spanner.Mutation]()

	specs = []fieldSpec{
		{"op", nil},
		{"table", reflect.TypeFor[string]()},
		{"keySet", reflect.TypeFor[spanner.KeySet]()},
		{"columns", reflect.TypeFor[[]string]()},
		{"values", reflect.TypeFor[[]any]()},
		{"queue", reflect.TypeFor[string]()},
		{"key", reflect.TypeFor[spanner.Key]()},
		{"payload", reflect.TypeFor[any]()},
		{"deliverTime", reflect.TypeFor[time.Time]()},
		{"ignoreNotFound", reflect.TypeFor[bool]()},
		{"wrapped", reflect.TypeFor[*spannerpb.Mutation]()},
	}
)

// theLayout is found and self-checked at first use.
var theLayout = sync.OnceValues(func() (*layout, error) {
	l, err := findLayout(typeMutation)
	if err != nil {
		return nil, err
	}
	if err := l.selfCheck(); err != nil {
		return nil, err
	}
	return l, nil
})

// LayoutError reports a client release whose Mutation this package cannot
// read. Its gRPC code is FailedPrecondition: neither the mutation nor the
// server is at fault.
type LayoutError struct{ msg string }

func (e *LayoutError) Error() string { return e.msg }

// GRPCStatus reports FailedPrecondition.
func (e *LayoutError) GRPCStatus() *status.Status {
	return status.New(codes.FailedPrecondition, e.msg)
}

func layoutError(format string, args ...any) error {
	return &LayoutError{fmt.Sprintf("spannerfast: cannot convert mutations of this %s release: %s (please report it)",
		ClientModule, fmt.Sprintf(format, args...))}
}

// findLayout locates every field of specs in t and learns the op numbers.
func findLayout(t reflect.Type) (*layout, error) {
	if t.Kind() != reflect.Struct {
		return nil, layoutError("spanner.Mutation is a %v, not a struct", t.Kind())
	}
	offsets := map[string]uintptr{}
	known := map[string]bool{}
	for _, s := range specs {
		f, ok := t.FieldByName(s.name)
		if !ok || len(f.Index) != 1 {
			return nil, layoutError("spanner.Mutation has no field %q", s.name)
		}
		if s.typ == nil {
			if f.Type.Kind() != reflect.Int {
				return nil, layoutError("spanner.Mutation field %q is a %v, want an int", s.name, f.Type)
			}
		} else if f.Type != s.typ {
			return nil, layoutError("spanner.Mutation field %q is a %v, want %v", s.name, f.Type, s.typ)
		}
		offsets[s.name] = f.Offset
		known[s.name] = true
	}
	l := &layout{
		op: offsets["op"], table: offsets["table"], keySet: offsets["keySet"], columns: offsets["columns"],
		values: offsets["values"], queue: offsets["queue"], key: offsets["key"], payload: offsets["payload"],
		deliverTime: offsets["deliverTime"], ignoreNotFound: offsets["ignoreNotFound"], wrapped: offsets["wrapped"],
		allKeysType:  reflect.TypeOf(spanner.AllKeys()),
		unionType:    reflect.TypeOf(spanner.KeySets()),
		keySliceType: reflect.TypeFor[[]spanner.KeySet](),
		keyType:      reflect.TypeFor[spanner.Key](),
		keyRangeType: reflect.TypeFor[spanner.KeyRange](),
	}
	for i := range t.NumField() {
		if !known[t.Field(i).Name] {
			l.unknown = append(l.unknown, i)
		}
	}
	if l.unionType.Kind() != reflect.Slice || !l.unionType.ConvertibleTo(l.keySliceType) {
		return nil, layoutError("spanner.KeySets returns a %v, want a slice of KeySet", l.unionType)
	}
	// The op numbers, from one mutation of each kind made by the public
	// constructors.
	l.ops = map[int]kind{}
	for _, c := range []struct {
		m *spanner.Mutation
		k kind
	}{
		{spanner.Insert("t", nil, nil), kindInsert},
		{spanner.Update("t", nil, nil), kindUpdate},
		{spanner.InsertOrUpdate("t", nil, nil), kindInsertOrUpdate},
		{spanner.Replace("t", nil, nil), kindReplace},
		{spanner.Delete("t", spanner.AllKeys()), kindDelete},
		{spanner.Send("q", nil, nil), kindSend},
		{spanner.Ack("q", nil), kindAck},
	} {
		op := l.opOf(c.m)
		if prev, dup := l.ops[op]; dup {
			return nil, layoutError("mutation kinds %d and %d share op %d", prev, c.k, op)
		}
		l.ops[op] = c.k
	}
	return l, nil
}

// Field readers. Each offset was found above for a field of exactly the
// type read here, so these are ordinary typed loads.

func (l *layout) opOf(m *spanner.Mutation) int {
	return *(*int)(unsafe.Add(unsafe.Pointer(m), l.op))
}

func (l *layout) kindOf(m *spanner.Mutation) (kind, int) {
	op := l.opOf(m)
	return l.ops[op], op
}

func (l *layout) tableOf(m *spanner.Mutation) string {
	return *(*string)(unsafe.Add(unsafe.Pointer(m), l.table))
}

func (l *layout) keySetOf(m *spanner.Mutation) spanner.KeySet {
	return *(*spanner.KeySet)(unsafe.Add(unsafe.Pointer(m), l.keySet))
}

func (l *layout) columnsOf(m *spanner.Mutation) []string {
	return *(*[]string)(unsafe.Add(unsafe.Pointer(m), l.columns))
}

func (l *layout) valuesOf(m *spanner.Mutation) []any {
	return *(*[]any)(unsafe.Add(unsafe.Pointer(m), l.values))
}

func (l *layout) queueOf(m *spanner.Mutation) string {
	return *(*string)(unsafe.Add(unsafe.Pointer(m), l.queue))
}

func (l *layout) keyOf(m *spanner.Mutation) spanner.Key {
	return *(*spanner.Key)(unsafe.Add(unsafe.Pointer(m), l.key))
}

func (l *layout) payloadOf(m *spanner.Mutation) any {
	return *(*any)(unsafe.Add(unsafe.Pointer(m), l.payload))
}

func (l *layout) deliverTimeOf(m *spanner.Mutation) time.Time {
	return *(*time.Time)(unsafe.Add(unsafe.Pointer(m), l.deliverTime))
}

func (l *layout) ignoreNotFoundOf(m *spanner.Mutation) bool {
	return *(*bool)(unsafe.Add(unsafe.Pointer(m), l.ignoreNotFound))
}

func (l *layout) wrappedOf(m *spanner.Mutation) *spannerpb.Mutation {
	return *(**spannerpb.Mutation)(unsafe.Add(unsafe.Pointer(m), l.wrapped))
}

// unknownSet returns the name of a field this package does not know that
// is set in m, or "". A later client release may add a field (a new option
// of some kind); a mutation that uses it cannot be converted faithfully,
// one that leaves it zero can.
func (l *layout) unknownSet(m *spanner.Mutation) string {
	if len(l.unknown) == 0 {
		return ""
	}
	v := reflect.ValueOf(m).Elem()
	for _, i := range l.unknown {
		if !v.Field(i).IsZero() {
			return v.Type().Field(i).Name
		}
	}
	return ""
}
