package txn

import (
	"context"
	"time"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/spannerfast/spannerfast/internal/mutationpb"
	"github.com/spannerfast/spannerfast/internal/telemetry"
	"github.com/spannerfast/spannerfast/internal/transport"
	"github.com/spannerfast/spannerfast/rows"
)

// Client is the transport the engine sends its requests through:
// *transport.Client satisfies it.
type Client interface {
	// SessionContext carries the session's routing and, when leader is
	// set, the route-to-leader header.
	SessionContext(ctx context.Context, session string, leader bool) context.Context
	Spanner() spannerpb.SpannerClient
	// Telemetry is the connector's: retries, aborts and replays are
	// reported to it (nil: to nobody); the spans of the transaction and
	// its statements are made with it (telemetry.go).
	Telemetry() *telemetry.Telemetry
}

var _ Client = (*transport.Client)(nil)

// Host is what the engine asks of the connection that runs a transaction.
// It is read at each use, so that what the connection changes later (its
// rpc_priority, its statement_timeout) reaches the statements that follow.
type Host interface {
	Client
	// StatementContext bounds a request that completes before it returns
	// (DML, a commit) by the connection's statement and transaction
	// timeouts.
	StatementContext(ctx context.Context) (context.Context, context.CancelFunc)
	// RPCPriority is the priority of the transaction's requests (commits
	// have Options.CommitPriority).
	RPCPriority() spannerpb.RequestOptions_Priority
	// StreamDeadline is the deadline of a query stream opened now (the
	// connection's statement and transaction timeouts).
	StreamDeadline() Deadline
	// OpenStream opens a query stream for req bounded by d, decoding its
	// rows with ro, and returns the transaction id and read timestamp the
	// stream reported (a query that began its transaction inline).
	OpenStream(ctx context.Context, req *spannerpb.ExecuteSqlRequest, leader bool, ro rows.Options, d Deadline) (*rows.Rows, []byte, time.Time, error)
}

// Deadline bounds a query's stream: its whole life, reading included. A
// query keeps the one it was opened with, so that the stream a replay
// opens for its rows ends when the first one would have.
type Deadline struct {
	At  time.Time
	Set bool // false: no deadline
}

// Options are how a transaction begins and commits. The connection fills
// them from its properties; it may change them until the transaction's
// first statement (Started), and later only LastStatement.
type Options struct {
	// Begin is what BeginTransaction (or an inline begin) asks for: a
	// read-write or a read-only transaction and its settings.
	Begin *spannerpb.TransactionOptions
	// Explicit begins with BeginTransaction before the first statement
	// (begin_transaction_option=EXPLICIT).
	Explicit bool

	// Read-write only.
	Tag            string // transaction_tag
	CommitPriority spannerpb.RequestOptions_Priority
	CommitDelay    time.Duration // max_commit_delay, 0: none
	CommitStats    bool          // return_commit_stats
	RetryAborts    bool          // replay after an abort (retry_aborts_internally)
	// LastStatement marks its statements as the transaction's last
	// (autocommit DML).
	LastStatement bool
}

// Txn is an open transaction, read-only or read-write.
//
// It begins inline: the first statement carries TransactionSelector.Begin
// and the server returns the new id with that statement's result. When that
// statement fails before an id came back, or the result carries none, the
// transaction begins with an explicit BeginTransaction: at once, running
// the statement again, or, for a single statement of a read-write
// transaction that failed, at the next statement (see run).
// Options.Explicit always begins explicitly.
//
// A read-write transaction numbers its DML (seqno), keeps the precommit
// token with the highest sequence number seen (multiplexed sessions need it
// to commit), buffers mutations for the commit, and records what every
// statement returned so that an aborted transaction can be replayed (see
// replay.go).
//
// A Txn is a value to embed in what the connection keeps of its
// transaction (NewReadWrite, NewReadOnly); its methods take its address,
// so it must not be copied once a statement ran.
type Txn struct {
	// Options may be changed until the first statement.
	Options Options

	host     Host
	session  string
	readOnly bool

	id     []byte
	idSel  *spannerpb.TransactionSelector // selects id; requests only read it (selector)
	readTS time.Time
	// beginFailed: the statement that was to begin the transaction inline
	// failed before the server returned an id (run); the next statement or
	// the commit begins it (beginAfterFailure).
	beginFailed bool

	// Read-write only.
	seqno       int64
	precommit   *spannerpb.MultiplexedSessionPrecommitToken
	mutations   []*spannerpb.Mutation
	mutationKey *spannerpb.Mutation // BeginTransaction's mutation_key when only mutations were written
	log         []replayable
	retrying    bool        // a replay is running: statements are not logged again
	aborts      int         // aborts seen (reported with their number)
	failed      error       // a replay saw different data: the transaction is over
	savepoints  []savepoint // oldest first (savepoint.go)

	op telemetry.Op // the transaction's span, when the connection traces it (telemetry.go)
}

