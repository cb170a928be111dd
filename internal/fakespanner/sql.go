package fakespanner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	spb "google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// Result is the scripted answer to one SQL text.
//
// ExecuteStreamingSql sends Wire when set, else Messages when set, else
// Split(ResultSet, Split). ExecuteSql (unary) and ExecuteBatchDml return
// ResultSet when set, else Merge(Messages) (or of the decoded Wire). For DML
// give a ResultSet whose stats carry row_count_exact (see DML).
type Result struct {
	// Wire holds encoded PartialResultSets sent byte for byte, for wire
	// shapes the proto encoder cannot produce: unknown fields, repeated or
	// reordered fields, invalid UTF-8. Resume tokens are found in the
	// messages that decode; messages that do not decode are never altered
	// (no inline-begin transaction or precommit token is added to them).
	Wire      [][]byte
	Messages  []*spannerpb.PartialResultSet
	ResultSet *spannerpb.ResultSet
	Split     SplitOptions
	// Faults fire at stream positions; see Fault.
	Faults []Fault
	// ResendMetadata makes a resumed stream repeat the metadata on its
	// first message. By default only a fresh stream carries metadata.
	ResendMetadata bool
}

// script is a compiled Result.
type script struct {
	sql    string
	msgs   []*spannerpb.PartialResultSet
	wire   []encoded // msgs in wire form
	rs     *spannerpb.ResultSet
	rsErr  error // why there is no unary result
	tokens map[string]int
	faults []*faultState
	resend bool
	err    error // the Result is unusable
}

func compile(sql string, r *Result) *script {
	sc := &script{sql: sql}
	if r == nil {
		sc.err = errors.New("nil Result")
		return sc
	}
	sc.resend = r.ResendMetadata
	for _, f := range r.Faults {
		sc.faults = append(sc.faults, newFaultState(f))
	}
	var rs *spannerpb.ResultSet
	if r.ResultSet != nil {
		rs = proto.Clone(r.ResultSet).(*spannerpb.ResultSet)
	}
	switch {
	case len(r.Wire) > 0:
		sc.wire = make([]encoded, len(r.Wire))
		sc.msgs = make([]*spannerpb.PartialResultSet, len(r.Wire))
		var undecodable error
		for i, b := range r.Wire {
			sc.wire[i] = encoded(bytes.Clone(b))
			m := &spannerpb.PartialResultSet{}
			if err := proto.Unmarshal(b, m); err != nil {
				undecodable = fmt.Errorf("wire message %d does not decode: %w", i, err)
				continue
			}
			sc.msgs[i] = m
		}
		if rs == nil && undecodable != nil {
			sc.rsErr = undecodable
		}
	case len(r.Messages) > 0:
		sc.msgs = make([]*spannerpb.PartialResultSet, len(r.Messages))
		for i, m := range r.Messages {
			sc.msgs[i] = proto.Clone(m).(*spannerpb.PartialResultSet)
		}
	case rs != nil:
		msgs, err := SplitChecked(rs, r.Split)
		if err != nil {
			sc.err = err
			return sc
		}
		sc.msgs = msgs
	default:
		sc.err = errors.New("Result has neither Wire, Messages nor ResultSet")
		return sc
	}
	switch {
	case rs != nil:
		sc.rs = rs
	case sc.rsErr == nil:
		sc.rs, sc.rsErr = Merge(sc.msgs)
	}
	if sc.wire == nil {
		sc.wire = make([]encoded, len(sc.msgs))
		for i, m := range sc.msgs {
			b, err := proto.Marshal(m)
			if err != nil {
				sc.err = fmt.Errorf("message %d does not encode: %w", i, err)
				return sc
			}
			sc.wire[i] = b
		}
	}
	sc.tokens = map[string]int{}
	for i, m := range sc.msgs {
		if tok := m.GetResumeToken(); len(tok) > 0 {
			if j, dup := sc.tokens[string(tok)]; dup {
				sc.err = fmt.Errorf("messages %d and %d have the same resume token %q", j, i, tok)
				return sc
			}
			sc.tokens[string(tok)] = i
		}
	}
	return sc
}

// AddResult registers the answer for sql (the exact SQL text), replacing
// any earlier one. The Result is copied, so the caller may reuse it; its
// fault counters start fresh. A Result that cannot be served (no content,
// bad chunk points, duplicate resume tokens) makes every execution of sql
// fail with INVALID_ARGUMENT, and fails the test on a server from Start.
func (s *Server) AddResult(sql string, r *Result) {
	sc := compile(sql, r)
	s.mu.Lock()
	s.scripts[sql] = sc
	tb := s.tb
	s.mu.Unlock()
	if sc.err != nil && tb != nil {
		tb.Helper()
		tb.Errorf("fakespanner: AddResult(%q): %v", sql, sc.err)
	}
}

// RemoveResult unregisters sql.
func (s *Server) RemoveResult(sql string) {
	s.mu.Lock()
	delete(s.scripts, sql)
	s.mu.Unlock()
}

