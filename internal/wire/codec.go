package wire

import (
	"fmt"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/proto"
)

// StreamCodec marshals requests (ExecuteSqlRequest with AppendExecuteSQL,
// ExecuteBatchDmlRequest with AppendExecuteBatchDML, others with the
// standard protobuf encoder) into pooled buffers and receives responses as Frames, keeping gRPC's receive buffer instead of unmarshalling.
// Use it per call with grpc.ForceCodecV2(wire.StreamCodec{}).
type StreamCodec struct{}

var _ encoding.CodecV2 = StreamCodec{}

// Name is empty so the call keeps the default "application/grpc+proto"
// content subtype that Spanner expects.
func (StreamCodec) Name() string { return "" }

// requestBufferSize is the pooled buffer a request is encoded into. Requests
// are small (a statement, its parameters, a few options), and gRPC pools only
// buffers of at least 1 KiB; one that outgrows it gets a buffer of its own.
const requestBufferSize = 4 << 10

// Marshal encodes a protobuf request into a pooled buffer, which gRPC gives
// back once the request is written (and no retry can need it): two
// allocations per call less than proto.Marshal and a SliceBuffer.
func (StreamCodec) Marshal(v any) (mem.BufferSlice, error) { return marshal(v) }

func marshal(v any) (mem.BufferSlice, error) {
	m, ok := v.(proto.Message)
	if !ok {
		return nil, fmt.Errorf("wire: cannot marshal %T: not a proto.Message", v)
	}
	if r, ok := m.(*spannerpb.CommitRequest); ok && len(r.GetMutations()) > 0 {
		// A commit with mutations (a load's may be tens of MiB) is encoded
		// into a buffer of its size: growing a pooled one would copy it.
		b, err := AppendCommit(make([]byte, 0, commitCap(r)), r)
		if err != nil {
			return nil, err
		}
		return mem.BufferSlice{mem.SliceBuffer(b)}, nil
	}
	pool := mem.DefaultBufferPool()
	buf := pool.Get(requestBufferSize)
	var b []byte
	var err error
	switch r := m.(type) {
	case *spannerpb.ExecuteSqlRequest:
		b, err = AppendExecuteSQL((*buf)[:0], r)
	case *spannerpb.ExecuteBatchDmlRequest:
		b, err = AppendExecuteBatchDML((*buf)[:0], r)
	default:
		b, err = proto.MarshalOptions{}.MarshalAppend((*buf)[:0], m)
	}
	switch {
	case err != nil:
		pool.Put(buf)
		return nil, err
	case cap(b) != cap(*buf): // outgrew the pooled buffer
		pool.Put(buf)
		return mem.BufferSlice{mem.SliceBuffer(b)}, nil
	}
	*buf = b
	return mem.BufferSlice{mem.NewBuffer(buf, pool)}, nil
}

// Unmarshal keeps the received bytes in v, which must be a *Frame. A message
// that arrived in one buffer is kept by reference; one spread over several
// HTTP/2 frames is joined into a single pooled buffer.
func (StreamCodec) Unmarshal(data mem.BufferSlice, v any) error {
	f, ok := v.(*Frame)
	if !ok {
		return fmt.Errorf("wire: cannot unmarshal into %T: want *wire.Frame", v)
	}
	f.Release(false)
	buf := data.MaterializeToBuffer(mem.DefaultBufferPool())
	f.buf = buf
	f.Data = buf.ReadOnlyData()
	return nil
}

// UnaryCodec is the codec of unary Spanner calls: requests are encoded as
// StreamCodec encodes them (DML and batches field by field, into a pooled
// buffer: proto.Marshal reflects over every parameter map twice, allocating
// for each entry; a commit's mutations field by field, AppendCommit), responses are unmarshalled as gRPC's proto codec does.
// Use it per call with grpc.ForceCodecV2(wire.UnaryCodec{}).
type UnaryCodec struct{}

var _ encoding.CodecV2 = UnaryCodec{}

// Name is empty, as StreamCodec's.
func (UnaryCodec) Name() string { return "" }

// Marshal encodes a protobuf request into a pooled buffer.
func (UnaryCodec) Marshal(v any) (mem.BufferSlice, error) { return marshal(v) }

// Unmarshal decodes a protobuf response, as gRPC's proto codec does.
func (UnaryCodec) Unmarshal(data mem.BufferSlice, v any) error {
	m, ok := v.(proto.Message)
	if !ok {
		return fmt.Errorf("wire: cannot unmarshal into %T: not a proto.Message", v)
	}
	buf := data.MaterializeToBuffer(mem.DefaultBufferPool())
	defer buf.Free()
	return proto.Unmarshal(buf.ReadOnlyData(), m)
}
