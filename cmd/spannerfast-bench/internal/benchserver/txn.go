package benchserver

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/emptypb"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/spannerfast/spannerfast/cmd/spannerfast-bench/internal/workload"
)

// Transactions. The server keeps no transaction state: a transaction id
// says what the transaction is (ids of read-write transactions start with
// "rw-"), every DML statement changes one row, and Commit changes nothing.
// What it checks is what a client must do right for Spanner to accept it:
// DML runs in a read-write transaction, and a read-write transaction on a
// multiplexed session commits with a precommit token (which every
// read-write answer on such a session carries).
//
// The answers are built once and, for the unary calls, encoded once (see
// preEncoded), so that serving a write costs the server little; its CPU is
// not measured, but it shares the machine with the client.

// multiplexedMark starts the last element of a multiplexed session's name.
const multiplexedMark = "m"

func isMultiplexed(session string) bool {
	i := strings.LastIndex(session, "/sessions/")
	return i >= 0 && strings.HasPrefix(session[i+len("/sessions/"):], multiplexedMark)
}

// rwPrefix starts the id of every read-write transaction.
var rwPrefix = []byte("rw-")

var (
	fixedTime = timestamppb.New(time.Date(2025, 1, 2, 3, 4, 5, 6000, time.UTC))

	// The transactions an inline begin returns, read-only and read-write.
	inlineRO = &spannerpb.Transaction{Id: []byte("ro-inline"), ReadTimestamp: fixedTime}
	inlineRW = &spannerpb.Transaction{Id: []byte("rw-inline")}

	precommitToken = &spannerpb.MultiplexedSessionPrecommitToken{PrecommitToken: []byte("bench-precommit"), SeqNum: 1}
	// precommitField is precommitToken as a PartialResultSet field.
	precommitField []byte

	// BeginTransaction's answers: read-only, partitioned DML, read-write
	// without and with a precommit token.
	begunRO    = preEncode(&spannerpb.Transaction{Id: []byte("ro-begun"), ReadTimestamp: fixedTime})
	begunPDML  = preEncode(&spannerpb.Transaction{Id: []byte("rw-pdml")})
	begunRW    = preEncode(&spannerpb.Transaction{Id: []byte("rw-begun")})
	begunRWTok = preEncode(&spannerpb.Transaction{Id: []byte("rw-begun"), PrecommitToken: precommitToken})

	// dmlAnswers[begin][precommit] is the answer to one DML statement:
	// one row changed, the transaction when it began inline, the token on
	// a multiplexed session.
	dmlAnswers [2][2]*spannerpb.ResultSet
	// dmlStreamAnswers[begin][precommit] is the same answer as the one
	// message of ExecuteStreamingSql (go-sql-spanner sends DML in a
	// transaction that way).
	dmlStreamAnswers [2][2]*spannerpb.PartialResultSet

	commitAnswer = preEncode(&spannerpb.CommitResponse{CommitTimestamp: fixedTime})
	emptyAnswer  = preEncode(&emptypb.Empty{})
)

func init() {
	var err error
	if precommitField, err = workload.PrecommitField(precommitToken); err != nil {
		panic(err) // a fixed message always encodes
	}
	for b := range 2 {
		for p := range 2 {
			rs := &spannerpb.ResultSet{Stats: &spannerpb.ResultSetStats{
				RowCount: &spannerpb.ResultSetStats_RowCountExact{RowCountExact: 1}}}
			if b == 1 {
				rs.Metadata = &spannerpb.ResultSetMetadata{Transaction: inlineRW}
			}
			if p == 1 {
				rs.PrecommitToken = precommitToken
			}
			dmlAnswers[b][p] = preEncode(rs)
			dmlStreamAnswers[b][p] = preEncode(&spannerpb.PartialResultSet{
				Metadata: &spannerpb.ResultSetMetadata{RowType: &spannerpb.StructType{}, Transaction: rs.Metadata.GetTransaction()},
				Stats:    rs.Stats, PrecommitToken: rs.PrecommitToken, Last: true})
		}
	}
}

// preEncoded maps answers that never change to their encoding; the codec
// sends those bytes instead of marshalling again.
var preEncoded sync.Map // proto.Message -> []byte

func preEncode[M proto.Message](m M) M {
	if b, err := proto.Marshal(m); err == nil {
		preEncoded.Store(proto.Message(m), b)
	}
	return m
}

// parts is a message sent as the concatenation of its parts (see codec).
type parts [][]byte

