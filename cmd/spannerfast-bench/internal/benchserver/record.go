package benchserver

import (
	"context"
	"strings"
	"sync"

	"google.golang.org/grpc"
	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/metadata"
)

// Call is one request the server received: the method, the headers the
// client set (gRPC's own, such as content-type and user-agent, left out)
// and the request message's bytes exactly as they arrived.
type Call struct {
	Method string
	MD     metadata.MD
	Req    []byte
}

// Record makes the server hand every request it receives to fn, in the
// order the requests arrive, before answering it. It must be called
// before Start. The benchmark's bare gRPC arm uses it to learn what a
// driver sends, so that it can send the same bytes.
func (s *Server) Record(fn func(Call)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.record = fn
}

// recorder pairs the bytes the codec decoded with the method and headers
// the interceptors see: the codec does not know the method, the
// interceptors do not see the bytes. The decoded message is the key.
type recorder struct {
	fn      func(Call)
	pending sync.Map // request message -> []byte
}

// recordCodec is codec that keeps each request's bytes for the recorder.
type recordCodec struct {
	codec
	r *recorder
}

func (c recordCodec) Unmarshal(data mem.BufferSlice, v any) error {
	c.r.pending.Store(v, data.Materialize())
	return c.codec.Unmarshal(data, v)
}

// take returns the call of a decoded request.
func (r *recorder) take(ctx context.Context, method string, req any) {
	b, _ := r.pending.LoadAndDelete(req)
	raw, _ := b.([]byte)
	md, _ := metadata.FromIncomingContext(ctx)
	out := metadata.MD{}
	for k, v := range md {
		if strings.HasPrefix(k, ":") || strings.HasPrefix(k, "grpc-") ||
			k == "content-type" || k == "user-agent" || k == "te" {
			continue
		}
		out[k] = append([]string(nil), v...)
	}
	r.fn(Call{Method: method, MD: out, Req: raw})
}

func (r *recorder) unary(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	r.take(ctx, info.FullMethod, req)
	return handler(ctx, req)
}

func (r *recorder) stream(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
	return handler(srv, &recordStream{ServerStream: ss, r: r, method: info.FullMethod})
}

// recordStream records the requests a streaming call receives.
type recordStream struct {
	grpc.ServerStream
	r      *recorder
	method string
}

func (s *recordStream) RecvMsg(m any) error {
	if err := s.ServerStream.RecvMsg(m); err != nil {
		return err
	}
	s.r.take(s.Context(), s.method, m)
	return nil
}

// serverOptions are the options of the gRPC server: the codec that sends
// stored bytes, and with Record the recording codec and interceptors.
func (s *Server) serverOptions() []grpc.ServerOption {
	if s.record == nil {
		return []grpc.ServerOption{grpc.ForceServerCodecV2(codec{})}
	}
	r := &recorder{fn: s.record}
	return []grpc.ServerOption{grpc.ForceServerCodecV2(recordCodec{r: r}),
		grpc.UnaryInterceptor(r.unary), grpc.StreamInterceptor(r.stream)}
}

// CallLog collects the calls a server records: pass its Add to Record.
type CallLog struct {
	mu    sync.Mutex
	calls []Call
}

// Add appends c to the log.
func (l *CallLog) Add(c Call) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.calls = append(l.calls, c)
}

// Take returns the calls logged since the last Take and empties the log.
func (l *CallLog) Take() []Call {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.calls
	l.calls = nil
	return out
}