// SetFallback sets a function asked for SQL texts that have no registered
// Result (for example to answer by parameters). It returns nil for SQL it
// does not know. A fallback Result is compiled per call, so its faults
// fire afresh each time.
func (s *Server) SetFallback(fn func(req *spannerpb.ExecuteSqlRequest) *Result) {
	s.mu.Lock()
	s.fallback = fn
	s.mu.Unlock()
}

// Select1 is the Result for "SELECT 1": one unnamed INT64 column, one row.
func Select1() *Result {
	return &Result{ResultSet: &spannerpb.ResultSet{
		Metadata: &spannerpb.ResultSetMetadata{RowType: &spannerpb.StructType{Fields: []*spannerpb.StructType_Field{
			{Name: "", Type: &spannerpb.Type{Code: spannerpb.TypeCode_INT64}},
		}}},
		Rows: []*structpb.ListValue{{Values: []*structpb.Value{structpb.NewStringValue("1")}}},
	}}
}

// DML is the Result of a DML statement that changed rowCount rows: no
// columns, stats with row_count_exact.
func DML(rowCount int64) *Result {
	return &Result{ResultSet: &spannerpb.ResultSet{
		Metadata: &spannerpb.ResultSetMetadata{RowType: &spannerpb.StructType{}},
		Stats:    &spannerpb.ResultSetStats{RowCount: &spannerpb.ResultSetStats_RowCountExact{RowCountExact: rowCount}},
	}}
}

func (s *Server) lookup(req *spannerpb.ExecuteSqlRequest) (*script, error) {
	if len(req.GetPartitionToken()) > 0 {
		return s.lookupPartition(req)
	}
	s.mu.Lock()
	sc, ok := s.scripts[req.GetSql()]
	fb := s.fallback
	s.mu.Unlock()
	if !ok && fb != nil {
		if r := fb(req); r != nil {
			sc, ok = compile(req.GetSql(), r), true
		}
	}
	if !ok {
		return nil, status.Errorf(codes.InvalidArgument, "fakespanner: no result registered for SQL %q", req.GetSql())
	}
	if sc.err != nil {
		return nil, status.Errorf(codes.InvalidArgument, "fakespanner: bad result for SQL %q: %v", req.GetSql(), sc.err)
	}
	return sc, nil
}

// selectTxn resolves a transaction selector: nil for single-use, a new
// transaction for begin, an existing one by id. It also reports whether
// the transaction was begun inline.
func (s *Server) selectTxn(sessName string, sel *spannerpb.TransactionSelector) (t *txn, begun bool, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ss, err := s.sessionLocked(sessName)
	if err != nil {
		return nil, false, err
	}
	switch k := sel.GetSelector().(type) {
	case nil, *spannerpb.TransactionSelector_SingleUse:
		return nil, false, nil
	case *spannerpb.TransactionSelector_Begin:
		t, err := s.beginLocked(ss, k.Begin)
		return t, true, err
	case *spannerpb.TransactionSelector_Id:
		t, err := s.txnByIDLocked(k.Id)
		return t, false, err
	default:
		return nil, false, status.Error(codes.InvalidArgument, "fakespanner: unknown transaction selector")
	}
}

func (s *Server) precommit(t *txn) *spannerpb.MultiplexedSessionPrecommitToken {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.precommitLocked(t)
}

// ReadTimestamp is the read timestamp the server reports to read-only
// transactions that ask for it (return_read_timestamp).
var ReadTimestamp = time.Date(2026, 1, 2, 3, 4, 5, 123456789, time.UTC)

// wantsReadTimestamp reports whether a selector asks for the read timestamp.
func wantsReadTimestamp(sel *spannerpb.TransactionSelector) bool {
	opts := sel.GetSingleUse()
	if opts == nil {
		opts = sel.GetBegin()
	}
	return opts.GetReadOnly().GetReturnReadTimestamp()
}

// withTxn returns md with the transaction set: the id of t (if any) and
// the read timestamp if readTS (a new message; md is shared with the
// script).
func withTxn(md *spannerpb.ResultSetMetadata, t *txn, readTS bool) *spannerpb.ResultSetMetadata {
	tx := &spannerpb.Transaction{}
	if t != nil {
		tx.Id = []byte(t.id)
	}
	if readTS {
		tx.ReadTimestamp = timestamppb.New(ReadTimestamp)
	}
	return &spannerpb.ResultSetMetadata{
		RowType:              md.GetRowType(),
		UndeclaredParameters: md.GetUndeclaredParameters(),
		Transaction:          tx,
	}
}

func copyPRS(m *spannerpb.PartialResultSet) *spannerpb.PartialResultSet {
	return &spannerpb.PartialResultSet{
		Metadata:       m.GetMetadata(),
		Values:         m.GetValues(),
		ChunkedValue:   m.GetChunkedValue(),
		ResumeToken:    m.GetResumeToken(),
		Stats:          m.GetStats(),
		PrecommitToken: m.GetPrecommitToken(),
		Last:           m.GetLast(),
		CacheUpdate:    m.GetCacheUpdate(),
	}
}

func copyRS(rs *spannerpb.ResultSet) *spannerpb.ResultSet {
	return &spannerpb.ResultSet{
		Metadata:       rs.GetMetadata(),
		Rows:           rs.GetRows(),
		Stats:          rs.GetStats(),
		PrecommitToken: rs.GetPrecommitToken(),
		CacheUpdate:    rs.GetCacheUpdate(),
	}
}