// NewReadWrite prepares a read-write transaction in session; nothing is
// sent until its first statement (or commit).
func NewReadWrite(h Host, session string, o Options) Txn {
	return Txn{Options: o, host: h, session: session}
}

// NewReadOnly prepares a multi-use read-only transaction in session. Of
// o, only Begin (a read-only mode) and Explicit count.
func NewReadOnly(h Host, session string, o Options) Txn {
	return Txn{Options: o, host: h, session: session, readOnly: true}
}

// ReadOnly reports whether it is a read-only transaction.
func (t *Txn) ReadOnly() bool { return t.readOnly }

// Session is the session the transaction runs in.
func (t *Txn) Session() string { return t.session }

// ReadTimestamp is the read timestamp a read-only transaction reads at,
// zero until its first statement (or Begin) returned it.
func (t *Txn) ReadTimestamp() time.Time { return t.readTS }

// ID is the transaction's id, nil until the server began it.
func (t *Txn) ID() []byte { return t.id }

// Started reports whether the transaction has sent or buffered anything:
// its Options are fixed from then on.
func (t *Txn) Started() bool {
	return t.id != nil || t.seqno > 0 || len(t.log) > 0 || len(t.mutations) > 0 || t.mutationKey != nil || !t.readTS.IsZero()
}

// leader reports whether the transaction's requests go to the leader.
func (t *Txn) leader() bool { return !t.readOnly }

// selector returns the selector of the next statement and whether it begins
// the transaction inline. An explicit begin happens here.
func (t *Txn) selector(ctx context.Context) (*spannerpb.TransactionSelector, bool, error) {
	if t.beginFailed {
		if err := t.beginAfterFailure(ctx); err != nil {
			return nil, false, err
		}
	}
	if t.id == nil && t.Options.Explicit {
		if err := t.begin(ctx, nil); err != nil {
			return nil, false, err
		}
	}
	if t.id != nil {
		// One selector per id, not two allocations per statement.
		if id := t.idSel.GetId(); len(id) == 0 || len(t.id) == 0 || &id[0] != &t.id[0] {
			t.idSel = &spannerpb.TransactionSelector{Selector: &spannerpb.TransactionSelector_Id{Id: t.id}}
		}
		return t.idSel, false, nil
	}
	return &spannerpb.TransactionSelector{Selector: &spannerpb.TransactionSelector_Begin{Begin: t.Options.Begin}}, true, nil
}

// run executes one statement in the transaction. attempt sends it with the
// given selector and returns the transaction id its result carried. When
// the statement was to begin the transaction inline and no id came back
// (it failed, or the server sent none), the transaction begins explicitly
// and the statement runs once more with that id; except, when deferBegin
// is set (a single statement of a read-write transaction the application
// runs), for a statement that failed: its error is returned as it is and
// the next statement or the commit begins the transaction
// (beginAfterFailure), as go-sql-spanner does.
func (t *Txn) run(ctx context.Context, deferBegin bool, attempt func(*spannerpb.TransactionSelector) ([]byte, error)) error {
	sel, inline, err := t.selector(ctx)
	if err != nil {
		return err
	}
	id, err := attempt(sel)
	if !inline {
		return err
	}
	if len(id) > 0 {
		t.id = append([]byte(nil), id...)
		return err
	}
	if status.Code(err) == codes.Canceled || status.Code(err) == codes.DeadlineExceeded || ctx.Err() != nil {
		return err
	}
	if err != nil && deferBegin && !t.readOnly && !t.Options.LastStatement && !IsAborted(err) {
		t.beginFailed = true
		return err
	}
	if berr := t.begin(ctx, nil); berr != nil {
		if err != nil {
			return err
		}
		return berr
	}
	_, err = attempt(&spannerpb.TransactionSelector{Selector: &spannerpb.TransactionSelector_Id{Id: t.id}})
	return err
}

