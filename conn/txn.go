package conn

import (
	"context"
	"database/sql/driver"
	"time"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/emptypb"

	"github.com/spannerfast/spannerfast/dsn"
	"github.com/spannerfast/spannerfast/internal/transport"
	txnpkg "github.com/spannerfast/spannerfast/internal/txn"
)

// txn is a connection's open transaction, read-only or read-write.
//
// It begins inline: the first statement carries TransactionSelector.Begin
// and the server returns the new id with that statement's result. When that
// statement fails before an id came back, or the result carries none, the
// transaction begins with an explicit BeginTransaction: at once, running
// the statement again, or, for a single statement of a read-write
// transaction that failed, at the next statement (see run).
// begin_transaction_option=EXPLICIT always begins explicitly.
//
// A read-write transaction numbers its DML (seqno), keeps the precommit
// token with the highest sequence number seen (multiplexed sessions need it
// to commit), buffers mutations for the commit, and records what every
// statement returned so that an aborted transaction can be replayed (see
// txn_replay.go).
type txn struct {
	c        *Conn
	session  string
	readOnly bool
	opts     *spannerpb.TransactionOptions // how to begin
	explicit bool                          // begin with BeginTransaction

	id     []byte
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
	tag         string
	priority    spannerpb.RequestOptions_Priority
	commitDelay time.Duration
	commitStats bool
	retryAborts bool
	log         []replayable
	retrying    bool  // a replay is running: statements are not logged again
	lastStmt    bool  // its statements are the transaction's last (autocommit DML)
	failed      error // a replay saw different data: the transaction is over
	ctx         context.Context

	// deadlineFixed: its first statement fixed deadline, the
	// transaction_timeout bound (zero: none); see txnDeadline.
	deadlineFixed bool
	deadline      time.Time
}

// newReadWrite prepares a read-write transaction with the connection's
// settings; isolation overrides isolation_level when not unspecified.
func (c *Conn) newReadWrite(session string, isolation spannerpb.TransactionOptions_IsolationLevel, retryAborts bool) *txn {
	if isolation == spannerpb.TransactionOptions_ISOLATION_LEVEL_UNSPECIFIED {
		// dsn validated isolation_level: it maps without error.
		isolation, _ = isolationFor(c.props().IsolationLevel)
	}
	t := &txn{
		c:       c,
		session: session,
		opts: &spannerpb.TransactionOptions{
			Mode: &spannerpb.TransactionOptions_ReadWrite_{ReadWrite: &spannerpb.TransactionOptions_ReadWrite{
				ReadLockMode: c.props().ReadLockMode.Proto(),
			}},
			IsolationLevel:              isolation,
			ExcludeTxnFromChangeStreams: c.props().ExcludeTxnFromChangeStreams,
		},
		explicit:    c.props().BeginTransactionOption == dsn.BeginTransactionExplicit,
		tag:         c.state.TakeTransactionTag(),
		priority:    c.props().CommitPriority.Proto(),
		commitDelay: c.props().MaxCommitDelay,
		commitStats: c.props().ReturnCommitStats,
		retryAborts: retryAborts,
	}
	return t
}

// newReadOnly prepares a multi-use read-only transaction at the
// connection's read_only_staleness. Spanner allows only strong, exact
// staleness and read timestamps for multi-use transactions.
func (c *Conn) newReadOnly(session string) (*txn, error) {
	st := c.props().ReadOnlyStaleness
	if st.Kind == dsn.StalenessMax || st.Kind == dsn.StalenessMinReadTimestamp {
		return nil, status.Errorf(codes.InvalidArgument,
			"spannerfast: read_only_staleness %s is for single queries only; a read-only transaction needs STRONG, EXACT_STALENESS or READ_TIMESTAMP", st)
	}
	ro := st.ReadOnly()
	ro.ReturnReadTimestamp = true
	return &txn{
		c:        c,
		session:  session,
		readOnly: true,
		opts:     &spannerpb.TransactionOptions{Mode: &spannerpb.TransactionOptions_ReadOnly_{ReadOnly: ro}},
		explicit: c.props().BeginTransactionOption == dsn.BeginTransactionExplicit,
	}, nil
}

// leader reports whether the transaction's requests go to the leader.
func (t *txn) leader() bool { return !t.readOnly }

