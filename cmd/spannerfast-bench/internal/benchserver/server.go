package benchserver

import (
	"context"
	"fmt"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/encoding"
	grpcproto "google.golang.org/grpc/encoding/proto"
	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/emptypb"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/spannerfast/spannerfast/cmd/spannerfast-bench/internal/workload"
)

// Server is a fake Spanner server that streams pre-encoded results.
type Server struct {
	spannerpb.UnimplementedSpannerServer

	results map[string][]workload.Message // by SQL text
	bytes   map[string]int64              // total result size by SQL text
	// metaLen is the size of the metadata field that starts the first
	// message of each result; inline begins replace it (see txMessage).
	metaLen   map[string]int
	beginMeta map[string][2][]byte    // by SQL: metadata field with the read-only / read-write transaction
	parts     map[string]*partitioned // partitioned queries by SQL (partitions.go)
	// delay is the wait before each streamed message of a latency-bound
	// query, by SQL (Workload.MessageDelay).
	delay map[string]time.Duration

	stats counters

	nextSession atomic.Int64
	nextTx      atomic.Int64
	queries     atomic.Int64

	mu     sync.Mutex
	record func(Call) // see Record
	srv    *grpc.Server
	lis    net.Listener
	done   chan struct{}
}

// New encodes the results of the workloads, of their warm-up variants and
// of the hidden SELECT 1.
func New(ws []*workload.Workload) (*Server, error) {
	s := &Server{results: map[string][]workload.Message{}, bytes: map[string]int64{},
		metaLen: map[string]int{}, beginMeta: map[string][2][]byte{}, parts: map[string]*partitioned{},
		delay: map[string]time.Duration{}}
	seen := map[string]bool{}
	all := append([]*workload.Workload{}, ws...)
	for _, w := range ws {
		all = append(all, w.WarmUp())
	}
	for _, w := range append(all, selectOne()) {
		if seen[w.SQL] {
			continue
		}
		seen[w.SQL] = true
		if w.MessageDelay > 0 {
			s.delay[w.SQL] = w.MessageDelay
		}
		if !w.HasResult() {
			continue // writes only: DML is answered by its first keyword
		}
		if w.Partitions > 0 {
			if err := s.addPartitioned(w); err != nil {
				return nil, err
			}
			continue
		}
		msgs, err := w.Encode()
		if err != nil {
			return nil, err
		}
		if err := s.prepareBegin(w, msgs[0]); err != nil {
			return nil, err
		}
		s.results[w.SQL] = msgs
		var n int64
		for _, m := range msgs {
			n += int64(m.Size())
		}
		s.bytes[w.SQL] = n
	}
	dialect, err := dialectAnswer()
	if err != nil {
		return nil, err
	}
	s.results[DialectQuery] = dialect
	return s, nil
}

func selectOne() *workload.Workload {
	for _, w := range workload.Catalog(1) {
		if w.SQL == "SELECT 1" {
			return w
		}
	}
	panic("benchserver: SELECT 1 missing from the catalog")
}

// ResultBytes is the encoded size of the result of sql (0 if unknown).
func (s *Server) ResultBytes(sql string) int64 { return s.bytes[sql] }

// Queries is the number of ExecuteStreamingSql calls served.
func (s *Server) Queries() int64 { return s.queries.Load() }

// Start listens on addr ("127.0.0.1:0" for any port) and serves in the
// background. It returns the address clients dial.
func (s *Server) Start(addr string) (string, error) {
	lis, err := net.Listen("tcp", addr)
	if err != nil {
		return "", fmt.Errorf("listening on %s: %w", addr, err)
	}
	s.mu.Lock()
	srv := grpc.NewServer(s.serverOptions()...)
	spannerpb.RegisterSpannerServer(srv, s)
	s.srv, s.lis, s.done = srv, lis, make(chan struct{})
	s.mu.Unlock()
	go func() {
		defer close(s.done)
		_ = srv.Serve(lis)
	}()
	return lis.Addr().String(), nil
}

// Stop ends the server and its streams.
func (s *Server) Stop() {
	s.mu.Lock()
	srv, done := s.srv, s.done
	s.mu.Unlock()
	if srv == nil {
		return
	}
	srv.Stop()
	<-done
}

// codec marshals workload messages by handing their stored bytes to gRPC
// as they are, and everything else with the standard proto codec.
type codec struct{}

var protoCodec = encoding.GetCodecV2(grpcproto.Name)

func (codec) Marshal(v any) (mem.BufferSlice, error) {
	// SliceBuffers are not pooled: Free is a no-op, the bytes stay ours.
	switch m := v.(type) {
	case *workload.Message:
		return mem.BufferSlice{mem.SliceBuffer(m.Body), mem.SliceBuffer(m.Tail)}, nil
	case *parts:
		out := make(mem.BufferSlice, 0, len(*m))
		for _, b := range *m {
			if len(b) > 0 {
				out = append(out, mem.SliceBuffer(b))
			}
		}
		return out, nil
	case proto.Message:
		if b, ok := preEncoded.Load(m); ok {
			return mem.BufferSlice{mem.SliceBuffer(b.([]byte))}, nil
		}
	}
	return protoCodec.Marshal(v)
}

func (codec) Unmarshal(data mem.BufferSlice, v any) error { return protoCodec.Unmarshal(data, v) }

// Name keeps the standard content subtype, so clients need nothing special.
func (codec) Name() string { return grpcproto.Name }

