package spannerfasttest

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	adminpb "cloud.google.com/go/spanner/admin/database/apiv1/databasepb"
	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/emptypb"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// service implements google.spanner.v1.Spanner in front of spannertest (the
// engine). Sessions are the engine's, renamed to full resource paths.
// Transactions are kept here: the engine's transactions neither isolate nor
// undo anything, and it mishandles several selectors, so every query runs on
// the engine as a single-use read and every write is applied here as one
// engine commit of mutations.
type service struct {
	spannerpb.UnimplementedSpannerServer
	engine   spannerpb.SpannerClient
	admin    adminpb.DatabaseAdminClient
	database string
	notes    *schemaNotes
	catalog  *catalog

	mu       sync.Mutex
	sessions map[string]*session // by full name
	txs      map[string]*txn     // by id
	nextTx   atomic.Int64

	// engineMu serialises every use of the engine's data: each statement,
	// read, commit and undo is atomic with respect to every other.
	engineMu sync.Mutex
	internal string // engine session for the server's own commits

	// The writer (txlock.go), guarded by mu; released is closed and
	// replaced when the writer's turn ends.
	writer    *txn
	released  chan struct{}
	lockWait  time.Duration
	idleAbort time.Duration
}

type session struct {
	engine      string // the engine's name for it
	multiplexed bool
}

type txKind int

const (
	readWrite txKind = iota
	readOnly
	partitioned
)

func (k txKind) String() string {
	return [...]string{"read-write", "read-only", "partitioned DML"}[k]
}

type txState int

const (
	active txState = iota
	committed
	rolledBack
	aborted
)

type txn struct {
	id       string
	session  string
	kind     txKind
	state    txState
	readTime time.Time
	returnTS bool
	tokens   bool  // precommit tokens are issued (read-write, multiplexed)
	seq      int32 // sequence number of the latest precommit token
	answers  map[int64]proto.Message
	lastUsed time.Time // when it last ran a request as the writer
	failed   error     // a DML statement's failure every later request gets
	undo     undoLog   // its DML, for rollback (guarded by engineMu)
}

func newService(engine spannerpb.SpannerClient, admin adminpb.DatabaseAdminClient, database string, notes *schemaNotes, cat *catalog) *service {
	return &service{
		engine: engine, admin: admin, database: database, notes: notes, catalog: cat,
		sessions: map[string]*session{}, txs: map[string]*txn{},
		released: make(chan struct{}), lockWait: lockWait, idleAbort: idleAbort,
	}
}

func (s *service) rename(sess *spannerpb.Session, database string) *spannerpb.Session {
	if database == "" {
		database = s.database
	}
	name := database + "/sessions/" + sess.GetName()
	s.mu.Lock()
	s.sessions[name] = &session{engine: sess.GetName(), multiplexed: sess.GetMultiplexed()}
	s.mu.Unlock()
	sess.Name = name
	return sess
}

func (s *service) session(name string) (*session, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sess, ok := s.sessions[name]; ok {
		return sess, nil
	}
	return nil, status.Errorf(codes.NotFound, "spannerfasttest: session not found: %s", name)
}

func (s *service) CreateSession(ctx context.Context, req *spannerpb.CreateSessionRequest) (*spannerpb.Session, error) {
	sess, err := s.engine.CreateSession(ctx, req)
	if err != nil {
		return nil, err
	}
	return s.rename(sess, req.GetDatabase()), nil
}

func (s *service) BatchCreateSessions(ctx context.Context, req *spannerpb.BatchCreateSessionsRequest) (*spannerpb.BatchCreateSessionsResponse, error) {
	resp, err := s.engine.BatchCreateSessions(ctx, req)
	if err != nil {
		return nil, err
	}
	for _, sess := range resp.GetSession() {
		s.rename(sess, req.GetDatabase())
	}
	return resp, nil
}

func (s *service) GetSession(ctx context.Context, req *spannerpb.GetSessionRequest) (*spannerpb.Session, error) {
	sess, err := s.session(req.GetName())
	if err != nil {
		return nil, err
	}
	got, err := s.engine.GetSession(ctx, &spannerpb.GetSessionRequest{Name: sess.engine})
	if err != nil {
		return nil, err
	}
	got.Name = req.GetName()
	got.Multiplexed = sess.multiplexed
	return got, nil
}

func (s *service) ListSessions(context.Context, *spannerpb.ListSessionsRequest) (*spannerpb.ListSessionsResponse, error) {
	return nil, unimplemented("ListSessions is not supported")
}

func (s *service) DeleteSession(ctx context.Context, req *spannerpb.DeleteSessionRequest) (*emptypb.Empty, error) {
	sess, err := s.session(req.GetName())
	if err != nil {
		return nil, err
	}
	var open []*txn
	s.mu.Lock()
	delete(s.sessions, req.GetName())
	for id, tx := range s.txs {
		if tx.session == req.GetName() {
			delete(s.txs, id)
			open = append(open, tx)
		}
	}
	s.mu.Unlock()
	for _, tx := range open {
		if err := s.end(ctx, tx, rolledBack); err != nil {
			return nil, err
		}
	}
	return s.engine.DeleteSession(ctx, &spannerpb.DeleteSessionRequest{Name: sess.engine})
}

