package fakespanner

import (
	"context"
	"errors"
	"fmt"
	"net"
	"path"
	"slices"
	"sync"
	"testing"
	"time"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/durationpb"
)

// Server is a scripted fake Cloud Spanner gRPC server. Create it with Start
// (tests) or New plus Serve. All methods are safe for concurrent use.
type Server struct {
	spannerpb.UnimplementedSpannerServer

	gs        *grpc.Server
	tb        testing.TB
	serveDone chan struct{}
	closeOnce sync.Once

	mu            sync.Mutex
	lis           net.Listener
	scripts       map[string]*script
	fallback      func(*spannerpb.ExecuteSqlRequest) *Result
	recording     bool
	requests      []Request
	sessions      map[string]*spannerpb.Session
	txns          map[string]*txn
	methodFaults  map[string][]*faultState
	nextID        int
	commitRetries int
	batchWrite    BatchWriteScript // BatchWrite's answer per group (batchwrite.go)
	admin         *admin           // database admin and operations services (admin.go)
	parts         partitionState   // partitions.go
	streams       StreamOutcomes
	dialectAsked  int         // DialectQuery streams received (dialect.go)
	respHeader    metadata.MD // sent with every response (headers.go)
}

// StreamOutcomes counts how ExecuteStreamingSql calls ended on the server.
type StreamOutcomes struct {
	Ended     int // handlers that returned
	Cancelled int // of those, calls the client had cancelled by then
}

// StreamOutcomes returns the counts so far.
func (s *Server) StreamOutcomes() StreamOutcomes {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.streams
}

// countStreamEnd records how a streaming call ended.
func (s *Server) countStreamEnd(ctx context.Context) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.streams.Ended++
	if errors.Is(ctx.Err(), context.Canceled) {
		s.streams.Cancelled++
	}
}

// Request is one recorded RPC request.
type Request struct {
	// Method is the RPC name without the service, e.g. "ExecuteStreamingSql".
	Method string
	// Message is the request as received, e.g. *spannerpb.ExecuteSqlRequest.
	// Do not modify it.
	Message proto.Message
	// Header is a copy of the incoming metadata (lower-case keys).
	Header metadata.MD
	// Deadline is the call's deadline as the server saw it (zero: none).
	Deadline time.Time
}

// ExecuteSQL returns the request as an ExecuteSqlRequest (ExecuteSql and
// ExecuteStreamingSql), or nil.
func (r Request) ExecuteSQL() *spannerpb.ExecuteSqlRequest {
	m, _ := r.Message.(*spannerpb.ExecuteSqlRequest)
	return m
}

// Common injected errors, as Cloud Spanner or the transport produce them.
var (
	ErrUnavailable      = status.Error(codes.Unavailable, "fakespanner: injected UNAVAILABLE")
	ErrRSTStream        = status.Error(codes.Internal, "stream terminated by RST_STREAM with error code: INTERNAL_ERROR")
	ErrAborted          = status.Error(codes.Aborted, "fakespanner: injected ABORTED: Transaction was aborted.")
	ErrDeadlineExceeded = status.Error(codes.DeadlineExceeded, "fakespanner: injected DEADLINE_EXCEEDED")
	ErrInternal         = status.Error(codes.Internal, "fakespanner: injected INTERNAL (not retryable)")
)

// WithRetryDelay returns a status error of code c carrying a RetryInfo
// detail with delay d, as Spanner sends with ABORTED and RESOURCE_EXHAUSTED.
func WithRetryDelay(c codes.Code, msg string, d time.Duration) error {
	st, err := status.New(c, msg).WithDetails(&errdetails.RetryInfo{RetryDelay: durationpb.New(d)})
	if err != nil {
		return status.Error(c, msg)
	}
	return st.Err()
}

// New returns a server that is not yet serving; call Serve. It answers
// "SELECT 1" with one INT64 column and one row until that script is
// replaced or removed.
func New() *Server {
	s := &Server{
		scripts:      map[string]*script{},
		recording:    true,
		sessions:     map[string]*spannerpb.Session{},
		txns:         map[string]*txn{},
		methodFaults: map[string][]*faultState{},
	}
	s.gs = grpc.NewServer(
		grpc.UnaryInterceptor(s.unaryInterceptor),
		grpc.StreamInterceptor(s.streamInterceptor),
		grpc.WaitForHandlers(true),
		grpc.ForceServerCodecV2(newServerCodec()),
		grpc.MaxRecvMsgSize(256<<20),
		grpc.MaxSendMsgSize(256<<20),
	)
	spannerpb.RegisterSpannerServer(s.gs, s)
	s.registerAdmin()
	s.AddResult("SELECT 1", Select1())
	s.AddResult(DialectQuery, DialectResult("GOOGLE_STANDARD_SQL"))
	return s
}

