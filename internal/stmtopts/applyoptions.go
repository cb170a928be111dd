package stmtopts

import (
	"reflect"
	"sync"
	"time"

	"cloud.google.com/go/spanner"
	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/spannerfast/spannerfast/internal/mutationpb"
	"github.com/spannerfast/spannerfast/internal/txn"
)

// The options of a connection's Apply (spanner.ApplyOption), which take the
// place of the connection's transaction properties for the transaction
// Apply commits in.

// ApplyOptions are the spanner.ApplyOption settings the connection's Apply
// honours.
type ApplyOptions struct {
	AtLeastOnce              bool
	Tag                      string
	Priority                 spannerpb.RequestOptions_Priority
	ExcludeFromChangeStreams bool
	ReturnCommitStats        bool
	MaxCommitDelay           *time.Duration
	Isolation                spannerpb.TransactionOptions_IsolationLevel
}

// TxnOptions are the transaction options of an Apply.
func (ao ApplyOptions) TxnOptions() *spannerpb.TransactionOptions {
	return &spannerpb.TransactionOptions{
		Mode:                        &spannerpb.TransactionOptions_ReadWrite_{ReadWrite: &spannerpb.TransactionOptions_ReadWrite{}},
		IsolationLevel:              ao.Isolation,
		ExcludeTxnFromChangeStreams: ao.ExcludeFromChangeStreams,
	}
}

// Txn are the options of an Apply's read-write transaction of its own.
func (ao ApplyOptions) Txn() txn.Options {
	o := txn.Options{
		Begin:          ao.TxnOptions(),
		Tag:            ao.Tag,
		CommitPriority: ao.Priority,
		CommitStats:    ao.ReturnCommitStats,
	}
	if ao.MaxCommitDelay != nil {
		o.CommitDelay = *ao.MaxCommitDelay
	}
	return o
}

// SingleUseCommit is the Commit of pbs in a single-use read-write
// transaction with these options (Apply with ApplyAtLeastOnce; CopyFrom's
// commits). Like the official client it asks for no commit statistics.
func (ao ApplyOptions) SingleUseCommit(session string, pbs []*spannerpb.Mutation) *spannerpb.CommitRequest {
	req := &spannerpb.CommitRequest{
		Session:     session,
		Transaction: &spannerpb.CommitRequest_SingleUseTransaction{SingleUseTransaction: ao.TxnOptions()},
		Mutations:   pbs,
	}
	if ao.Priority != spannerpb.RequestOptions_PRIORITY_UNSPECIFIED || ao.Tag != "" {
		req.RequestOptions = &spannerpb.RequestOptions{Priority: ao.Priority, TransactionTag: ao.Tag}
	}
	if ao.MaxCommitDelay != nil {
		req.MaxCommitDelay = durationpb.New(*ao.MaxCommitDelay)
	}
	return req
}

// Reading spanner.ApplyOption values.
//
// An ApplyOption is a func(*applyOption) over a struct the client keeps
// unexported, so its settings can only be seen by running the option on
// such a struct. Reflection does that without naming the type: the func
// type's parameter is *applyOption, reflect.New makes one, calling the
// option fills it, and the fields are read by name with the typed getters
// (Bool, String, Int), which reflection allows on unexported fields (it
// refuses only Interface and Set there). No unsafe code is involved.
//
// The layout is checked once: every field Apply reads must be there with
// the kind it expects, or Apply with options fails with FailedPrecondition
// naming the field. A field the layout does not know (an option added by a
// later client release) must stay zero after the options ran, or Apply
// fails with Unimplemented naming it, rather than ignore an option the
// caller asked for. TestApplyOptionLayout pins the struct (v1.96.1 to v1.96.2), so a
// client change is noticed in tests first.

// applyOptionFields names the fields of the client's applyOption that
// Apply reads, with their reflect kinds.
var applyOptionFields = map[string]reflect.Kind{
	"atLeastOnce":                 reflect.Bool,
	"transactionTag":              reflect.String,
	"priority":                    reflect.Int32,
	"excludeTxnFromChangeStreams": reflect.Bool,
	"commitOptions":               reflect.Struct, // spanner.CommitOptions (exported)
	"isolationLevel":              reflect.Int32,
}

// applyOptionLayout is the client's applyOption struct type and the indexes
// of its fields, or the error that makes it unusable.
type applyOptionLayout struct {
	typ     reflect.Type
	index   map[string]int
	unknown []int // fields Apply does not read
	// commitUnknown are the fields of spanner.CommitOptions Apply does not
	// read.
	commitUnknown []int
	err           error
}

// commitOptionFields are the spanner.CommitOptions fields Apply reads.
var commitOptionFields = map[string]reflect.Type{
	"ReturnCommitStats": reflect.TypeOf(false),
	"MaxCommitDelay":    reflect.TypeOf((*time.Duration)(nil)),
}