// newTx registers a transaction with the given options.
func (s *service) newTx(name string, sess *session, opts *spannerpb.TransactionOptions) (*txn, error) {
	tx := &txn{
		id:       fmt.Sprintf("tx-%d", s.nextTx.Add(1)),
		session:  name,
		readTime: time.Now().UTC(),
	}
	switch mode := opts.GetMode().(type) {
	case *spannerpb.TransactionOptions_ReadWrite_:
		tx.kind = readWrite
		tx.tokens = sess.multiplexed
	case *spannerpb.TransactionOptions_ReadOnly_:
		tx.kind = readOnly
		tx.returnTS = mode.ReadOnly.GetReturnReadTimestamp()
	case *spannerpb.TransactionOptions_PartitionedDml_:
		tx.kind = partitioned
	default:
		return nil, invalid("transaction options have no mode (read_write, read_only or partitioned_dml)")
	}
	s.mu.Lock()
	s.txs[tx.id] = tx
	s.mu.Unlock()
	return tx, nil
}

// forget drops a transaction the client never learned about (an inline
// begin whose first statement failed), undoing anything it did.
func (s *service) forget(tx *txn) {
	s.mu.Lock()
	delete(s.txs, tx.id)
	s.mu.Unlock()
	// The statement that failed left nothing to undo; a failure here would
	// have no one to report to.
	_ = s.end(context.Background(), tx, rolledBack)
}

func (s *service) txProto(tx *txn) *spannerpb.Transaction {
	t := &spannerpb.Transaction{Id: []byte(tx.id)}
	if tx.returnTS {
		t.ReadTimestamp = timestamppb.New(tx.readTime)
	}
	return t
}

