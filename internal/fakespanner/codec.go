package fakespanner

import (
	"google.golang.org/grpc/encoding"
	grpcproto "google.golang.org/grpc/encoding/proto"
	"google.golang.org/grpc/mem"
)

// encoded is a message already in wire form. The scripts keep their
// messages encoded once, so serving a stream costs no marshalling: that
// keeps the fake server out of the way when the benchmark tool measures a
// client's decoding speed.
type encoded []byte

// serverCodec is gRPC's proto codec plus pass-through for encoded
// messages. Its name is "proto", so the wire content type is unchanged.
type serverCodec struct{ base encoding.CodecV2 }

func newServerCodec() serverCodec {
	return serverCodec{base: encoding.GetCodecV2(grpcproto.Name)}
}

func (c serverCodec) Marshal(v any) (mem.BufferSlice, error) {
	if e, ok := v.(encoded); ok {
		// SliceBuffer's Free is a no-op, so the script's bytes are never
		// recycled; gRPC only reads them.
		return mem.BufferSlice{mem.SliceBuffer(e)}, nil
	}
	return c.base.Marshal(v)
}

func (c serverCodec) Unmarshal(data mem.BufferSlice, v any) error {
	return c.base.Unmarshal(data, v)
}

func (serverCodec) Name() string { return grpcproto.Name }