// Stats counts the calls the server answered (tests check what clients
// sent with them).
type Stats struct {
	Begins          int64 // BeginTransaction calls
	MutationKeys    int64 // of them, with a mutation_key
	InlineBegins    int64 // statements that began their transaction
	DML             int64 // ExecuteSql DML statements
	Batches         int64 // ExecuteBatchDml calls
	BatchStatements int64
	Commits         int64
	Mutations       int64 // in commits
	Rollbacks       int64
	// PartitionQueries and PartitionReads count PartitionQuery calls and
	// ExecuteStreamingSql calls with a partition token (partitions.go).
	PartitionQueries int64
	PartitionReads   int64
}

type counters struct {
	begins, mutationKeys, inlineBegins, dml, batches, batchStatements, commits, mutations, rollbacks atomic.Int64
	partitionQueries, partitionReads                                                                 atomic.Int64
}

// Stats returns the counts so far.
func (s *Server) Stats() Stats {
	c := &s.stats
	return Stats{Begins: c.begins.Load(), MutationKeys: c.mutationKeys.Load(), InlineBegins: c.inlineBegins.Load(),
		DML: c.dml.Load(), Batches: c.batches.Load(), BatchStatements: c.batchStatements.Load(),
		Commits: c.commits.Load(), Mutations: c.mutations.Load(), Rollbacks: c.rollbacks.Load(),
		PartitionQueries: c.partitionQueries.Load(), PartitionReads: c.partitionReads.Load()}
}

// isDML reports whether sql starts with INSERT, UPDATE or DELETE.
func isDML(sql string) bool {
	s := strings.TrimLeft(sql, " \t\r\n")
	for _, kw := range []string{"INSERT", "UPDATE", "DELETE"} {
		if len(s) > len(kw) && strings.EqualFold(s[:len(kw)], kw) && strings.ContainsRune(" \t\r\n(", rune(s[len(kw)])) {
			return true
		}
	}
	return false
}

// txInfo is what a statement's transaction selector means for its answer.
type txInfo struct {
	begin     *spannerpb.Transaction // the transaction an inline begin returns
	rw        bool
	precommit bool // the answer carries the precommit token
}

// txOf reads a statement's selector. DML needs a read-write transaction.
func (s *Server) txOf(session string, sel *spannerpb.TransactionSelector, dml bool) (txInfo, error) {
	var tx txInfo
	switch {
	case sel.GetBegin() != nil:
		s.stats.inlineBegins.Add(1)
		tx.rw = sel.GetBegin().GetReadWrite() != nil
		tx.begin = inlineRO
		if tx.rw {
			tx.begin = inlineRW
		}
	case len(sel.GetId()) > 0:
		tx.rw = bytes.HasPrefix(sel.GetId(), rwPrefix)
	}
	if dml && !tx.rw {
		return tx, status.Error(codes.FailedPrecondition, "DML needs a read-write transaction (begin one or use an id of one)")
	}
	tx.precommit = tx.rw && isMultiplexed(session)
	return tx, nil
}

// prepareBegin keeps what an inline begin changes in the first message of
// w's result: the metadata field, then with the transaction.
func (s *Server) prepareBegin(w *workload.Workload, first workload.Message) error {
	plain, err := w.MetadataField(nil)
	if err != nil {
		return err
	}
	if !bytes.HasPrefix(first.Body, plain) {
		return fmt.Errorf("the first message of %s does not start with its metadata", w.Name)
	}
	ro, err := w.MetadataField(inlineRO)
	if err != nil {
		return err
	}
	rw, err := w.MetadataField(inlineRW)
	if err != nil {
		return err
	}
	s.metaLen[w.SQL] = len(plain)
	s.beginMeta[w.SQL] = [2][]byte{ro, rw}
	return nil
}

// txMessage is message i of a result as a transaction gets it: the stored
// bytes, but on the first message of an inline begin with the transaction
// in the metadata, and on the last of a read-write transaction on a
// multiplexed session with the precommit token.
func (s *Server) txMessage(sql string, msgs []workload.Message, i int, tx txInfo) any {
	m := &msgs[i]
	begin := i == 0 && tx.begin != nil
	token := i == len(msgs)-1 && tx.precommit
	if !begin && !token {
		return m
	}
	p := parts{nil, m.Body, m.Tail, nil}
	if begin {
		idx := 0
		if tx.rw {
			idx = 1
		}
		p[0], p[1] = s.beginMeta[sql][idx], m.Body[s.metaLen[sql]:]
	}
	if token {
		p[3] = precommitField
	}
	return &p
}

