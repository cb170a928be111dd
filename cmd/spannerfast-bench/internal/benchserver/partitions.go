package benchserver

import (
	"bytes"
	"context"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/spannerfast/spannerfast/cmd/spannerfast-bench/internal/workload"
)

// Partitioned queries. PartitionQuery of a partitioned workload's SQL
// answers its N partition tokens (whatever max_partitions hints, as Spanner
// may); ExecuteStreamingSql with a token streams that partition's slice of
// the rows, encoded once in New like every other result. Both need a
// read-only transaction id (a batch read-only transaction is begun with
// BeginTransaction), as Spanner does.

// partitioned is the stored answer of one partitioned query.
type partitioned struct {
	answer *spannerpb.PartitionResponse // pre-encoded
	msgs   [][]workload.Message         // by partition index
	bytes  int64
}

// addPartitioned encodes every partition of w.
func (s *Server) addPartitioned(w *workload.Workload) error {
	p := &partitioned{answer: &spannerpb.PartitionResponse{}}
	for k := range w.Partitions {
		msgs, err := w.EncodePartition(k)
		if err != nil {
			return err
		}
		for _, m := range msgs {
			p.bytes += int64(m.Size())
		}
		p.msgs = append(p.msgs, msgs)
		p.answer.Partitions = append(p.answer.Partitions, &spannerpb.Partition{PartitionToken: workload.PartitionToken(k)})
	}
	preEncode(p.answer)
	s.parts[w.SQL] = p
	s.bytes[w.SQL] = p.bytes
	return nil
}

// PartitionQuery returns the partition tokens of a partitioned workload's
// query.
func (s *Server) PartitionQuery(_ context.Context, req *spannerpb.PartitionQueryRequest) (*spannerpb.PartitionResponse, error) {
	p, ok := s.parts[req.GetSql()]
	if !ok {
		return nil, status.Errorf(codes.InvalidArgument, "fake server cannot partition SQL %q", req.GetSql())
	}
	if err := readOnlyID(req.GetTransaction()); err != nil {
		return nil, err
	}
	s.stats.partitionQueries.Add(1)
	return p.answer, nil
}

// readOnlyID checks that sel names a read-only transaction by id.
func readOnlyID(sel *spannerpb.TransactionSelector) error {
	id := sel.GetId()
	if len(id) == 0 || bytes.HasPrefix(id, rwPrefix) {
		return status.Error(codes.InvalidArgument, "partitioned queries need the id of a read-only transaction")
	}
	return nil
}

// streamResult returns the messages ExecuteStreamingSql sends for req,
// and the SQL text they are stored under (see resultKey): the query's
// result, or with a partition token that partition's.
func (s *Server) streamResult(req *spannerpb.ExecuteSqlRequest) (string, []workload.Message, error) {
	tok := req.GetPartitionToken()
	if len(tok) == 0 {
		key, ok := s.resultKey(req)
		if !ok {
			return "", nil, status.Errorf(codes.InvalidArgument, "fake server has no result for SQL %q", req.GetSql())
		}
		return key, s.results[key], nil
	}
	p, ok := s.parts[req.GetSql()]
	if !ok {
		return "", nil, status.Errorf(codes.InvalidArgument, "fake server has no partitions for SQL %q", req.GetSql())
	}
	if err := readOnlyID(req.GetTransaction()); err != nil {
		return "", nil, err
	}
	k, err := workload.PartitionIndex(tok)
	if err != nil || k >= len(p.msgs) {
		return "", nil, status.Errorf(codes.InvalidArgument, "bad partition token %q for SQL %q", tok, req.GetSql())
	}
	s.stats.partitionReads.Add(1)
	return req.GetSql(), p.msgs[k], nil
}
