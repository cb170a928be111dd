package fakespanner

import (
	"context"
	"fmt"
	"strconv"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/emptypb"
	"google.golang.org/protobuf/types/known/timestamppb"
)

const sessionResourceType = "type.googleapis.com/google.spanner.v1.Session"

// txn is a transaction begun on the server.
type txn struct {
	id          string
	session     string
	readWrite   bool
	multiplexed bool
	done        bool
	seq         int32 // last precommit token sequence number
}

// sessionNotFound is Spanner's error for an unknown session: NOT_FOUND with
// a ResourceInfo detail naming the session.
func sessionNotFound(name string) error {
	st := status.New(codes.NotFound, "Session not found: "+name)
	if d, err := st.WithDetails(&errdetails.ResourceInfo{ResourceType: sessionResourceType, ResourceName: name}); err == nil {
		st = d
	}
	return st.Err()
}

// Sessions returns the live sessions.
func (s *Server) Sessions() []*spannerpb.Session {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*spannerpb.Session, 0, len(s.sessions))
	for _, ss := range s.sessions {
		out = append(out, ss)
	}
	return out
}

// DropSession forgets a session as if Spanner had garbage-collected it:
// later requests naming it fail with "Session not found". It reports
// whether the session existed.
func (s *Server) DropSession(name string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.sessions[name]
	delete(s.sessions, name)
	return ok
}

func (s *Server) newSession(db string, tmpl *spannerpb.Session) *spannerpb.Session {
	s.nextID++
	ss := &spannerpb.Session{
		Name:                   db + "/sessions/fake-" + strconv.Itoa(s.nextID),
		Labels:                 tmpl.GetLabels(),
		CreateTime:             timestamppb.Now(),
		ApproximateLastUseTime: timestamppb.Now(),
		CreatorRole:            tmpl.GetCreatorRole(),
		Multiplexed:            tmpl.GetMultiplexed(),
	}
	s.sessions[ss.Name] = ss
	return ss
}

