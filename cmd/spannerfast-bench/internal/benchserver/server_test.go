package benchserver

import (
	"context"
	"errors"
	"io"
	"testing"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/spannerfast/spannerfast/cmd/spannerfast-bench/internal/workload"
)

func start(t *testing.T, names string, scale float64) (*Server, spannerpb.SpannerClient, []*workload.Workload) {
	t.Helper()
	ws, err := workload.Select(names, scale)
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(ws)
	if err != nil {
		t.Fatal(err)
	}
	return s, serve(t, s), ws
}

// serve starts s and returns a client of it; both end with the test.
func serve(t *testing.T, s *Server) spannerpb.SpannerClient {
	t.Helper()
	addr, err := s.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Stop)
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return spannerpb.NewSpannerClient(conn)
}

func readAll(t *testing.T, c spannerpb.SpannerClient, req *spannerpb.ExecuteSqlRequest) ([]*spannerpb.PartialResultSet, error) {
	t.Helper()
	st, err := c.ExecuteStreamingSql(context.Background(), req)
	if err != nil {
		return nil, err
	}
	var out []*spannerpb.PartialResultSet
	for {
		m, err := st.Recv()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, m)
	}
}

// TestStreamsStoredBytes checks that a standard gRPC client receives
// exactly the stored messages, and that resume tokens resume after their
// message.
func TestStreamsStoredBytes(t *testing.T) {
	s, c, ws := start(t, "wide-chunked", 0.05)
	ctx := context.Background()
	sess, err := c.CreateSession(ctx, &spannerpb.CreateSessionRequest{Database: "projects/p/instances/i/databases/d",
		Session: &spannerpb.Session{Multiplexed: true}})
	if err != nil || !sess.Multiplexed {
		t.Fatalf("CreateSession: %v, %v", sess, err)
	}
	w := ws[0]
	want, err := w.Encode()
	if err != nil {
		t.Fatal(err)
	}
	got, err := readAll(t, c, &spannerpb.ExecuteSqlRequest{Session: sess.Name, Sql: w.SQL})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) || len(got) < 2 {
		t.Fatalf("%d messages, want %d (at least 2)", len(got), len(want))
	}
	for i := range got {
		var m spannerpb.PartialResultSet
		if err := proto.Unmarshal(want[i].Bytes(), &m); err != nil {
			t.Fatal(err)
		}
		if !proto.Equal(got[i], &m) {
			t.Fatalf("message %d differs", i)
		}
	}
	resumed, err := readAll(t, c, &spannerpb.ExecuteSqlRequest{Session: sess.Name, Sql: w.SQL, ResumeToken: got[0].ResumeToken})
	if err != nil {
		t.Fatal(err)
	}
	if len(resumed) != len(got)-1 || !proto.Equal(resumed[0], got[1]) {
		t.Fatalf("resume after message 0 gave %d messages", len(resumed))
	}
	if s.Queries() != 2 || s.ResultBytes(w.SQL) == 0 {
		t.Fatalf("Queries %d, ResultBytes %d", s.Queries(), s.ResultBytes(w.SQL))
	}
}

func TestErrorsAndSmallCalls(t *testing.T) {
	_, c, ws := start(t, "point", 0.01)
	ctx := context.Background()
	_, err := readAll(t, c, &spannerpb.ExecuteSqlRequest{Sql: "SELECT nope"})
	if status.Code(err) != codes.InvalidArgument {
		t.Errorf("unknown SQL: %v", err)
	}
	_, err = readAll(t, c, &spannerpb.ExecuteSqlRequest{Sql: ws[0].SQL, ResumeToken: []byte("bad")})
	if status.Code(err) != codes.InvalidArgument {
		t.Errorf("bad resume token: %v", err)
	}
	if _, err := readAll(t, c, &spannerpb.ExecuteSqlRequest{Sql: ws[0].WarmUp().SQL}); err != nil {
		t.Errorf("warm-up variant not served: %v", err)
	}
	rs, err := c.ExecuteSql(ctx, &spannerpb.ExecuteSqlRequest{Sql: "SELECT 1"})
	if err != nil || len(rs.Rows) != 1 || len(rs.Metadata.GetRowType().GetFields()) != 1 {
		t.Errorf("ExecuteSql SELECT 1: %v, %v", rs, err)
	}
	if _, err := c.BatchCreateSessions(ctx, &spannerpb.BatchCreateSessionsRequest{Database: "d", SessionCount: 3}); err != nil {
		t.Error(err)
	}
	if _, err := c.BatchCreateSessions(ctx, &spannerpb.BatchCreateSessionsRequest{Database: "d"}); status.Code(err) != codes.InvalidArgument {
		t.Errorf("BatchCreateSessions without a count: %v", err)
	}
	if _, err := c.GetSession(ctx, &spannerpb.GetSessionRequest{Name: "nope"}); status.Code(err) != codes.NotFound {
		t.Errorf("GetSession: %v", err)
	}
	if _, err := c.BeginTransaction(ctx, &spannerpb.BeginTransactionRequest{}); status.Code(err) != codes.InvalidArgument {
		t.Errorf("BeginTransaction without a mode: %v", err)
	}
	if _, err := c.Rollback(ctx, &spannerpb.RollbackRequest{}); err != nil {
		t.Error(err)
	}
	if _, err := c.Read(ctx, &spannerpb.ReadRequest{}); status.Code(err) != codes.Unimplemented {
		t.Errorf("Read: %v", err)
	}
}

// TestDialectQuery: the server answers the dialect query a connector sends
// on its first connection, as a GoogleSQL database.
func TestDialectQuery(t *testing.T) {
	msgs, err := dialectAnswer()
	if err != nil {
		t.Fatal(err)
	}
	var prs spannerpb.PartialResultSet
	if err := proto.Unmarshal(msgs[0].Bytes(), &prs); err != nil {
		t.Fatal(err)
	}
	if got := prs.GetValues()[0].GetStringValue(); got != "GOOGLE_STANDARD_SQL" || !prs.GetLast() {
		t.Fatalf("answer %q (last %v), want GOOGLE_STANDARD_SQL, last", got, prs.GetLast())
	}
}