// Begin begins the transaction with BeginTransaction now (a batch
// read-only transaction needs its id and read timestamp at once).
func (t *Txn) Begin(ctx context.Context) error { return t.begin(ctx, nil) }

// begin runs BeginTransaction. mutationKey is set for a read-write
// transaction that only writes mutations (multiplexed sessions need one).
func (t *Txn) begin(ctx context.Context, mutationKey *spannerpb.Mutation) error {
	req := &spannerpb.BeginTransactionRequest{
		Session:        t.session,
		Options:        t.Options.Begin,
		RequestOptions: t.RequestOptions(""),
		MutationKey:    mutationKey,
	}
	tx, err := transport.CallUnary(t.host.SessionContext(ctx, t.session, t.leader()), t.report("BeginTransaction"), func(ctx context.Context) (*spannerpb.Transaction, error) {
		return t.host.Spanner().BeginTransaction(ctx, req)
	})
	if err != nil {
		return err
	}
	if len(tx.GetId()) == 0 {
		return status.Errorf(codes.Internal, "spannerfast: BeginTransaction returned no transaction id")
	}
	t.id = tx.GetId()
	if ts := tx.GetReadTimestamp(); ts != nil {
		t.readTS = ts.AsTime()
	}
	t.notePrecommit(tx.GetPrecommitToken())
	return nil
}

// begunWith records what a statement's result said about the transaction.
func (t *Txn) begunWith(id []byte, readTS time.Time) {
	if t.id == nil && len(id) > 0 {
		t.id = append([]byte(nil), id...)
	}
	if t.readTS.IsZero() && !readTS.IsZero() {
		t.readTS = readTS
	}
}

// nextSeqno numbers a DML request; Spanner uses it to apply a retried
// request once.
func (t *Txn) nextSeqno() int64 {
	t.seqno++
	return t.seqno
}

// RequestOptions returns the options of a request in the transaction:
// the statement's tag and priority and the transaction's tag.
func (t *Txn) RequestOptions(statementTag string) *spannerpb.RequestOptions {
	prio := t.host.RPCPriority()
	if prio == spannerpb.RequestOptions_PRIORITY_UNSPECIFIED && statementTag == "" && t.Options.Tag == "" {
		return nil
	}
	return &spannerpb.RequestOptions{Priority: prio, RequestTag: statementTag, TransactionTag: t.Options.Tag}
}

// Tagged adds the transaction's tag to the options of a statement built
// before the transaction existed (autocommit DML runs in a transaction of
// its own, which transaction_tag tags like any read-write transaction).
func (t *Txn) Tagged(o *spannerpb.RequestOptions) *spannerpb.RequestOptions {
	if t.Options.Tag == "" {
		return o
	}
	if o == nil {
		o = &spannerpb.RequestOptions{}
	}
	o.TransactionTag = t.Options.Tag
	return o
}

// notePrecommit keeps the precommit token with the highest sequence number.
func (t *Txn) notePrecommit(pt *spannerpb.MultiplexedSessionPrecommitToken) {
	if pt != nil && (t.precommit == nil || pt.GetSeqNum() >= t.precommit.GetSeqNum()) {
		t.precommit = pt
	}
}

// notePrecommitBytes is notePrecommit for a token still encoded (streams).
func (t *Txn) notePrecommitBytes(b []byte) {
	pt := new(spannerpb.MultiplexedSessionPrecommitToken)
	if proto.Unmarshal(b, pt) == nil {
		t.notePrecommit(pt)
	}
}

// Buffer adds mutations to go with the commit. key is the mutation key
// of pbs (mutationpb.Convert); the transaction keeps the one of all it
// buffered.
func (t *Txn) Buffer(pbs []*spannerpb.Mutation, key *spannerpb.Mutation) error {
	if t.mutationKey != nil {
		// The client picks the key among all mutations at commit; picking
		// between the key so far and this batch's key with its own rule
		// gives the same kind of choice (a non-insert if there is one,
		// else the insert with the most rows) without scanning the whole
		// buffer again on every call.
		var err error
		if key, err = mutationpb.MutationKey([]*spannerpb.Mutation{t.mutationKey, key}); err != nil {
			return err
		}
	}
	t.mutations = append(t.mutations, pbs...)
	t.mutationKey = key
	return nil
}