// ExecuteStreamingSql streams the script registered for the SQL text,
// from the start or right after the message carrying resume_token.
func (s *Server) ExecuteStreamingSql(req *spannerpb.ExecuteSqlRequest, stream spannerpb.Spanner_ExecuteStreamingSqlServer) error {
	ctx := stream.Context()
	if req.GetSql() != DialectQuery {
		defer s.countStreamEnd(ctx)
	}
	t, begun, err := s.selectTxn(req.GetSession(), req.GetTransaction())
	if err != nil {
		return err
	}
	sc, err := s.lookup(req)
	if err != nil {
		return err
	}
	start := 0
	if tok := req.GetResumeToken(); len(tok) > 0 {
		i, ok := sc.tokens[string(tok)]
		if !ok {
			return status.Errorf(codes.InvalidArgument, "fakespanner: unknown resume token %q for SQL %q", tok, req.GetSql())
		}
		start = i + 1
	}
	pt := s.precommit(t)
	readTS := start == 0 && wantsReadTimestamp(req.GetTransaction())
	for i := start; i < len(sc.wire); i++ {
		if err := s.fire(ctx, sc.faults, i); err != nil {
			return err
		}
		first := i == start
		resendMD := first && start > 0 && sc.resend
		final := i == len(sc.wire)-1
		var out any = sc.wire[i]
		withMD := first && (begun || readTS)
		if sc.msgs[i] != nil && (withMD || resendMD || (final && pt != nil)) {
			m := copyPRS(sc.msgs[i])
			out = m
			if resendMD {
				m.Metadata = sc.msgs[0].GetMetadata()
			}
			if withMD {
				m.Metadata = withTxn(m.GetMetadata(), t, readTS)
			}
			if final && pt != nil {
				m.PrecommitToken = pt
			}
		}
		if err := stream.SendMsg(out); err != nil {
			return err
		}
	}
	return s.fire(ctx, sc.faults, len(sc.wire))
}

// ExecuteSql returns the scripted ResultSet in one reply.
func (s *Server) ExecuteSql(ctx context.Context, req *spannerpb.ExecuteSqlRequest) (*spannerpb.ResultSet, error) {
	t, begun, err := s.selectTxn(req.GetSession(), req.GetTransaction())
	if err != nil {
		return nil, err
	}
	sc, err := s.lookup(req)
	if err != nil {
		return nil, err
	}
	if len(req.GetResumeToken()) > 0 {
		return nil, status.Error(codes.InvalidArgument, "fakespanner: resume_token on unary ExecuteSql")
	}
	if err := s.fire(ctx, sc.faults, 0); err != nil {
		return nil, err
	}
	return s.unaryResult(sc, t, begun)
}

func (s *Server) unaryResult(sc *script, t *txn, begun bool) (*spannerpb.ResultSet, error) {
	if sc.rs == nil {
		return nil, status.Errorf(codes.InvalidArgument, "fakespanner: result for SQL %q cannot be sent in one reply: %v", sc.sql, sc.rsErr)
	}
	rs := sc.rs
	pt := s.precommit(t)
	if begun || pt != nil {
		rs = copyRS(rs)
		if begun {
			rs.Metadata = withTxn(rs.GetMetadata(), t, false)
		}
		rs.PrecommitToken = pt
	}
	return rs, nil
}

// ExecuteBatchDml runs the statements in order against their scripts. A
// statement without a script, or whose faults at position 0 fire an error,
// ends the batch: its error goes into the response status and the result
// sets of the statements before it are returned.
func (s *Server) ExecuteBatchDml(ctx context.Context, req *spannerpb.ExecuteBatchDmlRequest) (*spannerpb.ExecuteBatchDmlResponse, error) {
	if len(req.GetStatements()) == 0 {
		return nil, status.Error(codes.InvalidArgument, "fakespanner: ExecuteBatchDml without statements")
	}
	t, begun, err := s.selectTxn(req.GetSession(), req.GetTransaction())
	if err != nil {
		return nil, err
	}
	resp := &spannerpb.ExecuteBatchDmlResponse{Status: &spb.Status{}}
	for i, st := range req.GetStatements() {
		sub := &spannerpb.ExecuteSqlRequest{Session: req.GetSession(), Sql: st.GetSql(), Params: st.GetParams(), ParamTypes: st.GetParamTypes()}
		var rs *spannerpb.ResultSet
		sc, err := s.lookup(sub)
		if err == nil {
			err = s.fire(ctx, sc.faults, 0)
		}
		if err == nil {
			rs, err = s.unaryResult(sc, t, begun && i == 0)
		}
		if err != nil {
			resp.Status = status.Convert(err).Proto()
			break
		}
		if rs.PrecommitToken != nil {
			resp.PrecommitToken = rs.PrecommitToken
			rs = copyRS(rs)
			rs.PrecommitToken = nil
		}
		resp.ResultSets = append(resp.ResultSets, rs)
	}
	return resp, nil
}