// BeginTransaction returns a transaction id; a read-write one on a
// multiplexed session comes with a precommit token.
func (s *Server) BeginTransaction(_ context.Context, req *spannerpb.BeginTransactionRequest) (*spannerpb.Transaction, error) {
	s.stats.begins.Add(1)
	if req.GetMutationKey() != nil {
		s.stats.mutationKeys.Add(1)
	}
	opts := req.GetOptions()
	switch {
	case opts.GetReadWrite() != nil && isMultiplexed(req.GetSession()):
		return begunRWTok, nil
	case opts.GetReadWrite() != nil:
		return begunRW, nil
	case opts.GetPartitionedDml() != nil:
		return begunPDML, nil
	case opts.GetReadOnly() != nil:
		return begunRO, nil
	}
	return nil, status.Error(codes.InvalidArgument, "BeginTransaction: options name no mode")
}

// Commit commits nothing. It refuses what Spanner refuses: a transaction
// that is not read-write, and on a multiplexed session a commit without a
// precommit token.
func (s *Server) Commit(_ context.Context, req *spannerpb.CommitRequest) (*spannerpb.CommitResponse, error) {
	id := req.GetTransactionId()
	switch {
	case req.GetSingleUseTransaction() != nil:
	case !bytes.HasPrefix(id, rwPrefix):
		return nil, status.Errorf(codes.FailedPrecondition, "Commit: transaction %q is not a read-write transaction", id)
	case isMultiplexed(req.GetSession()) && req.GetPrecommitToken() == nil:
		return nil, status.Errorf(codes.InvalidArgument, "Commit: transaction %q on a multiplexed session needs a precommit token", id)
	}
	s.stats.commits.Add(1)
	s.stats.mutations.Add(int64(len(req.GetMutations())))
	if req.GetReturnCommitStats() {
		return &spannerpb.CommitResponse{CommitTimestamp: fixedTime,
			CommitStats: &spannerpb.CommitResponse_CommitStats{MutationCount: int64(len(req.GetMutations()))}}, nil
	}
	return commitAnswer, nil
}

// Rollback rolls back nothing.
func (s *Server) Rollback(context.Context, *spannerpb.RollbackRequest) (*emptypb.Empty, error) {
	s.stats.rollbacks.Add(1)
	return emptyAnswer, nil
}

// executeDML answers one DML statement: one row changed.
func (s *Server) executeDML(req *spannerpb.ExecuteSqlRequest) (*spannerpb.ResultSet, error) {
	tx, err := s.txOf(req.GetSession(), req.GetTransaction(), true)
	if err != nil {
		return nil, err
	}
	s.stats.dml.Add(1)
	return dmlAnswers[b2i(tx.begin != nil)][b2i(tx.precommit)], nil
}

// streamDML answers one DML statement sent with ExecuteStreamingSql.
func (s *Server) streamDML(req *spannerpb.ExecuteSqlRequest, stream spannerpb.Spanner_ExecuteStreamingSqlServer) error {
	tx, err := s.txOf(req.GetSession(), req.GetTransaction(), true)
	if err != nil {
		return err
	}
	s.stats.dml.Add(1)
	return stream.Send(dmlStreamAnswers[b2i(tx.begin != nil)][b2i(tx.precommit)])
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// batchKey selects a cached ExecuteBatchDml answer.
type batchKey struct {
	n                int
	begin, precommit bool
}

var batchAnswers sync.Map // batchKey -> *spannerpb.ExecuteBatchDmlResponse

// ExecuteBatchDml answers a batch of DML statements: one row changed by
// each.
func (s *Server) ExecuteBatchDml(_ context.Context, req *spannerpb.ExecuteBatchDmlRequest) (*spannerpb.ExecuteBatchDmlResponse, error) {
	tx, err := s.txOf(req.GetSession(), req.GetTransaction(), true)
	if err != nil {
		return nil, err
	}
	stmts := req.GetStatements()
	if len(stmts) == 0 {
		return nil, status.Error(codes.InvalidArgument, "ExecuteBatchDml: no statements")
	}
	for i, st := range stmts {
		if !isDML(st.GetSql()) {
			return nil, status.Errorf(codes.InvalidArgument, "ExecuteBatchDml: statement %d is not DML: %q", i, st.GetSql())
		}
	}
	s.stats.batches.Add(1)
	s.stats.batchStatements.Add(int64(len(stmts)))
	key := batchKey{n: len(stmts), begin: tx.begin != nil, precommit: tx.precommit}
	if a, ok := batchAnswers.Load(key); ok {
		return a.(*spannerpb.ExecuteBatchDmlResponse), nil
	}
	resp := &spannerpb.ExecuteBatchDmlResponse{}
	for i := range stmts {
		// The first answer of an inline begin carries the transaction.
		rs := dmlAnswers[b2i(key.begin && i == 0)][0]
		resp.ResultSets = append(resp.ResultSets, rs)
	}
	if key.precommit {
		resp.PrecommitToken = precommitToken
	}
	a, _ := batchAnswers.LoadOrStore(key, preEncode(resp))
	return a.(*spannerpb.ExecuteBatchDmlResponse), nil
}
