package conn

import (
	"context"
	"sync"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc"

	"github.com/spannerfast/spannerfast/internal/wire"
)

const executeStreamingSQL = "/google.spanner.v1.Spanner/ExecuteStreamingSql"

var streamingDesc = &grpc.StreamDesc{StreamName: "ExecuteStreamingSql", ServerStreams: true}

// grpcStream is one ExecuteStreamingSql call whose responses arrive as
// wire.Frames instead of unmarshalled protos.
type grpcStream struct {
	cs     grpc.ClientStream
	cancel context.CancelFunc
	once   sync.Once
}

// openGRPCStream starts one attempt of the call.
func openGRPCStream(ctx context.Context, cc *grpc.ClientConn, req *spannerpb.ExecuteSqlRequest) (*grpcStream, error) {
	ctx, cancel := context.WithCancel(ctx)
	cs, err := cc.NewStream(ctx, streamingDesc, executeStreamingSQL, grpc.ForceCodecV2(wire.StreamCodec{}))
	if err != nil {
		cancel()
		return nil, err
	}
	if err := cs.SendMsg(req); err != nil {
		cancel()
		return nil, err
	}
	if err := cs.CloseSend(); err != nil {
		cancel()
		return nil, err
	}
	return &grpcStream{cs: cs, cancel: cancel}, nil
}

// Recv returns the next frame; io.EOF ends the stream.
func (s *grpcStream) Recv() (*wire.Frame, error) {
	f := new(wire.Frame)
	if err := s.cs.RecvMsg(f); err != nil {
		return nil, err
	}
	return f, nil
}

// Close cancels the call; gRPC then ends it without waiting for the server.
func (s *grpcStream) Close() error {
	s.once.Do(s.cancel)
	return nil
}
