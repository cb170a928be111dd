package bare

import (
	"context"
	"errors"
	"fmt"
	"io"

	"google.golang.org/grpc"
	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/metadata"
)

// ExecuteStreamingSQL is the one server-streaming method a Call makes as
// a stream.
const ExecuteStreamingSQL = "/google.spanner.v1.Spanner/ExecuteStreamingSql"

var streamDesc = grpc.StreamDesc{StreamName: "ExecuteStreamingSql", ServerStreams: true}

// Call is one RPC, ready to send any number of times.
type Call struct {
	Method string
	stream bool            // server streaming (ExecuteStreamingSql)
	ctx    context.Context // carries the headers
	req    []byte
}

// NewCall returns the call of method with the request message req
// (encoded) and the headers md.
func NewCall(method string, md metadata.MD, req []byte) Call {
	return Call{Method: method, stream: method == ExecuteStreamingSQL,
		ctx: metadata.NewOutgoingContext(context.Background(), md), req: req}
}

// rawCodec sends pre-marshalled requests and receives responses without
// looking at them: it only counts their bytes.
type rawCodec struct{}

// rawCount is what rawCodec.Unmarshal fills in.
type rawCount struct {
	bytes, messages int
}

func (rawCodec) Marshal(v any) (mem.BufferSlice, error) {
	b, ok := v.([]byte)
	if !ok {
		return nil, fmt.Errorf("rawCodec: cannot marshal %T", v)
	}
	return mem.BufferSlice{mem.SliceBuffer(b)}, nil
}

func (rawCodec) Unmarshal(data mem.BufferSlice, v any) error {
	c, ok := v.(*rawCount)
	if !ok {
		return fmt.Errorf("rawCodec: cannot unmarshal into %T", v)
	}
	c.bytes += data.Len()
	c.messages++
	return nil
}

// Name "" keeps the default content subtype.
func (rawCodec) Name() string { return "" }

// Do makes c on conn and returns the bytes of its responses. sample, when
// not nil, is called after every fourth message of a stream.
func Do(conn *grpc.ClientConn, c *Call, sample func()) (uint64, error) {
	opt := grpc.ForceCodecV2(rawCodec{})
	var n rawCount
	if !c.stream {
		if err := conn.Invoke(c.ctx, c.Method, c.req, &n, opt); err != nil {
			return 0, err
		}
		return uint64(n.bytes), nil
	}
	// A stream read to io.EOF releases everything, so no per-call cancel
	// function is needed.
	st, err := conn.NewStream(c.ctx, &streamDesc, c.Method, opt)
	if err != nil {
		return 0, err
	}
	if err := st.SendMsg(c.req); err != nil {
		return 0, fmt.Errorf("send: %w", err)
	}
	if err := st.CloseSend(); err != nil {
		return 0, fmt.Errorf("close send: %w", err)
	}
	for {
		err := st.RecvMsg(&n)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return 0, fmt.Errorf("receive: %w", err)
		}
		if sample != nil && n.messages%4 == 0 {
			sample()
		}
	}
	if n.messages == 0 {
		return 0, errors.New("no messages")
	}
	return uint64(n.bytes), nil
}