// Start starts a server on a loopback port for the duration of the test and
// registers its Close with t.Cleanup. A bad script passed to AddResult is
// reported with t.Errorf.
func Start(t testing.TB) *Server {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("fakespanner: listen: %v", err)
	}
	s := New()
	s.tb = t
	s.mu.Lock()
	s.lis = lis
	s.mu.Unlock()
	s.serveDone = make(chan struct{})
	go func() {
		defer close(s.serveDone)
		_ = s.gs.Serve(lis)
	}()
	t.Cleanup(s.Close)
	return s
}

// Serve serves on lis until Close. It returns nil after Close.
func (s *Server) Serve(lis net.Listener) error {
	s.mu.Lock()
	s.lis = lis
	s.mu.Unlock()
	if err := s.gs.Serve(lis); err != nil && !errors.Is(err, grpc.ErrServerStopped) {
		return fmt.Errorf("fakespanner: serve: %w", err)
	}
	return nil
}

// Addr is the listening address ("127.0.0.1:port"), or "" before Serve.
func (s *Server) Addr() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lis == nil {
		return ""
	}
	return s.lis.Addr().String()
}

// Dial returns a plaintext client connection to the server. The caller
// closes it.
func (s *Server) Dial(opts ...grpc.DialOption) (*grpc.ClientConn, error) {
	addr := s.Addr()
	if addr == "" {
		return nil, errors.New("fakespanner: Dial before Serve")
	}
	opts = append([]grpc.DialOption{grpc.WithTransportCredentials(insecure.NewCredentials())}, opts...)
	return grpc.NewClient("passthrough:///"+addr, opts...)
}

// Close stops the server: open streams (including hanging ones) are
// cancelled and Close waits for their handlers to return. Safe to call more
// than once.
func (s *Server) Close() {
	s.closeOnce.Do(func() {
		s.gs.Stop()
		if s.serveDone != nil {
			<-s.serveDone
		}
	})
}

// SetRecording turns request recording on (the default) or off; a
// long-running benchmark server turns it off to bound memory.
func (s *Server) SetRecording(on bool) {
	s.mu.Lock()
	s.recording = on
	s.mu.Unlock()
}

// Requests returns the recorded requests in arrival order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.requests)
}

// RequestsFor returns the recorded requests of one method, e.g. "Commit".
func (s *Server) RequestsFor(method string) []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Request
	for _, r := range s.requests {
		if r.Method == method {
			out = append(out, r)
		}
	}
	return out
}

// ResetRequests forgets the recorded requests.
func (s *Server) ResetRequests() {
	s.mu.Lock()
	s.requests = nil
	s.mu.Unlock()
}

// AddMethodFault injects f into every call of method (e.g. "Commit",
// "BeginTransaction", "CreateSession", "ExecuteStreamingSql") before the
// method runs: Delay, then Hang, then Err. f.AfterMessage is ignored.
func (s *Server) AddMethodFault(method string, f Fault) {
	s.mu.Lock()
	s.methodFaults[method] = append(s.methodFaults[method], newFaultState(f))
	s.mu.Unlock()
}

func (s *Server) record(ctx context.Context, method string, req any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.recording {
		return
	}
	md, _ := metadata.FromIncomingContext(ctx)
	m, _ := req.(proto.Message)
	deadline, _ := ctx.Deadline()
	s.requests = append(s.requests, Request{Method: method, Message: m, Header: md.Copy(), Deadline: deadline})
}

func (s *Server) beforeMethod(ctx context.Context, method string, req any) error {
	s.record(ctx, method, req)
	s.mu.Lock()
	faults := s.methodFaults[method]
	s.mu.Unlock()
	for _, f := range faults {
		if f.AfterRun {
			continue
		}
		if err := s.fireOne(ctx, f); err != nil {
			return err
		}
	}
	return nil
}

