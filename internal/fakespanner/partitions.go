package fakespanner

import (
	"context"
	"strconv"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Partitioned queries.
//
// AddPartitions registers the partitions of a SQL text: PartitionQuery for
// that text returns one partition per Result, and ExecuteStreamingSql with
// a partition's token streams that partition's Result, with its own resume
// tokens and Faults (so a fault can hit one partition and not the others).
// A SQL text with a plain Result (AddResult) and no partitions partitions
// into one partition that streams the plain Result.
//
// PartitionQuery needs a read-only transaction (selector id or begin): a
// read-write or single-use selector fails with INVALID_ARGUMENT, as
// Spanner's does. The request (partition_options, params, transaction) is
// recorded like any other; so are the partition_token and
// data_boost_enabled of the ExecuteStreamingSql requests.

// partitionState is the server's partition scripts.
type partitionState struct {
	bySQL   map[string][][]byte // partition tokens of a SQL text
	byToken map[string]*script
}

// PartitionToken is the token of partition i of sql on this server.
func PartitionToken(sql string, i int) []byte {
	return []byte("fakespanner-partition-" + strconv.Itoa(i) + ":" + sql)
}

// AddPartitions registers the partitions of sql (the exact SQL text),
// replacing earlier ones. Each Result is copied; an unusable one fails the
// test on a server from Start and its partition with INVALID_ARGUMENT.
func (s *Server) AddPartitions(sql string, parts ...*Result) {
	tokens := make([][]byte, len(parts))
	scripts := make([]*script, len(parts))
	for i, r := range parts {
		tokens[i] = PartitionToken(sql, i)
		scripts[i] = compile(sql, r)
	}
	s.mu.Lock()
	if s.parts.bySQL == nil {
		s.parts = partitionState{bySQL: map[string][][]byte{}, byToken: map[string]*script{}}
	}
	for _, tok := range s.parts.bySQL[sql] {
		delete(s.parts.byToken, string(tok))
	}
	s.parts.bySQL[sql] = tokens
	for i, sc := range scripts {
		s.parts.byToken[string(tokens[i])] = sc
	}
	tb := s.tb
	s.mu.Unlock()
	for i, sc := range scripts {
		if sc.err != nil && tb != nil {
			tb.Helper()
			tb.Errorf("fakespanner: AddPartitions(%q) partition %d: %v", sql, i, sc.err)
		}
	}
}

// PartitionQuery returns the partitions registered for the SQL text, or
// one partition when the text has a plain Result.
func (s *Server) PartitionQuery(_ context.Context, req *spannerpb.PartitionQueryRequest) (*spannerpb.PartitionResponse, error) {
	t, _, err := s.selectTxn(req.GetSession(), req.GetTransaction())
	if err != nil {
		return nil, err
	}
	if t == nil || t.readWrite {
		return nil, status.Error(codes.InvalidArgument, "fakespanner: PartitionQuery needs a read-only transaction (id or begin)")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	tokens, ok := s.parts.bySQL[req.GetSql()]
	if !ok {
		sc, found := s.scripts[req.GetSql()]
		if !found {
			return nil, status.Errorf(codes.InvalidArgument, "fakespanner: no partitions or result registered for SQL %q", req.GetSql())
		}
		tok := PartitionToken(req.GetSql(), 0)
		if s.parts.byToken == nil {
			s.parts = partitionState{bySQL: map[string][][]byte{}, byToken: map[string]*script{}}
		}
		s.parts.byToken[string(tok)] = sc
		tokens = [][]byte{tok}
	}
	resp := &spannerpb.PartitionResponse{Transaction: &spannerpb.Transaction{Id: []byte(t.id)}}
	for _, tok := range tokens {
		resp.Partitions = append(resp.Partitions, &spannerpb.Partition{PartitionToken: tok})
	}
	return resp, nil
}

// lookupPartition finds the script of a partition token; the SQL text must
// be the partitioned one, as Spanner requires.
func (s *Server) lookupPartition(req *spannerpb.ExecuteSqlRequest) (*script, error) {
	if req.GetTransaction().GetId() == nil {
		return nil, status.Error(codes.InvalidArgument, "fakespanner: a partition runs in its transaction (selector id)")
	}
	s.mu.Lock()
	sc, ok := s.parts.byToken[string(req.GetPartitionToken())]
	s.mu.Unlock()
	if !ok {
		return nil, status.Errorf(codes.InvalidArgument, "fakespanner: unknown partition token %q", req.GetPartitionToken())
	}
	if sc.sql != req.GetSql() {
		return nil, status.Errorf(codes.InvalidArgument, "fakespanner: partition token %q belongs to SQL %q, not %q", req.GetPartitionToken(), sc.sql, req.GetSql())
	}
	if sc.err != nil {
		return nil, status.Errorf(codes.InvalidArgument, "fakespanner: bad partition result for SQL %q: %v", sc.sql, sc.err)
	}
	return sc, nil
}
