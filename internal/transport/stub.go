package transport

import (
	"context"
	"slices"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/types/known/emptypb"

	"github.com/spannerfast/spannerfast/internal/wire"
)

// stub is a channel's Spanner stub whose calls of a transaction's work
// (ExecuteSql, ExecuteBatchDml, BeginTransaction, Commit, Rollback) use
// wire.UnaryCodec: their requests are encoded into pooled buffers, DML and
// batches field by field, where gRPC's proto codec reflects over every
// parameter map twice and allocates the encoding (TestWriteAllocations in
// package conn holds the counts).
type stub struct {
	spannerpb.SpannerClient
}

var _ spannerpb.SpannerClient = stub{}

// unaryOpts is made once: an option, or a variadic slice of them, per call
// is an allocation.
var unaryOpts = []grpc.CallOption{grpc.ForceCodecV2(wire.UnaryCodec{})}

func withCodec(opts []grpc.CallOption) []grpc.CallOption {
	if len(opts) == 0 {
		return unaryOpts
	}
	return append(slices.Clip(unaryOpts), opts...)
}

func (s stub) ExecuteSql(ctx context.Context, in *spannerpb.ExecuteSqlRequest, opts ...grpc.CallOption) (*spannerpb.ResultSet, error) {
	return s.SpannerClient.ExecuteSql(ctx, in, withCodec(opts)...)
}

func (s stub) ExecuteBatchDml(ctx context.Context, in *spannerpb.ExecuteBatchDmlRequest, opts ...grpc.CallOption) (*spannerpb.ExecuteBatchDmlResponse, error) {
	return s.SpannerClient.ExecuteBatchDml(ctx, in, withCodec(opts)...)
}

func (s stub) BeginTransaction(ctx context.Context, in *spannerpb.BeginTransactionRequest, opts ...grpc.CallOption) (*spannerpb.Transaction, error) {
	return s.SpannerClient.BeginTransaction(ctx, in, withCodec(opts)...)
}

func (s stub) Commit(ctx context.Context, in *spannerpb.CommitRequest, opts ...grpc.CallOption) (*spannerpb.CommitResponse, error) {
	return s.SpannerClient.Commit(ctx, in, withCodec(opts)...)
}

func (s stub) Rollback(ctx context.Context, in *spannerpb.RollbackRequest, opts ...grpc.CallOption) (*emptypb.Empty, error) {
	return s.SpannerClient.Rollback(ctx, in, withCodec(opts)...)
}