// token issues the next precommit token of a read-write transaction on a
// multiplexed session; nil for every other transaction.
func (s *service) token(tx *txn) *spannerpb.MultiplexedSessionPrecommitToken {
	if tx == nil || !tx.tokens {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	tx.seq++
	return &spannerpb.MultiplexedSessionPrecommitToken{
		PrecommitToken: []byte(fmt.Sprintf("%s/%d", tx.id, tx.seq)),
		SeqNum:         tx.seq,
	}
}

// lookupTx finds an active transaction of the session.
func (s *service) lookupTx(name string, id []byte) (*txn, error) {
	tx, err := s.findTx(name, id)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := tx.usable(); err != nil {
		return nil, err
	}
	return tx, nil
}

// findTx finds a transaction of the session, whatever its state.
func (s *service) findTx(name string, id []byte) (*txn, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	tx, ok := s.txs[string(id)]
	if !ok || tx.session != name {
		return nil, status.Errorf(codes.NotFound, "spannerfasttest: transaction %q not found in session %s", id, name)
	}
	return tx, nil
}

// selected is the outcome of a TransactionSelector: tx is nil for a
// single-use read-only transaction; begun says the response must carry
// the new transaction.
type selected struct {
	tx    *txn
	begun bool
}

func (s *service) selectTx(name string, sess *session, sel *spannerpb.TransactionSelector) (selected, error) {
	switch v := sel.GetSelector().(type) {
	case nil:
		return selected{}, nil
	case *spannerpb.TransactionSelector_SingleUse:
		if v.SingleUse.GetReadOnly() == nil {
			return selected{}, invalid("single-use transactions must be read-only; use a read-write transaction (begin or id) for writes")
		}
		return selected{}, nil
	case *spannerpb.TransactionSelector_Id:
		tx, err := s.lookupTx(name, v.Id)
		return selected{tx: tx}, err
	case *spannerpb.TransactionSelector_Begin:
		if v.Begin.GetPartitionedDml() != nil {
			return selected{}, invalid("partitioned DML transactions cannot be begun inline; call BeginTransaction")
		}
		tx, err := s.newTx(name, sess, v.Begin)
		return selected{tx: tx, begun: true}, err
	default:
		return selected{}, invalid("unknown transaction selector %T", v)
	}
}

// settle drops an inline-begun transaction when its first statement
// failed, because the client never received its id.
func (s *service) settle(sel selected, err error) {
	if err != nil && sel.begun {
		s.forget(sel.tx)
	}
}

func (s *service) BeginTransaction(ctx context.Context, req *spannerpb.BeginTransactionRequest) (*spannerpb.Transaction, error) {
	sess, err := s.session(req.GetSession())
	if err != nil {
		return nil, err
	}
	tx, err := s.newTx(req.GetSession(), sess, req.GetOptions())
	if err != nil {
		return nil, err
	}
	t := s.txProto(tx)
	if req.GetMutationKey() != nil {
		t.PrecommitToken = s.token(tx)
	}
	return t, nil
}

func (s *service) Commit(ctx context.Context, req *spannerpb.CommitRequest) (*spannerpb.CommitResponse, error) {
	sess, err := s.session(req.GetSession())
	if err != nil {
		return nil, err
	}
	if err := validateMutations(req.GetMutations()); err != nil {
		return nil, err
	}
	var ts time.Time
	switch t := req.GetTransaction().(type) {
	case *spannerpb.CommitRequest_SingleUseTransaction:
		if t.SingleUseTransaction.GetReadWrite() == nil {
			return nil, invalid("a single-use commit needs read_write options")
		}
		err = s.writeAlone(ctx, func() (err error) {
			ts, _, err = s.applyLocked(ctx, req.GetMutations())
			return err
		})
	case *spannerpb.CommitRequest_TransactionId:
		ts, err = s.commitTx(ctx, req.GetSession(), sess, t.TransactionId, req.GetPrecommitToken(), req.GetMutations())
	default:
		return nil, invalid("commit names no transaction")
	}
	if err != nil {
		return nil, err
	}
	resp := &spannerpb.CommitResponse{CommitTimestamp: timestamppb.New(ts)}
	if req.GetReturnCommitStats() {
		resp.CommitStats = &spannerpb.CommitResponse_CommitStats{MutationCount: mutationCount(req.GetMutations())}
	}
	return resp, nil
}

// commitTx commits a read-write transaction: its DML is already on the
// engine, its mutations are applied now. When they fail, the DML is undone
// too and the transaction is over.
func (s *service) commitTx(ctx context.Context, name string, sess *session, id []byte, tok *spannerpb.MultiplexedSessionPrecommitToken, ms []*spannerpb.Mutation) (time.Time, error) {
	tx, err := s.findTx(name, id)
	if err != nil {
		return time.Time{}, err
	}
	s.mu.Lock()
	err = tx.usable()
	failed := tx.failed != nil && tx.state == active
	s.mu.Unlock()
	if failed {
		// The commit of a transaction whose DML failed fails the same way
		// and ends it.
		if uerr := s.end(ctx, tx, rolledBack); uerr != nil {
			return time.Time{}, uerr
		}
	}
	if err != nil {
		return time.Time{}, err
	}
	if err := s.checkCommit(name, tx, tok); err != nil {
		return time.Time{}, err
	}
	leave, err := s.enter(ctx, tx)
	if err != nil {
		return time.Time{}, err
	}
	ts, _, err := s.applyLocked(ctx, ms)
	if err == nil {
		s.mu.Lock()
		tx.state = committed
		s.mu.Unlock()
		tx.undo = undoLog{}
	}
	leave()
	if err != nil {
		if uerr := s.end(ctx, tx, rolledBack); uerr != nil {
			return time.Time{}, uerr
		}
		return time.Time{}, err
	}
	s.release(tx)
	return ts, nil
}

// checkCommit checks that a transaction may commit with the given token.
func (s *service) checkCommit(name string, tx *txn, tok *spannerpb.MultiplexedSessionPrecommitToken) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if tx.kind != readWrite {
		return status.Errorf(codes.FailedPrecondition, "spannerfasttest: cannot commit a %s transaction", tx.kind)
	}
	if tx.seq > 0 {
		want := fmt.Sprintf("%s/%d", tx.id, tx.seq)
		if tok == nil || tok.GetSeqNum() != tx.seq || string(tok.GetPrecommitToken()) != want {
			return status.Errorf(codes.FailedPrecondition,
				"spannerfasttest: commit of a read-write transaction on multiplexed session %s must carry the precommit token with the highest seq_num (%d), got %v",
				name, tx.seq, tok)
		}
	}
	return nil
}

func (s *service) Rollback(ctx context.Context, req *spannerpb.RollbackRequest) (*emptypb.Empty, error) {
	if _, err := s.session(req.GetSession()); err != nil {
		return nil, err
	}
	s.mu.Lock()
	tx, ok := s.txs[string(req.GetTransactionId())]
	var state txState
	if ok {
		state = tx.state
	}
	s.mu.Unlock()
	if !ok || tx.session != req.GetSession() {
		return nil, status.Errorf(codes.NotFound, "spannerfasttest: transaction %q not found in session %s", req.GetTransactionId(), req.GetSession())
	}
	if state == committed {
		return nil, status.Errorf(codes.FailedPrecondition, "spannerfasttest: transaction %q has already been committed", tx.id)
	}
	if err := s.end(ctx, tx, rolledBack); err != nil {
		return nil, err
	}
	return &emptypb.Empty{}, nil
}

// mutationCount approximates Spanner's commit statistics: one per written
// cell and one per deleted key or range; secondary indexes are not counted.
func mutationCount(ms []*spannerpb.Mutation) int64 {
	var n int64
	for _, m := range ms {
		if w := writeOf(m); w != nil {
			n += int64(len(w.GetColumns()) * len(w.GetValues()))
			continue
		}
		ks := m.GetDelete().GetKeySet()
		n += int64(len(ks.GetKeys()) + len(ks.GetRanges()))
		if ks.GetAll() {
			n++
		}
	}
	return n
}

func lower(s string) string { return strings.ToLower(s) }