// selector returns the selector of the next statement and whether it begins
// the transaction inline. An explicit begin happens here.
func (t *txn) selector(ctx context.Context) (*spannerpb.TransactionSelector, bool, error) {
	if t.beginFailed {
		if err := t.beginAfterFailure(ctx); err != nil {
			return nil, false, err
		}
	}
	if t.id == nil && t.explicit {
		if err := t.begin(ctx, nil); err != nil {
			return nil, false, err
		}
	}
	if t.id != nil {
		return &spannerpb.TransactionSelector{Selector: &spannerpb.TransactionSelector_Id{Id: t.id}}, false, nil
	}
	return &spannerpb.TransactionSelector{Selector: &spannerpb.TransactionSelector_Begin{Begin: t.opts}}, true, nil
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
func (t *txn) run(ctx context.Context, deferBegin bool, attempt func(*spannerpb.TransactionSelector) ([]byte, error)) error {
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
	if err != nil && deferBegin && !t.readOnly && !t.lastStmt && !txnpkg.IsAborted(err) {
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

// begin runs BeginTransaction. mutationKey is set for a read-write
// transaction that only writes mutations (multiplexed sessions need one).
func (t *txn) begin(ctx context.Context, mutationKey *spannerpb.Mutation) error {
	req := &spannerpb.BeginTransactionRequest{
		Session:        t.session,
		Options:        t.opts,
		RequestOptions: t.requestOptions(""),
		MutationKey:    mutationKey,
	}
	tx, err := transport.CallUnary(t.c.client.SessionContext(ctx, t.session, t.leader()), func(ctx context.Context) (*spannerpb.Transaction, error) {
		return t.c.client.Spanner().BeginTransaction(ctx, req)
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
func (t *txn) begunWith(id []byte, readTS time.Time) {
	if t.id == nil && len(id) > 0 {
		t.id = append([]byte(nil), id...)
	}
	if t.readTS.IsZero() && !readTS.IsZero() {
		t.readTS = readTS
	}
}

// nextSeqno numbers a DML request; Spanner uses it to apply a retried
// request once.
func (t *txn) nextSeqno() int64 {
	t.seqno++
	return t.seqno
}

// requestOptions returns the options of a request in the transaction:
// the statement's tag and priority and the transaction's tag.
func (t *txn) requestOptions(statementTag string) *spannerpb.RequestOptions {
	prio := t.c.props().RPCPriority.Proto()
	if prio == spannerpb.RequestOptions_PRIORITY_UNSPECIFIED && statementTag == "" && t.tag == "" {
		return nil
	}
	return &spannerpb.RequestOptions{Priority: prio, RequestTag: statementTag, TransactionTag: t.tag}
}

// notePrecommit keeps the precommit token with the highest sequence number.
func (t *txn) notePrecommit(pt *spannerpb.MultiplexedSessionPrecommitToken) {
	if pt != nil && (t.precommit == nil || pt.GetSeqNum() >= t.precommit.GetSeqNum()) {
		t.precommit = pt
	}
}

// notePrecommitBytes is notePrecommit for a token still encoded (streams).
func (t *txn) notePrecommitBytes(b []byte) {
	pt := new(spannerpb.MultiplexedSessionPrecommitToken)
	if proto.Unmarshal(b, pt) == nil {
		t.notePrecommit(pt)
	}
}

// commitOnce sends Commit (beginning first if nothing began the
// transaction). A response asking for a retry with a newer precommit token
// is retried once with it, as the official client does.
func (t *txn) commitOnce(ctx context.Context) (*spannerpb.CommitResponse, error) {
	ctx, cancel := t.c.statementContext(ctx) // statement_timeout bounds a commit too
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
		ReturnCommitStats: t.commitStats,
		RequestOptions:    t.commitRequestOptions(),
		PrecommitToken:    t.precommit,
	}
	if t.commitDelay > 0 {
		req.MaxCommitDelay = durationpb.New(t.commitDelay)
	}
	ctx = t.c.client.SessionContext(ctx, t.session, true)
	commit := func(ctx context.Context) (*spannerpb.CommitResponse, error) {
		return t.c.client.Spanner().Commit(ctx, req)
	}
	// A Commit is retried only where it cannot have been applied, and a
	// failure that leaves that open is a *CommitOutcomeUnknownError, which
	// no abort replay follows (commit_outcome.go).
	resp, err := txnpkg.CallCommit(ctx, commit)
	if err == nil && resp.GetPrecommitToken() != nil {
		req.PrecommitToken = resp.GetPrecommitToken()
		// The server has the mutations already: the official client
		// retries without them.
		req.Mutations = nil
		resp, err = txnpkg.CallCommit(ctx, commit)
	}
	return resp, err
}

func (t *txn) commitRequestOptions() *spannerpb.RequestOptions {
	if t.priority == spannerpb.RequestOptions_PRIORITY_UNSPECIFIED && t.tag == "" {
		return nil
	}
	return &spannerpb.RequestOptions{Priority: t.priority, TransactionTag: t.tag}
}

// rollback ends a begun read-write transaction on the server. Spanner
// rolls back on its own what is never committed, so an error here loses
// nothing; it is returned for the caller to report.
func (t *txn) rollback(ctx context.Context) error {
	if t.readOnly || t.id == nil {
		return nil
	}
	req := &spannerpb.RollbackRequest{Session: t.session, TransactionId: t.id}
	_, err := transport.CallUnary(t.c.client.SessionContext(ctx, t.session, true), func(ctx context.Context) (*emptypb.Empty, error) {
		return t.c.client.Spanner().Rollback(ctx, req)
	})
	return err
}

// Tx is the driver.Tx of a connection's transaction.
type Tx struct{ c *Conn }

var _ driver.Tx = Tx{}

// Commit commits a read-write transaction (replaying it first if Spanner
// aborted it and retry_aborts_internally is on) or ends a read-only one.
func (x Tx) Commit() error { return x.c.commit(context.Background()) }

// Rollback rolls the transaction back.
func (x Tx) Rollback() error { return x.c.rollback(context.Background()) }