var applyLayout = sync.OnceValue(func() *applyOptionLayout {
	return newApplyOptionLayout(reflect.TypeOf(spanner.ApplyOption(nil)), applyOptionFields)
})

// newApplyOptionLayout checks that fn is func(*struct) and that the struct
// has the wanted fields with the wanted kinds.
func newApplyOptionLayout(fn reflect.Type, want map[string]reflect.Kind) *applyOptionLayout {
	l := &applyOptionLayout{index: map[string]int{}}
	if fn.Kind() != reflect.Func || fn.NumIn() != 1 || fn.NumOut() != 0 ||
		fn.In(0).Kind() != reflect.Pointer || fn.In(0).Elem().Kind() != reflect.Struct {
		l.err = applyLayoutError("spanner.ApplyOption is %v, not func(*struct)", fn)
		return l
	}
	l.typ = fn.In(0).Elem()
	for i := 0; i < l.typ.NumField(); i++ {
		f := l.typ.Field(i)
		if _, ok := want[f.Name]; ok {
			l.index[f.Name] = i
		} else {
			l.unknown = append(l.unknown, i)
		}
	}
	for name, kind := range want {
		i, ok := l.index[name]
		if !ok || l.typ.Field(i).Type.Kind() != kind {
			l.err = applyLayoutError("the client's ApplyOption has no %s field of kind %v", name, kind)
			return l
		}
	}
	if i, ok := l.index["commitOptions"]; ok {
		l.commitUnknown, l.err = commitOptionsLayout(l.typ.Field(i).Type)
	}
	return l
}

// commitOptionsLayout checks that t is spanner.CommitOptions with the
// fields Apply reads, and returns the indexes of the others.
func commitOptionsLayout(t reflect.Type) (unknown []int, err error) {
	if t != reflect.TypeOf(spanner.CommitOptions{}) {
		return nil, applyLayoutError("commitOptions is %v, not spanner.CommitOptions", t)
	}
	for name, ft := range commitOptionFields {
		if f, ok := t.FieldByName(name); !ok || f.Type != ft {
			return nil, applyLayoutError("spanner.CommitOptions has no %s field of type %v", name, ft)
		}
	}
	for i := 0; i < t.NumField(); i++ {
		if _, ok := commitOptionFields[t.Field(i).Name]; !ok {
			unknown = append(unknown, i)
		}
	}
	return unknown, nil
}

func applyLayoutError(format string, args ...any) error {
	return status.Errorf(codes.FailedPrecondition,
		"spannerfast: cannot read spanner.ApplyOption values: "+format+" (checked against %s %s)",
		append(args, mutationpb.ClientModule, mutationpb.MinClientVersion)...)
}

// ReadApplyOptions runs opts and returns what they set. No options cost
// nothing: the layout is not even looked at.
func ReadApplyOptions(opts []spanner.ApplyOption) (ApplyOptions, error) {
	var ao ApplyOptions
	if len(opts) == 0 {
		return ao, nil
	}
	l := applyLayout()
	if l.err != nil {
		return ao, l.err
	}
	p := reflect.New(l.typ)
	args := []reflect.Value{p}
	for _, opt := range opts {
		if opt != nil {
			reflect.ValueOf(opt).Call(args)
		}
	}
	v := p.Elem()
	field := func(name string) reflect.Value { return v.Field(l.index[name]) }
	co := field("commitOptions")
	if err := unsupportedSet(v, l.unknown); err != nil {
		return ao, err
	}
	if err := unsupportedSet(co, l.commitUnknown); err != nil {
		return ao, err
	}
	ao.AtLeastOnce = field("atLeastOnce").Bool()
	ao.Tag = field("transactionTag").String()
	ao.Priority = spannerpb.RequestOptions_Priority(field("priority").Int())
	ao.ExcludeFromChangeStreams = field("excludeTxnFromChangeStreams").Bool()
	ao.Isolation = spannerpb.TransactionOptions_IsolationLevel(field("isolationLevel").Int())
	// spanner.CommitOptions is exported, but reached through an unexported
	// field, so it too is read with the typed getters.
	ao.ReturnCommitStats = co.FieldByName("ReturnCommitStats").Bool()
	if d := co.FieldByName("MaxCommitDelay"); !d.IsNil() {
		delay := time.Duration(d.Elem().Int())
		ao.MaxCommitDelay = &delay
	}
	return ao, nil
}

// unsupportedSet fails when an option set one of the fields of v that Apply
// does not read: ignoring it would drop what the caller asked for.
func unsupportedSet(v reflect.Value, fields []int) error {
	for _, i := range fields {
		if !v.Field(i).IsZero() {
			return status.Errorf(codes.Unimplemented,
				"spannerfast: Apply does not support the ApplyOption that sets %s.%s", v.Type().Name(), v.Type().Field(i).Name)
		}
	}
	return nil
}