// CreateSession creates a session (multiplexed when the request asks).
func (s *Server) CreateSession(_ context.Context, req *spannerpb.CreateSessionRequest) (*spannerpb.Session, error) {
	if req.GetDatabase() == "" {
		return nil, status.Error(codes.InvalidArgument, "fakespanner: CreateSession without database")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.newSession(req.GetDatabase(), req.GetSession()), nil
}

// BatchCreateSessions creates session_count sessions (at most 100 per call,
// like Spanner, which may return fewer than asked).
func (s *Server) BatchCreateSessions(_ context.Context, req *spannerpb.BatchCreateSessionsRequest) (*spannerpb.BatchCreateSessionsResponse, error) {
	if req.GetDatabase() == "" {
		return nil, status.Error(codes.InvalidArgument, "fakespanner: BatchCreateSessions without database")
	}
	n := int(req.GetSessionCount())
	if n <= 0 {
		return nil, status.Errorf(codes.InvalidArgument, "fakespanner: session_count %d must be positive", n)
	}
	n = min(n, 100)
	s.mu.Lock()
	defer s.mu.Unlock()
	resp := &spannerpb.BatchCreateSessionsResponse{}
	for range n {
		resp.Session = append(resp.Session, s.newSession(req.GetDatabase(), req.GetSessionTemplate()))
	}
	return resp, nil
}

// GetSession returns a live session or NOT_FOUND.
func (s *Server) GetSession(_ context.Context, req *spannerpb.GetSessionRequest) (*spannerpb.Session, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ss, ok := s.sessions[req.GetName()]
	if !ok {
		return nil, sessionNotFound(req.GetName())
	}
	return ss, nil
}

// DeleteSession deletes a session or returns NOT_FOUND.
func (s *Server) DeleteSession(_ context.Context, req *spannerpb.DeleteSessionRequest) (*emptypb.Empty, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.sessions[req.GetName()]; !ok {
		return nil, sessionNotFound(req.GetName())
	}
	delete(s.sessions, req.GetName())
	return &emptypb.Empty{}, nil
}

// session looks up a live session; s.mu must be held.
func (s *Server) sessionLocked(name string) (*spannerpb.Session, error) {
	if name == "" {
		return nil, status.Error(codes.InvalidArgument, "fakespanner: request without session")
	}
	ss, ok := s.sessions[name]
	if !ok {
		return nil, sessionNotFound(name)
	}
	return ss, nil
}

// beginLocked starts a transaction; s.mu must be held.
func (s *Server) beginLocked(ss *spannerpb.Session, opts *spannerpb.TransactionOptions) (*txn, error) {
	if opts == nil || opts.GetMode() == nil {
		return nil, status.Error(codes.InvalidArgument, "fakespanner: transaction options without a mode")
	}
	s.nextID++
	t := &txn{
		id:          "fake-tx-" + strconv.Itoa(s.nextID),
		session:     ss.GetName(),
		readWrite:   opts.GetReadWrite() != nil || opts.GetPartitionedDml() != nil,
		multiplexed: ss.GetMultiplexed(),
	}
	s.txns[t.id] = t
	return t, nil
}

// precommitLocked returns the next precommit token of a read-write
// transaction on a multiplexed session, or nil; s.mu must be held.
func (s *Server) precommitLocked(t *txn) *spannerpb.MultiplexedSessionPrecommitToken {
	if t == nil || !t.readWrite || !t.multiplexed {
		return nil
	}
	t.seq++
	return &spannerpb.MultiplexedSessionPrecommitToken{
		PrecommitToken: []byte(fmt.Sprintf("fake-pt-%s-%d", t.id, t.seq)),
		SeqNum:         t.seq,
	}
}

// txnByIDLocked finds a transaction that can still be used; s.mu must be
// held.
func (s *Server) txnByIDLocked(id []byte) (*txn, error) {
	t, ok := s.txns[string(id)]
	if !ok {
		return nil, status.Errorf(codes.NotFound, "Transaction not found: %q", id)
	}
	if t.done {
		return nil, status.Errorf(codes.FailedPrecondition, "fakespanner: transaction %q was already committed or rolled back", id)
	}
	return t, nil
}

// BeginTransaction starts a transaction. Read-only transactions get a read
// timestamp when asked; read-write transactions on a multiplexed session
// that name a mutation_key get a precommit token.
func (s *Server) BeginTransaction(_ context.Context, req *spannerpb.BeginTransactionRequest) (*spannerpb.Transaction, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ss, err := s.sessionLocked(req.GetSession())
	if err != nil {
		return nil, err
	}
	t, err := s.beginLocked(ss, req.GetOptions())
	if err != nil {
		return nil, err
	}
	out := &spannerpb.Transaction{Id: []byte(t.id)}
	if req.GetOptions().GetReadOnly().GetReturnReadTimestamp() {
		out.ReadTimestamp = timestamppb.Now()
	}
	if req.GetMutationKey() != nil {
		out.PrecommitToken = s.precommitLocked(t)
	}
	return out, nil
}

// Commit commits a transaction begun earlier (NOT_FOUND if unknown,
// FAILED_PRECONDITION if already finished) or a single-use transaction.
func (s *Server) Commit(_ context.Context, req *spannerpb.CommitRequest) (*spannerpb.CommitResponse, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := s.sessionLocked(req.GetSession()); err != nil {
		return nil, err
	}
	switch tx := req.GetTransaction().(type) {
	case *spannerpb.CommitRequest_TransactionId:
		t, err := s.txnByIDLocked(tx.TransactionId)
		if err != nil {
			return nil, err
		}
		if !t.readWrite {
			return nil, status.Error(codes.FailedPrecondition, "fakespanner: Commit of a read-only transaction")
		}
		// Like Spanner, a read-write transaction on a multiplexed session
		// commits only with the latest precommit token it was given.
		if t.seq > 0 && req.GetPrecommitToken().GetSeqNum() != t.seq {
			return nil, status.Errorf(codes.FailedPrecondition,
				"fakespanner: Commit with precommit token %v, want the latest (seq %d)", req.GetPrecommitToken(), t.seq)
		}
		if s.commitRetries > 0 {
			// Spanner may answer a commit with a newer token to commit
			// with instead.
			s.commitRetries--
			return &spannerpb.CommitResponse{MultiplexedSessionRetry: &spannerpb.CommitResponse_PrecommitToken{
				PrecommitToken: s.precommitLocked(t),
			}}, nil
		}
		t.done = true
	case *spannerpb.CommitRequest_SingleUseTransaction:
		if tx.SingleUseTransaction.GetReadWrite() == nil {
			return nil, status.Error(codes.InvalidArgument, "fakespanner: single-use Commit needs read_write options")
		}
	default:
		return nil, status.Error(codes.InvalidArgument, "fakespanner: Commit without a transaction")
	}
	resp := &spannerpb.CommitResponse{CommitTimestamp: timestamppb.Now()}
	if req.GetReturnCommitStats() {
		resp.CommitStats = &spannerpb.CommitResponse_CommitStats{MutationCount: int64(len(req.GetMutations()))}
	}
	return resp, nil
}

// SetCommitRetries makes the next n commits of read-write transactions
// answer with a newer precommit token (CommitResponse's
// multiplexed_session_retry) instead of committing, as Spanner may.
func (s *Server) SetCommitRetries(n int) {
	s.mu.Lock()
	s.commitRetries = n
	s.mu.Unlock()
}

// Rollback ends a transaction. Like Spanner it returns OK also for an
// unknown or finished transaction.
func (s *Server) Rollback(_ context.Context, req *spannerpb.RollbackRequest) (*emptypb.Empty, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := s.sessionLocked(req.GetSession()); err != nil {
		return nil, err
	}
	if t, ok := s.txns[string(req.GetTransactionId())]; ok {
		t.done = true
	}
	return &emptypb.Empty{}, nil
}
