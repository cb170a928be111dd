package fakespanner

import (
	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// BatchWriteScript decides BatchWrite's answer for group i: its status
// (nil: OK), or, when end is not nil, the stream ends with end before
// the group is answered (a stream that broke off).
type BatchWriteScript func(i int, g *spannerpb.BatchWriteRequest_MutationGroup) (st error, end error)

// SetBatchWriteScript sets how BatchWrite answers each group (nil: every
// group OK).
func (s *Server) SetBatchWriteScript(f BatchWriteScript) {
	s.mu.Lock()
	s.batchWrite = f
	s.mu.Unlock()
}

// BatchWrite answers each mutation group in order, one response each, as
// SetBatchWriteScript says. Nothing is applied.
func (s *Server) BatchWrite(req *spannerpb.BatchWriteRequest, stream spannerpb.Spanner_BatchWriteServer) error {
	s.mu.Lock()
	_, err := s.sessionLocked(req.GetSession())
	f := s.batchWrite
	s.mu.Unlock()
	if err != nil {
		return err
	}
	if len(req.GetMutationGroups()) == 0 {
		return status.Error(codes.InvalidArgument, "fakespanner: BatchWrite without mutation groups")
	}
	for i, g := range req.GetMutationGroups() {
		var st error
		if f != nil {
			var end error
			if st, end = f(i, g); end != nil {
				return end
			}
		}
		resp := &spannerpb.BatchWriteResponse{Indexes: []int32{int32(i)}, Status: status.Convert(st).Proto()}
		if st == nil {
			resp.CommitTimestamp = timestamppb.Now()
		}
		if err := stream.Send(resp); err != nil {
			return err
		}
	}
	return nil
}
