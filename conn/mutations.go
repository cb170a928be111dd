package conn

import (
	"context"
	"database/sql/driver"
	"reflect"
	"sync"
	"time"

	"cloud.google.com/go/spanner"
	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/spannerfast/spannerfast/internal/mutationpb"
	txnengine "github.com/spannerfast/spannerfast/internal/txn"
)

// Mutations through the connection, with go-sql-spanner's method
// signatures (reached with sql.Conn.Raw):
//
//   - Apply writes mutations outside a transaction, in a read-write
//     transaction of its own, as the official client's Client.Apply does:
//     BeginTransaction with the mutation_key a multiplexed session needs,
//     then Commit with the mutations and the precommit token, all of it run
//     again when Spanner aborts it. With spanner.ApplyAtLeastOnce() it is a
//     single Commit of a single-use transaction instead (retried on abort,
//     so the mutations may be applied more than once).
//   - BufferWrite adds mutations to the open read-write transaction; they
//     go with its Commit, also after an abort replay.
//
// Mutations are converted when they are handed over (see
// internal/mutationpb), so a bad value fails there, naming the table and
// column, before anything is sent.
//
// Apply takes its transaction options from its ApplyOptions only, never from
// the connection's settings (isolation_level, transaction_tag,
// max_commit_delay, ...): go-sql-spanner hands Apply to the official
// client, which does not know them either. The connection's transaction_tag
// therefore stays for its next transaction.

// Messages of go-sql-spanner, so code that matches them keeps working.
const (
	msgApplyInTxn        = "Apply may not be called while the connection is in a transaction. Use BufferWrite to write mutations in a transaction."
	msgBufferWriteNoTxn  = "BufferWrite may not be called while the connection is not in a transaction. Use Apply to write mutations outside a transaction."
	msgReadOnlyWrite     = "read-only transactions cannot write"
	msgNoCommittedResult = "this connection has not executed a read/write transaction that committed successfully"
)

func failedPrecondition(msg string) error {
	return status.Error(codes.FailedPrecondition, "spannerfast: "+msg)
}

// Apply writes ms atomically outside a transaction and returns the commit
// timestamp (in the local time zone, as the official client returns it).
// Inside a transaction it fails with FailedPrecondition: use BufferWrite.
// CommitTimestamp, CommitResponse and SHOW VARIABLE commit_timestamp report
// its commit afterwards.
func (c *Conn) Apply(ctx context.Context, ms []*spanner.Mutation, opts ...spanner.ApplyOption) (commitTimestamp time.Time, err error) {
	if c.closed {
		return time.Time{}, driver.ErrBadConn
	}
	if c.tx != nil {
		return time.Time{}, failedPrecondition(msgApplyInTxn)
	}
	ao, err := readApplyOptions(opts)
	if err != nil {
		return time.Time{}, err
	}
	pbs, key, err := mutationpb.Convert(ms)
	if err != nil {
		return time.Time{}, err
	}
	if err := c.enterReadWrite(ctx); err != nil {
		return time.Time{}, err
	}
	defer c.leaveReadWrite()
	session, err := c.session(ctx)
	if err != nil {
		return time.Time{}, err
	}
	var resp *spannerpb.CommitResponse
	if ao.atLeastOnce {
		resp, err = c.applyAtLeastOnce(ctx, session, ao, pbs)
	} else {
		resp, err = c.applyInTxn(ctx, session, ao, pbs, key)
	}
	if err != nil {
		c.noteCommitOutcome(err)
		return time.Time{}, err
	}
	c.noteCommit(resp)
	return resp.GetCommitTimestamp().AsTime().Local(), nil
}

// txnOptions are the transaction options of an Apply.
func (ao applyOptions) txnOptions() *spannerpb.TransactionOptions {
	return &spannerpb.TransactionOptions{
		Mode:                        &spannerpb.TransactionOptions_ReadWrite_{ReadWrite: &spannerpb.TransactionOptions_ReadWrite{}},
		IsolationLevel:              ao.isolation,
		ExcludeTxnFromChangeStreams: ao.excludeFromChangeStreams,
	}
}

// applyInTxn commits pbs in a read-write transaction of their own. The
// transaction begins with BeginTransaction carrying the mutation key
// (commitOnce does that when nothing began it), or without a key when
// there are no mutations, as the official client does. An abort runs both
// again in a new transaction.
func (c *Conn) applyInTxn(ctx context.Context, session string, ao applyOptions, pbs []*spannerpb.Mutation, key *spannerpb.Mutation) (*spannerpb.CommitResponse, error) {
	o := txnengine.Options{
		Begin:          ao.txnOptions(),
		Tag:            ao.tag,
		CommitPriority: ao.priority,
		CommitStats:    ao.returnCommitStats,
	}
	if ao.maxCommitDelay != nil {
		o.CommitDelay = *ao.maxCommitDelay
	}
	t := txnengine.NewReadWrite(c.txnHost(), session, o)
	if err := t.Buffer(pbs, key); err != nil {
		return nil, err
	}
	resp, err := t.CommitWrites(ctx)
	if err != nil {
		t.RollbackAfterFailure(ctx)
	}
	return resp, err
}