// afterMethod fires the AfterRun faults of a unary method that ran.
func (s *Server) afterMethod(ctx context.Context, method string) error {
	s.mu.Lock()
	faults := s.methodFaults[method]
	s.mu.Unlock()
	for _, f := range faults {
		if !f.AfterRun {
			continue
		}
		if err := s.fireOne(ctx, f); err != nil {
			return err
		}
	}
	return nil
}

func (s *Server) unaryInterceptor(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	method := path.Base(info.FullMethod)
	if h := s.responseHeader(); h != nil {
		_ = grpc.SetHeader(ctx, h)
	}
	if err := s.beforeMethod(ctx, method, req); err != nil {
		return nil, err
	}
	resp, err := handler(ctx, req)
	if err != nil {
		return resp, err
	}
	if ferr := s.afterMethod(ctx, method); ferr != nil {
		return nil, ferr
	}
	return resp, nil
}

func (s *Server) streamInterceptor(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
	if h := s.responseHeader(); h != nil {
		_ = ss.SetHeader(h)
	}
	return handler(srv, &recordingStream{ServerStream: ss, s: s, method: path.Base(info.FullMethod)})
}

// recordingStream records the first request message of a stream.
type recordingStream struct {
	grpc.ServerStream
	s        *Server
	method   string
	received bool
}

func (rs *recordingStream) RecvMsg(m any) error {
	if err := rs.ServerStream.RecvMsg(m); err != nil {
		return err
	}
	if rs.received {
		return nil
	}
	rs.received = true
	if isDialectQuery(rs.method, m) {
		rs.s.noteDialectQuery()
		return nil
	}
	return rs.s.beforeMethod(rs.Context(), rs.method, m)
}

// Fault is an injected failure or delay.
type Fault struct {
	// AfterMessage is the stream position: the fault fires after that many
	// messages of the script were sent, i.e. before message index
	// AfterMessage (0: before the first message; len(messages): after the
	// last one, before the stream ends). Positions are absolute, so a
	// resumed stream meets the positions after its resume point. Larger
	// positions never fire. For unary ExecuteSql and ExecuteBatchDml only
	// position 0 applies.
	AfterMessage int
	// Delay sleeps before acting (ends early if the client cancels).
	Delay time.Duration
	// Hang blocks until the client cancels (or the server closes), then
	// fails with the context's status (CANCELED or DEADLINE_EXCEEDED).
	Hang bool
	// Err is returned to the client, ending the call. Use a status error
	// (ErrUnavailable, ErrRSTStream, ErrAborted, ErrDeadlineExceeded, or
	// status.Error(...)).
	Err error
	// Times is how many times the fault fires: 0 means once, negative
	// means every time.
	Times int
	// AfterRun (AddMethodFault, unary methods only) fires the fault after
	// the method ran and succeeded: its effect stands (a Commit committed)
	// but the client gets Err instead of the answer, as when a connection
	// breaks after the server acted.
	AfterRun bool
	// Skip is how many times the fault lets its position or method pass
	// before it fires (e.g. ABORTED from the second Commit only).
	Skip int
}

type faultState struct {
	Fault
	left int // remaining firings; negative: unlimited
	skip int // passes left before the first firing
}

func newFaultState(f Fault) *faultState {
	left := f.Times
	if left == 0 {
		left = 1
	}
	return &faultState{Fault: f, left: left, skip: f.Skip}
}

func ctxErr(ctx context.Context) error {
	return status.FromContextError(ctx.Err()).Err()
}

func (s *Server) fireOne(ctx context.Context, f *faultState) error {
	s.mu.Lock()
	if f.left == 0 {
		s.mu.Unlock()
		return nil
	}
	if f.skip > 0 {
		f.skip--
		s.mu.Unlock()
		return nil
	}
	if f.left > 0 {
		f.left--
	}
	s.mu.Unlock()
	if f.Delay > 0 {
		t := time.NewTimer(f.Delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctxErr(ctx)
		case <-t.C:
		}
	}
	if f.Hang {
		<-ctx.Done()
		return ctxErr(ctx)
	}
	return f.Err
}

// fire runs the faults at one stream position.
func (s *Server) fire(ctx context.Context, faults []*faultState, pos int) error {
	for _, f := range faults {
		if f.AfterMessage != pos {
			continue
		}
		if err := s.fireOne(ctx, f); err != nil {
			return err
		}
	}
	return nil
}