// CommitOnce sends Commit (beginning first if nothing began the
// transaction). A response asking for a retry with a newer precommit token
// is retried once with it, as the official client does. Nothing is
// replayed: Commit does that.
func (t *Txn) CommitOnce(ctx context.Context) (*spannerpb.CommitResponse, error) {
	ctx, cancel := t.host.StatementContext(ctx) // statement_timeout bounds a commit too
	defer cancel()
	if t.beginFailed {
		if err := t.beginAfterFailure(ctx); err != nil {
			return nil, err
		}
	}
	if t.id == nil {
		if len(t.mutations) == 0 {
			return nil, nil // nothing ran and nothing was written: nothing to commit
		}
		if err := t.begin(ctx, t.mutationKey); err != nil {
			return nil, err
		}
	}
	req := &spannerpb.CommitRequest{
		Session:           t.session,
		Transaction:       &spannerpb.CommitRequest_TransactionId{TransactionId: t.id},
		Mutations:         t.mutations,
		ReturnCommitStats: t.Options.CommitStats,
		RequestOptions:    t.commitRequestOptions(),
		PrecommitToken:    t.precommit,
	}
	if t.Options.CommitDelay > 0 {
		req.MaxCommitDelay = durationpb.New(t.Options.CommitDelay)
	}
	ctx, op := t.startCommit(ctx, req)
	ctx = t.host.SessionContext(ctx, t.session, true)
	commit := func(ctx context.Context) (*spannerpb.CommitResponse, error) {
		return t.host.Spanner().Commit(ctx, req)
	}
	// A Commit is retried only where it cannot have been applied, and a
	// failure that leaves that open is a *CommitOutcomeUnknownError, which
	// no abort replay follows (commit_outcome.go).
	resp, err := CallCommit(ctx, t.report("Commit"), commit)
	if err == nil && resp.GetPrecommitToken() != nil {
		req.PrecommitToken = resp.GetPrecommitToken()
		// The server has the mutations already: the official client
		// retries without them.
		req.Mutations = nil
		resp, err = CallCommit(ctx, t.report("Commit"), commit)
	}
	endCommit(&op, resp, err)
	return resp, err
}

// Commit commits a read-write transaction, replaying it first whenever
// Spanner aborts it (if Options.RetryAborts). The response is nil when
// nothing ran and nothing was written.
func (t *Txn) Commit(ctx context.Context) (*spannerpb.CommitResponse, error) {
	var resp *spannerpb.CommitResponse
	err := t.withAbortReplay(ctx, func() (err error) {
		resp, err = t.CommitOnce(ctx)
		return err
	})
	return resp, err
}

// CommitWrites commits a read-write transaction that only carries
// buffered mutations (Apply): it begins with BeginTransaction carrying the
// mutation key (CommitOnce does that when nothing began it), or without a
// key when there are no mutations, as the official client does. An abort
// runs both again in a new transaction.
//
// It is an Apply operation (its span the parent of each attempt's Commit).
func (t *Txn) CommitWrites(ctx context.Context) (resp *spannerpb.CommitResponse, err error) {
	ctx, op := t.startApply(ctx)
	defer op.EndErr(&err)
	return RetryAborted(ctx, t.host.Telemetry(), MaxAbortReplays, func() (*spannerpb.CommitResponse, error) {
		if len(t.mutations) == 0 && t.id == nil {
			if err := t.begin(ctx, nil); err != nil {
				return nil, err
			}
		}
		resp, err := t.CommitOnce(ctx)
		if IsAborted(err) {
			t.Restart()
		}
		return resp, err
	})
}

func (t *Txn) commitRequestOptions() *spannerpb.RequestOptions {
	if t.Options.CommitPriority == spannerpb.RequestOptions_PRIORITY_UNSPECIFIED && t.Options.Tag == "" {
		return nil
	}
	return &spannerpb.RequestOptions{Priority: t.Options.CommitPriority, TransactionTag: t.Options.Tag}
}