// applyAtLeastOnce commits pbs in a single-use read-write transaction: one
// Commit, no BeginTransaction. It is retried when aborted, so the mutations
// may be applied more than once. Like the official client it asks for no
// commit statistics.
func (c *Conn) applyAtLeastOnce(ctx context.Context, session string, ao applyOptions, pbs []*spannerpb.Mutation) (*spannerpb.CommitResponse, error) {
	req := &spannerpb.CommitRequest{
		Session:     session,
		Transaction: &spannerpb.CommitRequest_SingleUseTransaction{SingleUseTransaction: ao.txnOptions()},
		Mutations:   pbs,
	}
	if ao.priority != spannerpb.RequestOptions_PRIORITY_UNSPECIFIED || ao.tag != "" {
		req.RequestOptions = &spannerpb.RequestOptions{Priority: ao.priority, TransactionTag: ao.tag}
	}
	if ao.maxCommitDelay != nil {
		req.MaxCommitDelay = durationpb.New(*ao.maxCommitDelay)
	}
	ctx = c.client.SessionContext(ctx, session, true)
	return txnengine.RetryAborted(ctx, txnengine.MaxAbortReplays, func() (*spannerpb.CommitResponse, error) {
		return txnengine.CallCommit(ctx, func(ctx context.Context) (*spannerpb.CommitResponse, error) {
			return c.client.Spanner().Commit(ctx, req)
		})
	})
}

// BufferWrite adds ms to the open read-write transaction; they are sent
// with its Commit. Outside a transaction, or in a read-only one, it fails
// with FailedPrecondition. The mutations are converted now, so a value that
// cannot be sent fails here (InvalidArgument naming table and column) and
// nothing is buffered.
func (c *Conn) BufferWrite(ms []*spanner.Mutation) error {
	if c.closed {
		return driver.ErrBadConn
	}
	t := c.tx
	if t == nil {
		return failedPrecondition(msgBufferWriteNoTxn)
	}
	if t.ReadOnly() {
		return failedPrecondition(msgReadOnlyWrite)
	}
	pbs, key, err := mutationpb.Convert(ms)
	if err != nil || len(pbs) == 0 {
		return err
	}
	return t.Buffer(pbs, key)
}

// CommitTimestamp returns the commit timestamp of the last read-write
// transaction (explicit, autocommit DML or Apply) committed on this
// connection, in the local time zone; FailedPrecondition if there is none.
func (c *Conn) CommitTimestamp() (time.Time, error) {
	ts, resp := c.state.LastCommit()
	if resp == nil {
		return time.Time{}, failedPrecondition(msgNoCommittedResult)
	}
	return ts.Local(), nil
}

// CommitResponse returns the commit timestamp and, when they were asked for
// (return_commit_stats, spanner.ApplyCommitOptions), the commit statistics
// of the last read-write transaction committed on this connection;
// FailedPrecondition if there is none.
func (c *Conn) CommitResponse() (*spanner.CommitResponse, error) {
	ts, resp := c.state.LastCommit()
	if resp == nil {
		return nil, failedPrecondition(msgNoCommittedResult)
	}
	return &spanner.CommitResponse{
		CommitTs:    ts.Local(),
		CommitStats: resp.GetCommitStats(),
	}, nil
}

// applyOptions are the spanner.ApplyOption settings Apply honours.
type applyOptions struct {
	atLeastOnce              bool
	tag                      string
	priority                 spannerpb.RequestOptions_Priority
	excludeFromChangeStreams bool
	returnCommitStats        bool
	maxCommitDelay           *time.Duration
	isolation                spannerpb.TransactionOptions_IsolationLevel
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
// caller asked for. TestApplyOptionLayout pins the v1.96.1 struct, so a
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

// readApplyOptions runs opts and returns what they set. No options cost
// nothing: the layout is not even looked at.
func readApplyOptions(opts []spanner.ApplyOption) (applyOptions, error) {
	var ao applyOptions
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
	ao.atLeastOnce = field("atLeastOnce").Bool()
	ao.tag = field("transactionTag").String()
	ao.priority = spannerpb.RequestOptions_Priority(field("priority").Int())
	ao.excludeFromChangeStreams = field("excludeTxnFromChangeStreams").Bool()
	ao.isolation = spannerpb.TransactionOptions_IsolationLevel(field("isolationLevel").Int())
	// spanner.CommitOptions is exported, but reached through an unexported
	// field, so it too is read with the typed getters.
	ao.returnCommitStats = co.FieldByName("ReturnCommitStats").Bool()
	if d := co.FieldByName("MaxCommitDelay"); !d.IsNil() {
		delay := time.Duration(d.Elem().Int())
		ao.maxCommitDelay = &delay
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
