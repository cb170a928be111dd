package conn

import (
	"context"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc"

	"github.com/spannerfast/spannerfast/internal/wire"
)

const executeStreamingSQL = "/google.spanner.v1.Spanner/ExecuteStreamingSql"

var (
	streamingDesc  = &grpc.StreamDesc{StreamName: "ExecuteStreamingSql", ServerStreams: true}
	streamCodecOpt = grpc.ForceCodecV2(wire.StreamCodec{}) // made once: an option per call is an allocation
)

// grpcStream is one attempt of an ExecuteStreamingSql call whose responses
// arrive as wire.Frames instead of unmarshalled protos.
//
// An attempt has no context of its own: it ends either with an error from
// RecvMsg (which releases it, and is when a retry starts the next attempt)
// or when the query's context is cancelled by resumableStream.Close. That
// saves a context per query, and a stream that finished normally is never
// reset.
type grpcStream struct {
	cs grpc.ClientStream
}

// openGRPCStream starts one attempt of the call. On error the caller
// cancels ctx.
func openGRPCStream(ctx context.Context, cc *grpc.ClientConn, req *spannerpb.ExecuteSqlRequest) (*grpcStream, error) {
	cs, err := cc.NewStream(ctx, streamingDesc, executeStreamingSQL, streamCodecOpt)
	if err != nil {
		return nil, err
	}
	if err := cs.SendMsg(req); err != nil {
		return nil, err
	}
	if err := cs.CloseSend(); err != nil {
		return nil, err
	}
	return &grpcStream{cs: cs}, nil
}

// Recv returns the next frame; io.EOF ends the stream.
func (s *grpcStream) Recv() (*wire.Frame, error) {
	f := new(wire.Frame)
	if err := s.cs.RecvMsg(f); err != nil {
		return nil, err
	}
	return f, nil
}

// Close does nothing: see grpcStream.
func (s *grpcStream) Close() error { return nil }
