package spannerfasttest

import (
	"context"
	"errors"
	"io"
	"time"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"cloud.google.com/go/spanner/spansql"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// singlePartition is the token of the one partition PartitionQuery and
// PartitionRead return: the engine cannot split work, and one partition
// covering everything is a correct answer.
const singlePartition = "spannerfasttest-single-partition"

func (s *service) ExecuteSql(ctx context.Context, req *spannerpb.ExecuteSqlRequest) (*spannerpb.ResultSet, error) {
	if classify(req.GetSql()) == dmlStatement {
		return s.executeDML(ctx, req)
	}
	var rs resultCollector
	return rs.result(s.streamQuery(ctx, req, rs.add))
}

// resultCollector gathers the messages of a stream into one ResultSet, for
// the unary calls (ExecuteSql, Read) that the engine answers by streaming.
// The engine never chunks values, so whole rows arrive in each message.
type resultCollector struct{ rs spannerpb.ResultSet }

func (c *resultCollector) add(p *spannerpb.PartialResultSet) error {
	if p.GetMetadata() != nil {
		c.rs.Metadata = p.GetMetadata()
	}
	n := len(c.rs.GetMetadata().GetRowType().GetFields())
	for vs := p.GetValues(); n > 0 && len(vs) >= n; vs = vs[n:] {
		c.rs.Rows = append(c.rs.Rows, &structpb.ListValue{Values: vs[:n]})
	}
	if p.GetPrecommitToken() != nil {
		c.rs.PrecommitToken = p.GetPrecommitToken()
	}
	return nil
}

func (c *resultCollector) result(err error) (*spannerpb.ResultSet, error) {
	if err != nil {
		return nil, err
	}
	return &c.rs, nil
}

func (s *service) ExecuteStreamingSql(req *spannerpb.ExecuteSqlRequest, stream spannerpb.Spanner_ExecuteStreamingSqlServer) error {
	if classify(req.GetSql()) == dmlStatement {
		rs, err := s.executeDML(stream.Context(), req)
		if err != nil {
			return err
		}
		var values []*structpb.Value
		for _, row := range rs.GetRows() {
			values = append(values, row.GetValues()...)
		}
		return stream.Send(&spannerpb.PartialResultSet{
			Metadata: rs.GetMetadata(), Values: values, Stats: rs.GetStats(), PrecommitToken: rs.GetPrecommitToken(), Last: true,
		})
	}
	return s.streamQuery(stream.Context(), req, stream.Send)
}

// streamQuery runs a query on the engine as a single-use read and relays
// its results, adding the begun transaction and a precommit token.
func (s *service) streamQuery(ctx context.Context, req *spannerpb.ExecuteSqlRequest, send func(*spannerpb.PartialResultSet) error) (err error) {
	sess, err := s.session(req.GetSession())
	if err != nil {
		return err
	}
	sel, err := s.selectTx(req.GetSession(), sess, req.GetTransaction())
	if err != nil {
		return err
	}
	defer func() { s.settle(sel, err) }()
	if len(req.GetPartitionToken()) > 0 && string(req.GetPartitionToken()) != singlePartition {
		return invalid("unknown partition token %q", req.GetPartitionToken())
	}
	sql := normalizeTimestamps(req.GetSql())
	if q, err := spansql.ParseQuery(sql); err == nil {
		if err := checkReserved(sql, q); err != nil {
			return err
		}
	}
	if p, handled, err := s.infoSchemaQuery(req, sel); handled {
		if err != nil {
			return err
		}
		return s.relay(sel, oneMessage(p), send)
	}
	p, err := newParams(req.GetParams(), req.GetParamTypes())
	if err != nil {
		return err
	}
	if err := s.checkQuery(sql, p); err != nil {
		return err
	}
	eng := &spannerpb.ExecuteSqlRequest{Session: sess.engine, Sql: sql, Params: p.values, ParamTypes: p.types}
	var msgs []*spannerpb.PartialResultSet
	err = s.reading(ctx, sel.tx, func() error {
		st, err := s.engine.ExecuteStreamingSql(ctx, eng)
		if err == nil {
			msgs, err = collect(st.Recv)
		}
		return analysisError(err)
	})
	if err != nil {
		return err
	}
	return s.relay(sel, replay(msgs), send)
}

// analysisError gives the engine's errors about a statement's text (an
// unknown table or column: NotFound or a plain error) Spanner's code for
// them, InvalidArgument.
func analysisError(err error) error {
	switch status.Code(err) {
	case codes.NotFound, codes.Unknown:
		return status.Error(codes.InvalidArgument, "spannerfasttest: "+status.Convert(err).Message())
	}
	return err
}

// reading runs fn, which reads the engine, in tx's view: a read-write
// transaction becomes the writer and sees its own DML; everyone else sees
// committed data only.
func (s *service) reading(ctx context.Context, tx *txn, fn func() error) error {
	if tx != nil && tx.kind == readWrite {
		leave, err := s.enter(ctx, tx)
		if err != nil {
			return err
		}
		defer leave()
		return fn()
	}
	return s.committedView(ctx, fn)
}

// writing runs fn, which runs DML of tx: a read-write transaction becomes
// the writer until it ends; a partitioned DML statement is a write of its
// own.
func (s *service) writing(ctx context.Context, tx *txn, fn func() error) error {
	leave, err := s.enter(ctx, tx)
	if err != nil {
		return err
	}
	if tx.kind == partitioned {
		defer s.release(tx)
	}
	defer leave()
	return fn()
}

// collect reads a whole engine stream. Results are read completely while
// the engine is locked and sent after, so that a client holding a
// half-read result never blocks anyone's writes.
func collect(recv func() (*spannerpb.PartialResultSet, error)) ([]*spannerpb.PartialResultSet, error) {
	var msgs []*spannerpb.PartialResultSet
	for {
		p, err := recv()
		if errors.Is(err, io.EOF) {
			return msgs, nil
		}
		if err != nil {
			return nil, err
		}
		msgs = append(msgs, p)
	}
}

// replay is a stream of the collected messages.
func replay(msgs []*spannerpb.PartialResultSet) func() (*spannerpb.PartialResultSet, error) {
	return func() (*spannerpb.PartialResultSet, error) {
		if len(msgs) == 0 {
			return nil, io.EOF
		}
		p := msgs[0]
		msgs = msgs[1:]
		return p, nil
	}
}

// oneMessage is a stream of a single message.
func oneMessage(p *spannerpb.PartialResultSet) func() (*spannerpb.PartialResultSet, error) {
	return func() (*spannerpb.PartialResultSet, error) {
		if p == nil {
			return nil, io.EOF
		}
		out := p
		p = nil
		return out, nil
	}
}

// relay forwards an engine stream one message behind, so the last message
// can carry the precommit token.
func (s *service) relay(sel selected, recv func() (*spannerpb.PartialResultSet, error), send func(*spannerpb.PartialResultSet) error) error {
	var prev *spannerpb.PartialResultSet
	for first := true; ; first = false {
		p, err := recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		if first && p.GetMetadata() != nil {
			p.Metadata.Transaction = nil
			if sel.begun {
				p.Metadata.Transaction = s.txProto(sel.tx)
			}
		}
		if prev != nil {
			if err := send(prev); err != nil {
				return err
			}
		}
		prev = p
	}
	if prev == nil {
		return status.Error(codes.Internal, "spannerfasttest: the engine sent no result metadata")
	}
	prev.PrecommitToken = s.token(sel.tx)
	prev.Last = true
	return send(prev)
}

func (s *service) StreamingRead(req *spannerpb.ReadRequest, stream spannerpb.Spanner_StreamingReadServer) error {
	return s.streamRead(stream.Context(), req, stream.Send)
}

func (s *service) Read(ctx context.Context, req *spannerpb.ReadRequest) (*spannerpb.ResultSet, error) {
	var rs resultCollector
	return rs.result(s.streamRead(ctx, req, rs.add))
}

func (s *service) streamRead(ctx context.Context, req *spannerpb.ReadRequest, send func(*spannerpb.PartialResultSet) error) (err error) {
	sess, err := s.session(req.GetSession())
	if err != nil {
		return err
	}
	if err := validateKeySet(req.GetTable(), req.GetKeySet()); err != nil {
		return err
	}
	if req.GetIndex() != "" {
		return unimplemented("reads through index %s are not supported; read table %s or query it", req.GetIndex(), req.GetTable())
	}
	if len(req.GetPartitionToken()) > 0 && string(req.GetPartitionToken()) != singlePartition {
		return invalid("unknown partition token %q", req.GetPartitionToken())
	}
	sel, err := s.selectTx(req.GetSession(), sess, req.GetTransaction())
	if err != nil {
		return err
	}
	defer func() { s.settle(sel, err) }()
	eng := &spannerpb.ReadRequest{Session: sess.engine, Table: req.GetTable(), Columns: req.GetColumns(), KeySet: req.GetKeySet(), Limit: req.GetLimit()}
	var msgs []*spannerpb.PartialResultSet
	err = s.reading(ctx, sel.tx, func() error {
		st, err := s.engine.StreamingRead(ctx, eng)
		if err != nil {
			return err
		}
		msgs, err = collect(st.Recv)
		return err
	})
	if err != nil {
		return err
	}
	return s.relay(sel, replay(msgs), send)
}

func (s *service) PartitionQuery(ctx context.Context, req *spannerpb.PartitionQueryRequest) (*spannerpb.PartitionResponse, error) {
	return s.partition(req.GetSession(), req.GetTransaction())
}

func (s *service) PartitionRead(ctx context.Context, req *spannerpb.PartitionReadRequest) (*spannerpb.PartitionResponse, error) {
	if err := validateKeySet(req.GetTable(), req.GetKeySet()); err != nil {
		return nil, err
	}
	return s.partition(req.GetSession(), req.GetTransaction())
}

func (s *service) partition(name string, ts *spannerpb.TransactionSelector) (*spannerpb.PartitionResponse, error) {
	sess, err := s.session(name)
	if err != nil {
		return nil, err
	}
	if ts.GetId() == nil && ts.GetBegin().GetReadOnly() == nil {
		return nil, invalid("partitioned reads need a read-only transaction (begin or id)")
	}
	sel, err := s.selectTx(name, sess, ts)
	if err != nil {
		return nil, err
	}
	if sel.tx.kind != readOnly {
		return nil, invalid("partitioned reads need a read-only transaction, not %s", sel.tx.kind)
	}
	resp := &spannerpb.PartitionResponse{Partitions: []*spannerpb.Partition{{PartitionToken: []byte(singlePartition)}}}
	if sel.begun {
		resp.Transaction = s.txProto(sel.tx)
	}
	return resp, nil
}

func (s *service) BatchWrite(req *spannerpb.BatchWriteRequest, stream spannerpb.Spanner_BatchWriteServer) error {
	if _, err := s.session(req.GetSession()); err != nil {
		return err
	}
	for i, g := range req.GetMutationGroups() {
		resp := &spannerpb.BatchWriteResponse{Indexes: []int32{int32(i)}}
		err := validateMutations(g.GetMutations())
		if err == nil {
			var ts time.Time
			err = s.writeAlone(stream.Context(), func() (err error) {
				ts, _, err = s.applyLocked(stream.Context(), g.GetMutations())
				return err
			})
			if err == nil {
				resp.CommitTimestamp = timestamppb.New(ts)
			}
		}
		resp.Status = status.Convert(err).Proto()
		if err := stream.Send(resp); err != nil {
			return err
		}
	}
	return nil
}

// ExecuteBatchDml runs the statements in order and stops at the first
// failure, returning the result sets of the statements that ran and the
// failure's status, as Spanner does.
func (s *service) ExecuteBatchDml(ctx context.Context, req *spannerpb.ExecuteBatchDmlRequest) (*spannerpb.ExecuteBatchDmlResponse, error) {
	sess, err := s.session(req.GetSession())
	if err != nil {
		return nil, err
	}
	if len(req.GetStatements()) == 0 {
		return nil, invalid("ExecuteBatchDml needs at least one statement")
	}
	sel, err := s.selectTx(req.GetSession(), sess, req.GetTransaction())
	if err != nil {
		return nil, err
	}
	if err := dmlAllowed(sel.tx); err != nil {
		s.settle(sel, err)
		return nil, err
	}
	if cached, ok := replayed[*spannerpb.ExecuteBatchDmlResponse](s, sel.tx, req.GetSeqno()); ok {
		return cached, nil
	}
	resp := &spannerpb.ExecuteBatchDmlResponse{}
	err = s.writing(ctx, sel.tx, func() error {
		for i, st := range req.GetStatements() {
			rs, err := s.runDML(ctx, sel.tx, st.GetSql(), st.GetParams(), st.GetParamTypes())
			if err != nil {
				resp.Status = status.Convert(status.Errorf(status.Code(err), "statement %d: %s", i, status.Convert(err).Message())).Proto()
				break
			}
			resp.ResultSets = append(resp.ResultSets, rs)
		}
		return nil
	})
	if err != nil {
		s.settle(sel, err)
		return nil, err
	}
	if len(resp.ResultSets) == 0 {
		s.settle(sel, errors.New("first statement failed"))
	} else if sel.begun {
		resp.ResultSets[0].Metadata.Transaction = s.txProto(sel.tx)
	}
	if resp.Status == nil {
		resp.Status = status.New(codes.OK, "").Proto()
	}
	resp.PrecommitToken = s.token(sel.tx)
	s.remember(sel.tx, req.GetSeqno(), resp)
	return resp, nil
}

// executeDML runs one DML statement of ExecuteSql or ExecuteStreamingSql.
func (s *service) executeDML(ctx context.Context, req *spannerpb.ExecuteSqlRequest) (rs *spannerpb.ResultSet, err error) {
	sess, err := s.session(req.GetSession())
	if err != nil {
		return nil, err
	}
	sel, err := s.selectTx(req.GetSession(), sess, req.GetTransaction())
	if err != nil {
		return nil, err
	}
	defer func() { s.settle(sel, err) }()
	if err := dmlAllowed(sel.tx); err != nil {
		return nil, err
	}
	if cached, ok := replayed[*spannerpb.ResultSet](s, sel.tx, req.GetSeqno()); ok {
		return cached, nil
	}
	err = s.writing(ctx, sel.tx, func() (err error) {
		rs, err = s.runDML(ctx, sel.tx, req.GetSql(), req.GetParams(), req.GetParamTypes())
		return err
	})
	if err != nil {
		return nil, err
	}
	if sel.begun {
		rs.Metadata.Transaction = s.txProto(sel.tx)
	}
	rs.PrecommitToken = s.token(sel.tx)
	s.remember(sel.tx, req.GetSeqno(), rs)
	return rs, nil
}

// replayed returns a copy of the first answer to a request with the same
// seqno in tx, if there was one: Spanner applies a statement once however
// often a client retries it.
func replayed[T proto.Message](s *service, tx *txn, seqno int64) (T, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var zero T
	r, ok := tx.answers[seqno]
	if seqno == 0 || !ok {
		return zero, false
	}
	out, ok := proto.Clone(r).(T)
	return out, ok
}

// remember keeps the answer to a request with a seqno in tx for replays.
func (s *service) remember(tx *txn, seqno int64, r proto.Message) {
	if seqno == 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if tx.answers == nil {
		tx.answers = map[int64]proto.Message{}
	}
	tx.answers[seqno] = proto.Clone(r)
}

func dmlAllowed(tx *txn) error {
	if tx == nil {
		return invalid("DML needs a read-write or partitioned DML transaction (begin or id), not a single-use one")
	}
	if tx.kind == readOnly {
		return status.Error(codes.FailedPrecondition, "spannerfasttest: DML is not allowed in a read-only transaction")
	}
	return nil
}

// runDML executes a statement and builds its result set: an empty row
// type and the exact row count (a lower bound for partitioned DML).
func (s *service) runDML(ctx context.Context, tx *txn, sql string, params *structpb.Struct, types map[string]*spannerpb.Type) (*spannerpb.ResultSet, error) {
	if classify(sql) != dmlStatement {
		return nil, invalid("not a DML statement: %q", sql)
	}
	var n int64
	var rs *spannerpb.ResultSet
	err := recovered("DML statement", func() (err error) {
		n, rs, err = s.execute(ctx, tx, sql, params, types)
		return err
	})
	if err != nil {
		s.poison(tx, err)
		return nil, err
	}
	if rs == nil {
		rs = &spannerpb.ResultSet{Metadata: &spannerpb.ResultSetMetadata{RowType: &spannerpb.StructType{}}}
	}
	if tx.kind == partitioned {
		rs.Stats = &spannerpb.ResultSetStats{RowCount: &spannerpb.ResultSetStats_RowCountLowerBound{RowCountLowerBound: n}}
	} else {
		rs.Stats = &spannerpb.ResultSetStats{RowCount: &spannerpb.ResultSetStats_RowCountExact{RowCountExact: n}}
	}
	return rs, nil
}