func (s *Server) newSession(db string, multiplexed bool) *spannerpb.Session {
	n := s.nextSession.Add(1)
	kind := "s"
	if multiplexed {
		kind = multiplexedMark // see isMultiplexed
	}
	return &spannerpb.Session{
		Name:        fmt.Sprintf("%s/sessions/%s%d", db, kind, n),
		CreateTime:  timestamppb.Now(),
		Multiplexed: multiplexed,
	}
}

// CreateSession returns a new session name; sessions have no state.
func (s *Server) CreateSession(_ context.Context, req *spannerpb.CreateSessionRequest) (*spannerpb.Session, error) {
	if req.GetDatabase() == "" {
		return nil, status.Error(codes.InvalidArgument, "CreateSession: database is empty")
	}
	return s.newSession(req.GetDatabase(), req.GetSession().GetMultiplexed()), nil
}

// BatchCreateSessions returns SessionCount new session names.
func (s *Server) BatchCreateSessions(_ context.Context, req *spannerpb.BatchCreateSessionsRequest) (*spannerpb.BatchCreateSessionsResponse, error) {
	if req.GetDatabase() == "" || req.GetSessionCount() <= 0 {
		return nil, status.Error(codes.InvalidArgument, "BatchCreateSessions: database empty or session_count not positive")
	}
	resp := &spannerpb.BatchCreateSessionsResponse{}
	for i := int32(0); i < req.GetSessionCount(); i++ {
		resp.Session = append(resp.Session, s.newSession(req.GetDatabase(), false))
	}
	return resp, nil
}

// GetSession returns any session that looks like a session name.
func (s *Server) GetSession(_ context.Context, req *spannerpb.GetSessionRequest) (*spannerpb.Session, error) {
	if !strings.Contains(req.GetName(), "/sessions/") {
		return nil, status.Errorf(codes.NotFound, "session %q not found", req.GetName())
	}
	return &spannerpb.Session{Name: req.GetName(), CreateTime: timestamppb.Now()}, nil
}

// DeleteSession accepts everything.
func (s *Server) DeleteSession(context.Context, *spannerpb.DeleteSessionRequest) (*emptypb.Empty, error) {
	return &emptypb.Empty{}, nil
}

// ExecuteSql returns a whole result at once (for small queries such as a
// driver's SELECT 1; chunked results are not supported).
func (s *Server) ExecuteSql(_ context.Context, req *spannerpb.ExecuteSqlRequest) (*spannerpb.ResultSet, error) {
	if isDML(req.GetSql()) {
		return s.executeDML(req)
	}
	if req.GetSql() == IndexColumnsSQL {
		return indexColumnsAnswer, nil
	}
	key, ok := s.resultKey(req)
	if !ok {
		return nil, status.Errorf(codes.InvalidArgument, "fake server has no result for SQL %q", req.GetSql())
	}
	msgs := s.results[key]
	s.queries.Add(1)
	rs := &spannerpb.ResultSet{}
	var vals []*structpb.Value
	for _, m := range msgs {
		var prs spannerpb.PartialResultSet
		if err := proto.Unmarshal(m.Bytes(), &prs); err != nil {
			return nil, status.Errorf(codes.Internal, "decoding a stored message: %v", err)
		}
		if prs.GetChunkedValue() {
			return nil, status.Error(codes.Unimplemented, "ExecuteSql of a chunked result; use ExecuteStreamingSql")
		}
		if prs.GetMetadata() != nil {
			rs.Metadata = prs.GetMetadata()
		}
		vals = append(vals, prs.GetValues()...)
	}
	n := len(rs.GetMetadata().GetRowType().GetFields())
	for i := 0; n > 0 && i+n <= len(vals); i += n {
		rs.Rows = append(rs.Rows, &structpb.ListValue{Values: vals[i : i+n]})
	}
	tx, err := s.txOf(req.GetSession(), req.GetTransaction(), false)
	if err != nil {
		return nil, err
	}
	if tx.begin != nil {
		rs.Metadata.Transaction = tx.begin
	}
	if tx.precommit {
		rs.PrecommitToken = precommitToken
	}
	return rs, nil
}

// ExecuteStreamingSql sends the stored messages of the query, starting after
// the message named by the request's resume token; DML gets one message
// with one row changed.
func (s *Server) ExecuteStreamingSql(req *spannerpb.ExecuteSqlRequest, stream spannerpb.Spanner_ExecuteStreamingSqlServer) error {
	if isDML(req.GetSql()) && len(req.GetPartitionToken()) == 0 {
		return s.streamDML(req, stream)
	}
	key, msgs, err := s.streamResult(req)
	if err != nil {
		return err
	}
	tx, err := s.txOf(req.GetSession(), req.GetTransaction(), false)
	if err != nil {
		return err
	}
	s.queries.Add(1)
	start := 0
	if tok := req.GetResumeToken(); len(tok) > 0 {
		i, err := workload.TokenIndex(tok)
		if err != nil || i >= len(msgs) {
			return status.Errorf(codes.InvalidArgument, "bad resume token %x", tok)
		}
		start = i + 1
	}
	delay := s.delay[key]
	for i := start; i < len(msgs); i++ {
		if err := wait(stream.Context(), delay); err != nil {
			return err
		}
		if err := stream.SendMsg(s.txMessage(key, msgs, i, tx)); err != nil {
			return err
		}
	}
	return nil
}

// wait sleeps d (no time for 0), or until ctx ends. The sleep stands for
// the time a real server and network take per message: each stream waits
// on its own, so parallel streams overlap their waits.
func wait(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return status.FromContextError(ctx.Err()).Err()
	}
}
