package fakespanner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"runtime"
	"strings"
	"sync"
	"testing"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"github.com/spannerfast/spannerfast/internal/randrs"
	"go.uber.org/goleak"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"
)

func TestMain(m *testing.M) {
	// The official client's dependencies start an opencensus worker at init.
	goleak.VerifyTestMain(m, goleak.IgnoreTopFunction("go.opencensus.io/stats/view.(*worker).start"))
}

const db = "projects/p/instances/i/databases/d"

func client(t *testing.T, s *Server) spannerpb.SpannerClient {
	t.Helper()
	conn, err := s.Dial()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return spannerpb.NewSpannerClient(conn)
}

func session(t *testing.T, c spannerpb.SpannerClient, multiplexed bool) string {
	t.Helper()
	ss, err := c.CreateSession(context.Background(), &spannerpb.CreateSessionRequest{Database: db, Session: &spannerpb.Session{Multiplexed: multiplexed}})
	if err != nil {
		t.Fatal(err)
	}
	return ss.Name
}

// readAll reads a stream to its end and returns the messages and the final
// error (nil at a clean end).
func readAll(t *testing.T, c spannerpb.SpannerClient, ctx context.Context, req *spannerpb.ExecuteSqlRequest) ([]*spannerpb.PartialResultSet, error) {
	t.Helper()
	st, err := c.ExecuteStreamingSql(ctx, req)
	if err != nil {
		return nil, err
	}
	var msgs []*spannerpb.PartialResultSet
	for {
		m, err := st.Recv()
		if err == io.EOF {
			return msgs, nil
		}
		if err != nil {
			return msgs, err
		}
		msgs = append(msgs, m)
	}
}

func wantCode(t *testing.T, err error, c codes.Code, substr string) {
	t.Helper()
	if status.Code(err) != c || !strings.Contains(status.Convert(err).Message(), substr) {
		t.Fatalf("err = %v, want %v containing %q", err, c, substr)
	}
}

func TestSessions(t *testing.T) {
	s := Start(t)
	c := client(t, s)
	ctx := context.Background()

	mux, err := c.CreateSession(ctx, &spannerpb.CreateSessionRequest{Database: db, Session: &spannerpb.Session{Multiplexed: true, Labels: map[string]string{"a": "b"}}})
	if err != nil {
		t.Fatal(err)
	}
	if !mux.Multiplexed || !strings.HasPrefix(mux.Name, db+"/sessions/") || mux.Labels["a"] != "b" || mux.CreateTime == nil {
		t.Fatalf("session %v", mux)
	}
	batch, err := c.BatchCreateSessions(ctx, &spannerpb.BatchCreateSessionsRequest{Database: db, SessionCount: 3})
	if err != nil || len(batch.Session) != 3 {
		t.Fatalf("batch: %v %v", batch, err)
	}
	if len(s.Sessions()) != 4 {
		t.Fatalf("%d sessions", len(s.Sessions()))
	}
	got, err := c.GetSession(ctx, &spannerpb.GetSessionRequest{Name: batch.Session[1].Name})
	if err != nil || got.Name != batch.Session[1].Name || got.Multiplexed {
		t.Fatalf("get: %v %v", got, err)
	}
	if _, err := c.DeleteSession(ctx, &spannerpb.DeleteSessionRequest{Name: got.Name}); err != nil {
		t.Fatal(err)
	}
	_, err = c.GetSession(ctx, &spannerpb.GetSessionRequest{Name: got.Name})
	wantCode(t, err, codes.NotFound, "Session not found")
	var ri *errdetails.ResourceInfo
	for _, d := range status.Convert(err).Details() {
		if x, ok := d.(*errdetails.ResourceInfo); ok {
			ri = x
		}
	}
	if ri == nil || ri.ResourceType != sessionResourceType || ri.ResourceName != got.Name {
		t.Fatalf("resource info %v", ri)
	}
	_, err = c.DeleteSession(ctx, &spannerpb.DeleteSessionRequest{Name: got.Name})
	wantCode(t, err, codes.NotFound, "Session not found")

	// A dropped session fails queries.
	if !s.DropSession(batch.Session[0].Name) || s.DropSession("nope") {
		t.Fatal("DropSession")
	}
	_, err = c.ExecuteSql(ctx, &spannerpb.ExecuteSqlRequest{Session: batch.Session[0].Name, Sql: "SELECT 1"})
	wantCode(t, err, codes.NotFound, "Session not found")
	_, err = c.ExecuteSql(ctx, &spannerpb.ExecuteSqlRequest{Sql: "SELECT 1"})
	wantCode(t, err, codes.InvalidArgument, "without session")

	_, err = c.CreateSession(ctx, &spannerpb.CreateSessionRequest{})
	wantCode(t, err, codes.InvalidArgument, "database")
	_, err = c.BatchCreateSessions(ctx, &spannerpb.BatchCreateSessionsRequest{Database: db})
	wantCode(t, err, codes.InvalidArgument, "session_count")
	batch, err = c.BatchCreateSessions(ctx, &spannerpb.BatchCreateSessionsRequest{Database: db, SessionCount: 500})
	if err != nil || len(batch.Session) != 100 {
		t.Fatalf("batch of 500: %d %v", len(batch.GetSession()), err)
	}
	// Unimplemented methods say so.
	_, err = c.PartitionRead(ctx, &spannerpb.PartitionReadRequest{})
	wantCode(t, err, codes.Unimplemented, "")
}

func TestSelect1AndUnknownSQL(t *testing.T) {
	s := Start(t)
	c := client(t, s)
	ctx := context.Background()
	sess := session(t, c, true)

	rs, err := c.ExecuteSql(ctx, &spannerpb.ExecuteSqlRequest{Session: sess, Sql: "SELECT 1"})
	if err != nil {
		t.Fatal(err)
	}
	if len(rs.Rows) != 1 || rs.Rows[0].Values[0].GetStringValue() != "1" ||
		rs.Metadata.RowType.Fields[0].Type.Code != spannerpb.TypeCode_INT64 {
		t.Fatalf("SELECT 1: %v", rs)
	}
	msgs, err := readAll(t, c, ctx, &spannerpb.ExecuteSqlRequest{Session: sess, Sql: "SELECT 1"})
	if err != nil || len(msgs) != 1 || len(msgs[0].Values) != 1 {
		t.Fatalf("streaming SELECT 1: %v %v", msgs, err)
	}

	_, err = readAll(t, c, ctx, &spannerpb.ExecuteSqlRequest{Session: sess, Sql: "SELECT nope FROM t"})
	wantCode(t, err, codes.InvalidArgument, `"SELECT nope FROM t"`)
	_, err = c.ExecuteSql(ctx, &spannerpb.ExecuteSqlRequest{Session: sess, Sql: "SELECT nope"})
	wantCode(t, err, codes.InvalidArgument, `"SELECT nope"`)

	s.RemoveResult("SELECT 1")
	_, err = c.ExecuteSql(ctx, &spannerpb.ExecuteSqlRequest{Session: sess, Sql: "SELECT 1"})
	wantCode(t, err, codes.InvalidArgument, "SELECT 1")

	// Fallback answers unregistered SQL.
	s.SetFallback(func(req *spannerpb.ExecuteSqlRequest) *Result {
		if strings.HasPrefix(req.Sql, "UPDATE") {
			return DML(int64(len(req.Sql)))
		}
		return nil
	})
	rs, err = c.ExecuteSql(ctx, &spannerpb.ExecuteSqlRequest{Session: sess, Sql: "UPDATE t"})
	if err != nil || rs.Stats.GetRowCountExact() != 8 {
		t.Fatalf("fallback: %v %v", rs, err)
	}
	_, err = c.ExecuteSql(ctx, &spannerpb.ExecuteSqlRequest{Session: sess, Sql: "DELETE t"})
	wantCode(t, err, codes.InvalidArgument, "DELETE t")
}

func TestStreamAndResume(t *testing.T) {
	s := Start(t)
	c := client(t, s)
	ctx := context.Background()
	sess := session(t, c, false)

	rs := randrs.ResultSet(rand.New(rand.NewPCG(1, 2)), randrs.Options{MinRows: 6, MaxRows: 6, MinColumns: 2, MaxColumns: 2})
	const q = "SELECT * FROM t"
	s.AddResult(q, &Result{ResultSet: rs, Split: SplitOptions{MaxValues: 2, Last: true}})
	want := Split(rs, SplitOptions{MaxValues: 2, Last: true})

	msgs, err := readAll(t, c, ctx, &spannerpb.ExecuteSqlRequest{Session: sess, Sql: q})
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != len(want) {
		t.Fatalf("%d messages, want %d", len(msgs), len(want))
	}
	for i := range msgs {
		if !proto.Equal(msgs[i], want[i]) {
			t.Fatalf("message %d differs", i)
		}
	}
	sameRS(t, refMerge(t, msgs), rs)

	// Resume after message 2: messages 3.. without metadata.
	resumed, err := readAll(t, c, ctx, &spannerpb.ExecuteSqlRequest{Session: sess, Sql: q, ResumeToken: msgs[2].ResumeToken})
	if err != nil {
		t.Fatal(err)
	}
	if len(resumed) != len(want)-3 || resumed[0].Metadata != nil || !proto.Equal(resumed[0], want[3]) {
		t.Fatalf("resumed stream: %v", resumed)
	}
	// Resume after the final message: empty stream.
	resumed, err = readAll(t, c, ctx, &spannerpb.ExecuteSqlRequest{Session: sess, Sql: q, ResumeToken: msgs[len(msgs)-1].ResumeToken})
	if err != nil || len(resumed) != 0 {
		t.Fatalf("resume at end: %v %v", resumed, err)
	}
	_, err = readAll(t, c, ctx, &spannerpb.ExecuteSqlRequest{Session: sess, Sql: q, ResumeToken: []byte("bogus")})
	wantCode(t, err, codes.InvalidArgument, "resume token")

	// ResendMetadata repeats metadata on a resumed stream.
	s.AddResult(q, &Result{ResultSet: rs, Split: SplitOptions{MaxValues: 2}, ResendMetadata: true})
	resumed, err = readAll(t, c, ctx, &spannerpb.ExecuteSqlRequest{Session: sess, Sql: q, ResumeToken: ResumeToken(1)})
	if err != nil || !proto.Equal(resumed[0].Metadata, rs.Metadata) {
		t.Fatalf("resend metadata: %v %v", resumed, err)
	}

	// Unary ExecuteSql returns the whole result set.
	got, err := c.ExecuteSql(ctx, &spannerpb.ExecuteSqlRequest{Session: sess, Sql: q})
	if err != nil {
		t.Fatal(err)
	}
	sameRS(t, got, rs)
}

func TestExplicitMessages(t *testing.T) {
	s := Start(t)
	c := client(t, s)
	ctx := context.Background()
	sess := session(t, c, false)
	md := &spannerpb.ResultSetMetadata{RowType: &spannerpb.StructType{Fields: []*spannerpb.StructType_Field{{Name: "s", Type: tString}}}}
	script := []*spannerpb.PartialResultSet{
		{Metadata: md, Values: []*structpb.Value{sv("ab"), sv("c")}, ChunkedValue: true, ResumeToken: []byte("t1")},
		{Values: []*structpb.Value{sv("d")}},
		{Values: []*structpb.Value{sv("e")}, ResumeToken: []byte("t3"), Last: true},
	}
	s.AddResult("q", &Result{Messages: script})
	script[1].Values = nil // AddResult copied the messages

	msgs, err := readAll(t, c, ctx, &spannerpb.ExecuteSqlRequest{Session: sess, Sql: "q"})
	if err != nil || len(msgs) != 3 || msgs[1].Values[0].GetStringValue() != "d" {
		t.Fatalf("%v %v", msgs, err)
	}
	resumed, err := readAll(t, c, ctx, &spannerpb.ExecuteSqlRequest{Session: sess, Sql: "q", ResumeToken: []byte("t1")})
	if err != nil || len(resumed) != 2 || resumed[0].Values[0].GetStringValue() != "d" {
		t.Fatalf("resume: %v %v", resumed, err)
	}
	rs, err := c.ExecuteSql(ctx, &spannerpb.ExecuteSqlRequest{Session: sess, Sql: "q"})
	if err != nil || len(rs.Rows) != 3 || rs.Rows[1].Values[0].GetStringValue() != "cd" {
		t.Fatalf("unary: %v %v", rs, err)
	}

	// A stream that cannot be merged is still streamed, but unary fails.
	s.AddResult("bad-merge", &Result{Messages: []*spannerpb.PartialResultSet{{Metadata: md, Values: []*structpb.Value{sv("a")}, ChunkedValue: true}}})
	if msgs, err := readAll(t, c, ctx, &spannerpb.ExecuteSqlRequest{Session: sess, Sql: "bad-merge"}); err != nil || len(msgs) != 1 {
		t.Fatalf("bad-merge stream: %v %v", msgs, err)
	}
	_, err = c.ExecuteSql(ctx, &spannerpb.ExecuteSqlRequest{Session: sess, Sql: "bad-merge"})
	wantCode(t, err, codes.InvalidArgument, "one reply")
}

// fakeTB captures Errorf calls.
type fakeTB struct {
	testing.TB
	mu   sync.Mutex
	errs []string
}

func (f *fakeTB) Helper() {}
func (f *fakeTB) Errorf(format string, args ...any) {
	f.mu.Lock()
	f.errs = append(f.errs, fmt.Sprintf(format, args...))
	f.mu.Unlock()
}

func TestBadScripts(t *testing.T) {
	s := Start(t)
	ftb := &fakeTB{TB: t}
	s.tb = ftb
	c := client(t, s)
	ctx := context.Background()
	sess := session(t, c, false)

	s.AddResult("nil", nil)
	s.AddResult("empty", &Result{})
	s.AddResult("badchunk", &Result{ResultSet: Select1().ResultSet, Split: SplitOptions{Chunks: []Chunk{{Row: 3}}}})
	s.AddResult("duptok", &Result{Messages: []*spannerpb.PartialResultSet{{ResumeToken: []byte("x")}, {ResumeToken: []byte("x")}}})
	if len(ftb.errs) != 4 {
		t.Fatalf("reported %d errors: %q", len(ftb.errs), ftb.errs)
	}
	for _, q := range []string{"nil", "empty", "badchunk", "duptok"} {
		_, err := readAll(t, c, ctx, &spannerpb.ExecuteSqlRequest{Session: sess, Sql: q})
		wantCode(t, err, codes.InvalidArgument, "bad result for SQL")
	}
}

func TestFaults(t *testing.T) {
	s := Start(t)
	c := client(t, s)
	ctx := context.Background()
	sess := session(t, c, false)
	rs := randrs.ResultSet(rand.New(rand.NewPCG(4, 4)), randrs.Options{MinRows: 5, MaxRows: 5, MinColumns: 1, MaxColumns: 1})
	req := &spannerpb.ExecuteSqlRequest{Session: sess, Sql: "q"}

	for _, c2 := range []struct {
		err  error
		code codes.Code
		msg  string
	}{
		{ErrUnavailable, codes.Unavailable, "UNAVAILABLE"},
		{ErrRSTStream, codes.Internal, "stream terminated by RST_STREAM"},
		{ErrAborted, codes.Aborted, "aborted"},
		{ErrDeadlineExceeded, codes.DeadlineExceeded, "DEADLINE_EXCEEDED"},
	} {
		s.AddResult("q", &Result{ResultSet: rs, Split: SplitOptions{MaxValues: 1}, Faults: []Fault{{AfterMessage: 2, Err: c2.err}}})
		msgs, err := readAll(t, c, ctx, req)
		wantCode(t, err, c2.code, c2.msg)
		if len(msgs) != 2 {
			t.Fatalf("%d messages before the fault", len(msgs))
		}
		// Fires once: the resumed stream completes.
		r2 := proto.Clone(req).(*spannerpb.ExecuteSqlRequest)
		r2.ResumeToken = msgs[1].ResumeToken
		rest, err := readAll(t, c, ctx, r2)
		if err != nil || len(rest) != 3 {
			t.Fatalf("after fault: %d %v", len(rest), err)
		}
		sameRS(t, refMerge(t, append(msgs, rest...)), rs)
	}

	// Times: fires twice, then never; at position 0; at the end.
	s.AddResult("q", &Result{ResultSet: rs, Faults: []Fault{{AfterMessage: 0, Err: ErrUnavailable, Times: 2}, {AfterMessage: 1, Err: ErrInternal}}})
	for i := 0; i < 2; i++ {
		msgs, err := readAll(t, c, ctx, req)
		wantCode(t, err, codes.Unavailable, "")
		if len(msgs) != 0 {
			t.Fatal("messages before a position-0 fault")
		}
	}
	msgs, err := readAll(t, c, ctx, req)
	wantCode(t, err, codes.Internal, "not retryable")
	if len(msgs) != 1 {
		t.Fatalf("%d messages", len(msgs))
	}
	if _, err := readAll(t, c, ctx, req); err != nil {
		t.Fatal(err)
	}

	// Times < 0: always. Unary ExecuteSql sees position-0 faults.
	s.AddResult("q", &Result{ResultSet: rs, Faults: []Fault{{Err: ErrAborted, Times: -1}}})
	for i := 0; i < 3; i++ {
		_, err := c.ExecuteSql(ctx, req)
		wantCode(t, err, codes.Aborted, "")
	}

	// Retry info detail.
	e := WithRetryDelay(codes.ResourceExhausted, "slow down", 1500)
	if status.Code(e) != codes.ResourceExhausted || len(status.Convert(e).Details()) != 1 {
		t.Fatalf("WithRetryDelay: %v", e)
	}
}

func TestHangAndDelay(t *testing.T) {
	s := Start(t)
	c := client(t, s)
	sess := session(t, c, false)
	rs := randrs.ResultSet(rand.New(rand.NewPCG(4, 4)), randrs.Options{MinRows: 4, MaxRows: 4, MinColumns: 1, MaxColumns: 1})

	// Hang after message 2: the client gets 2 messages, cancels, and the
	// server handler ends (goleak checks at exit).
	s.AddResult("hang", &Result{ResultSet: rs, Split: SplitOptions{MaxValues: 1}, Faults: []Fault{{AfterMessage: 2, Hang: true}}})
	ctx, cancel := context.WithCancel(context.Background())
	st, err := c.ExecuteStreamingSql(ctx, &spannerpb.ExecuteSqlRequest{Session: sess, Sql: "hang"})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		if _, err := st.Recv(); err != nil {
			t.Fatal(err)
		}
	}
	cancel()
	_, err = st.Recv()
	wantCode(t, err, codes.Canceled, "")

	// Hang after the last message: a client that honours last stops
	// reading without waiting for the end of the stream.
	s.AddResult("hang-end", &Result{ResultSet: rs, Split: SplitOptions{MaxValues: 3, Last: true}, Faults: []Fault{{AfterMessage: 2, Hang: true, Times: -1}}})
	ctx, cancel = context.WithCancel(context.Background())
	st, err = c.ExecuteStreamingSql(ctx, &spannerpb.ExecuteSqlRequest{Session: sess, Sql: "hang-end"})
	if err != nil {
		t.Fatal(err)
	}
	var msgs []*spannerpb.PartialResultSet
	for {
		m, err := st.Recv()
		if err != nil {
			t.Fatal(err)
		}
		msgs = append(msgs, m)
		if m.Last {
			break
		}
	}
	cancel()
	sameRS(t, refMerge(t, msgs), rs)

	// A long delay ends when the client gives up.
	s.AddResult("slow", &Result{ResultSet: rs, Faults: []Fault{{AfterMessage: 1, Delay: 1 << 62}}})
	ctx, cancel = context.WithCancel(context.Background())
	st, err = c.ExecuteStreamingSql(ctx, &spannerpb.ExecuteSqlRequest{Session: sess, Sql: "slow"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Recv(); err != nil {
		t.Fatal(err)
	}
	cancel()
	_, err = st.Recv()
	wantCode(t, err, codes.Canceled, "")

	// A short delay just delays.
	s.AddResult("delay", &Result{ResultSet: rs, Faults: []Fault{{AfterMessage: 0, Delay: 1}}})
	if _, err := readAll(t, c, context.Background(), &spannerpb.ExecuteSqlRequest{Session: sess, Sql: "delay"}); err != nil {
		t.Fatal(err)
	}

	// Closing the server ends hanging streams too.
	s.AddResult("hang2", &Result{ResultSet: rs, Faults: []Fault{{Hang: true}}})
	base := len(s.RequestsFor("ExecuteStreamingSql"))
	st, err = c.ExecuteStreamingSql(context.Background(), &spannerpb.ExecuteSqlRequest{Session: sess, Sql: "hang2"})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := st.Recv(); done <- err }()
	for len(s.RequestsFor("ExecuteStreamingSql")) <= base {
		runtimeGosched()
	}
	s.Close()
	if err := <-done; err == nil {
		t.Fatal("stream survived Close")
	}
}

func TestTransactions(t *testing.T) {
	s := Start(t)
	c := client(t, s)
	ctx := context.Background()
	sess := session(t, c, false)
	s.AddResult("UPDATE t SET a = 1", DML(3))
	rw := &spannerpb.TransactionOptions{Mode: &spannerpb.TransactionOptions_ReadWrite_{ReadWrite: &spannerpb.TransactionOptions_ReadWrite{}}}
	ro := &spannerpb.TransactionOptions{Mode: &spannerpb.TransactionOptions_ReadOnly_{ReadOnly: &spannerpb.TransactionOptions_ReadOnly{ReturnReadTimestamp: true}}}

	// Inline begin with unary DML.
	rs, err := c.ExecuteSql(ctx, &spannerpb.ExecuteSqlRequest{Session: sess, Sql: "UPDATE t SET a = 1",
		Transaction: &spannerpb.TransactionSelector{Selector: &spannerpb.TransactionSelector_Begin{Begin: rw}}})
	if err != nil {
		t.Fatal(err)
	}
	id := rs.Metadata.GetTransaction().GetId()
	if len(id) == 0 || rs.Stats.GetRowCountExact() != 3 || rs.PrecommitToken != nil {
		t.Fatalf("inline begin: %v", rs)
	}
	sel := &spannerpb.TransactionSelector{Selector: &spannerpb.TransactionSelector_Id{Id: id}}
	if _, err := c.ExecuteSql(ctx, &spannerpb.ExecuteSqlRequest{Session: sess, Sql: "UPDATE t SET a = 1", Transaction: sel}); err != nil {
		t.Fatal(err)
	}
	resp, err := c.Commit(ctx, &spannerpb.CommitRequest{Session: sess, Transaction: &spannerpb.CommitRequest_TransactionId{TransactionId: id},
		ReturnCommitStats: true, Mutations: []*spannerpb.Mutation{{}, {}}})
	if err != nil || resp.CommitTimestamp == nil || resp.CommitStats.GetMutationCount() != 2 {
		t.Fatalf("commit: %v %v", resp, err)
	}
	_, err = c.Commit(ctx, &spannerpb.CommitRequest{Session: sess, Transaction: &spannerpb.CommitRequest_TransactionId{TransactionId: id}})
	wantCode(t, err, codes.FailedPrecondition, "already")
	_, err = c.ExecuteSql(ctx, &spannerpb.ExecuteSqlRequest{Session: sess, Sql: "UPDATE t SET a = 1", Transaction: sel})
	wantCode(t, err, codes.FailedPrecondition, "already")
	_, err = c.Commit(ctx, &spannerpb.CommitRequest{Session: sess, Transaction: &spannerpb.CommitRequest_TransactionId{TransactionId: []byte("nope")}})
	wantCode(t, err, codes.NotFound, "Transaction not found")
	_, err = c.Commit(ctx, &spannerpb.CommitRequest{Session: sess})
	wantCode(t, err, codes.InvalidArgument, "without a transaction")
	if _, err := c.Commit(ctx, &spannerpb.CommitRequest{Session: sess, Transaction: &spannerpb.CommitRequest_SingleUseTransaction{SingleUseTransaction: rw}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Rollback(ctx, &spannerpb.RollbackRequest{Session: sess, TransactionId: []byte("nope")}); err != nil {
		t.Fatal(err)
	}

	// BeginTransaction, read-only: timestamp; commit refused.
	tx, err := c.BeginTransaction(ctx, &spannerpb.BeginTransactionRequest{Session: sess, Options: ro})
	if err != nil || tx.ReadTimestamp == nil || len(tx.Id) == 0 {
		t.Fatalf("begin ro: %v %v", tx, err)
	}
	_, err = c.Commit(ctx, &spannerpb.CommitRequest{Session: sess, Transaction: &spannerpb.CommitRequest_TransactionId{TransactionId: tx.Id}})
	wantCode(t, err, codes.FailedPrecondition, "read-only")
	_, err = c.BeginTransaction(ctx, &spannerpb.BeginTransactionRequest{Session: sess})
	wantCode(t, err, codes.InvalidArgument, "options")

	// Inline begin on a stream puts the id in the first message only.
	msgs, err := readAll(t, c, ctx, &spannerpb.ExecuteSqlRequest{Session: sess, Sql: "SELECT 1",
		Transaction: &spannerpb.TransactionSelector{Selector: &spannerpb.TransactionSelector_Begin{Begin: ro}}})
	if err != nil || len(msgs[0].Metadata.GetTransaction().GetId()) == 0 || msgs[0].Metadata.RowType == nil {
		t.Fatalf("stream inline begin: %v %v", msgs, err)
	}
	// The script itself was not modified.
	msgs, _ = readAll(t, c, ctx, &spannerpb.ExecuteSqlRequest{Session: sess, Sql: "SELECT 1"})
	if msgs[0].Metadata.Transaction != nil {
		t.Fatal("inline begin leaked into the script")
	}

	// Multiplexed read-write: precommit tokens with increasing seq_num.
	mux := session(t, c, true)
	tx, err = c.BeginTransaction(ctx, &spannerpb.BeginTransactionRequest{Session: mux, Options: rw, MutationKey: &spannerpb.Mutation{}})
	if err != nil || tx.PrecommitToken.GetSeqNum() != 1 {
		t.Fatalf("begin mux: %v %v", tx, err)
	}
	sel = &spannerpb.TransactionSelector{Selector: &spannerpb.TransactionSelector_Id{Id: tx.Id}}
	msgs, err = readAll(t, c, ctx, &spannerpb.ExecuteSqlRequest{Session: mux, Sql: "SELECT 1", Transaction: sel})
	if err != nil || msgs[len(msgs)-1].PrecommitToken.GetSeqNum() != 2 {
		t.Fatalf("stream precommit: %v %v", msgs, err)
	}
	rs, err = c.ExecuteSql(ctx, &spannerpb.ExecuteSqlRequest{Session: mux, Sql: "UPDATE t SET a = 1", Transaction: sel})
	if err != nil || rs.PrecommitToken.GetSeqNum() != 3 {
		t.Fatalf("unary precommit: %v %v", rs, err)
	}
	bd, err := c.ExecuteBatchDml(ctx, &spannerpb.ExecuteBatchDmlRequest{Session: mux, Transaction: sel, Statements: []*spannerpb.ExecuteBatchDmlRequest_Statement{
		{Sql: "UPDATE t SET a = 1"}, {Sql: "UPDATE t SET a = 1"}}})
	if err != nil || len(bd.ResultSets) != 2 || bd.PrecommitToken.GetSeqNum() != 5 || bd.Status.Code != 0 {
		t.Fatalf("batch dml: %v %v", bd, err)
	}
}

func TestBatchDml(t *testing.T) {
	s := Start(t)
	c := client(t, s)
	ctx := context.Background()
	sess := session(t, c, false)
	s.AddResult("U1", DML(1))
	s.AddResult("U2", DML(2))
	rw := &spannerpb.TransactionOptions{Mode: &spannerpb.TransactionOptions_ReadWrite_{ReadWrite: &spannerpb.TransactionOptions_ReadWrite{}}}
	resp, err := c.ExecuteBatchDml(ctx, &spannerpb.ExecuteBatchDmlRequest{Session: sess,
		Transaction: &spannerpb.TransactionSelector{Selector: &spannerpb.TransactionSelector_Begin{Begin: rw}},
		Statements:  []*spannerpb.ExecuteBatchDmlRequest_Statement{{Sql: "U1"}, {Sql: "U2"}, {Sql: "U3"}, {Sql: "U1"}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.ResultSets) != 2 || resp.ResultSets[1].Stats.GetRowCountExact() != 2 ||
		len(resp.ResultSets[0].Metadata.GetTransaction().GetId()) == 0 || resp.ResultSets[1].Metadata.Transaction != nil {
		t.Fatalf("batch: %v", resp)
	}
	if codes.Code(resp.Status.Code) != codes.InvalidArgument || !strings.Contains(resp.Status.Message, "U3") {
		t.Fatalf("status %v", resp.Status)
	}
	_, err = c.ExecuteBatchDml(ctx, &spannerpb.ExecuteBatchDmlRequest{Session: sess})
	wantCode(t, err, codes.InvalidArgument, "without statements")
}

func TestRecordingAndMethodFaults(t *testing.T) {
	s := Start(t)
	c := client(t, s)
	sess := session(t, c, false)
	ctx := metadata.AppendToOutgoingContext(context.Background(),
		"google-cloud-resource-prefix", db, "x-goog-spanner-route-to-leader", "true")
	req := &spannerpb.ExecuteSqlRequest{
		Session:     sess,
		Sql:         "SELECT 1",
		Params:      &structpb.Struct{Fields: map[string]*structpb.Value{"p": sv("42")}},
		ParamTypes:  map[string]*spannerpb.Type{"p": tInt64},
		Transaction: &spannerpb.TransactionSelector{Selector: &spannerpb.TransactionSelector_SingleUse{SingleUse: &spannerpb.TransactionOptions{}}},
		ResumeToken: ResumeToken(0),
	}
	if _, err := readAll(t, c, ctx, req); err != nil {
		t.Fatal(err)
	}
	got := s.RequestsFor("ExecuteStreamingSql")
	if len(got) != 1 {
		t.Fatalf("%d recorded", len(got))
	}
	if !proto.Equal(got[0].ExecuteSQL(), req) {
		t.Fatalf("recorded %v", got[0].Message)
	}
	if h := got[0].Header; h.Get("google-cloud-resource-prefix")[0] != db || h.Get("x-goog-spanner-route-to-leader")[0] != "true" {
		t.Fatalf("headers %v", h)
	}
	all := s.Requests()
	if len(all) != 2 || all[0].Method != "CreateSession" || all[0].ExecuteSQL() != nil {
		t.Fatalf("requests %v", all)
	}

	// Method faults: Commit aborted once.
	s.AddMethodFault("Commit", Fault{Err: ErrAborted})
	commit := &spannerpb.CommitRequest{Session: sess, Transaction: &spannerpb.CommitRequest_SingleUseTransaction{
		SingleUseTransaction: &spannerpb.TransactionOptions{Mode: &spannerpb.TransactionOptions_ReadWrite_{ReadWrite: &spannerpb.TransactionOptions_ReadWrite{}}}}}
	_, err := c.Commit(ctx, commit)
	wantCode(t, err, codes.Aborted, "")
	if _, err := c.Commit(ctx, commit); err != nil {
		t.Fatal(err)
	}
	// AfterRun: the method runs (a transaction commits), then the client
	// gets the error; Skip: the fault lets the first call pass.
	s.AddMethodFault("BeginTransaction", Fault{Err: ErrRSTStream, AfterRun: true})
	s.AddMethodFault("BeginTransaction", Fault{Err: ErrAborted, Skip: 1})
	rw := &spannerpb.TransactionOptions{Mode: &spannerpb.TransactionOptions_ReadWrite_{ReadWrite: &spannerpb.TransactionOptions_ReadWrite{}}}
	_, err = c.BeginTransaction(ctx, &spannerpb.BeginTransactionRequest{Session: sess, Options: rw})
	wantCode(t, err, codes.Internal, "RST_STREAM")
	_, err = c.BeginTransaction(ctx, &spannerpb.BeginTransactionRequest{Session: sess, Options: rw})
	wantCode(t, err, codes.Aborted, "")
	tx, err := c.BeginTransaction(ctx, &spannerpb.BeginTransactionRequest{Session: sess, Options: rw})
	if err != nil {
		t.Fatal(err)
	}
	// The first call ran (its transaction exists), the second did not.
	s.mu.Lock()
	began := len(s.txns)
	s.mu.Unlock()
	if began != 2 {
		t.Fatalf("%d transactions begun, want 2", began)
	}
	if _, err := c.Rollback(ctx, &spannerpb.RollbackRequest{Session: sess, TransactionId: tx.GetId()}); err != nil {
		t.Fatal(err)
	}
	// On a streaming method, after the request is recorded.
	s.AddMethodFault("ExecuteStreamingSql", Fault{Err: ErrUnavailable})
	_, err = readAll(t, c, ctx, &spannerpb.ExecuteSqlRequest{Session: sess, Sql: "SELECT 1"})
	wantCode(t, err, codes.Unavailable, "")

	s.ResetRequests()
	s.SetRecording(false)
	readAll(t, c, ctx, &spannerpb.ExecuteSqlRequest{Session: sess, Sql: "SELECT 1"})
	if len(s.Requests()) != 0 {
		t.Fatal("recorded while off")
	}
}

// TestNewServeClose runs the server the way the benchmark tool does.
func TestNewServeClose(t *testing.T) {
	s := New()
	if s.Addr() != "" {
		t.Fatal("address before Serve")
	}
	if _, err := s.Dial(); err == nil {
		t.Fatal("Dial before Serve")
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Serve(lis) }()
	for s.Addr() == "" {
		runtimeGosched()
	}
	c := client(t, s)
	sess := session(t, c, true)
	if _, err := c.ExecuteSql(context.Background(), &spannerpb.ExecuteSqlRequest{Session: sess, Sql: "SELECT 1"}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s.Close()
	if err := <-done; err != nil {
		t.Fatalf("Serve returned %v", err)
	}
	s2 := New()
	if err := s2.Serve(errListener{}); err == nil {
		t.Fatal("Serve with a broken listener succeeded")
	}
	s2.Close()
}

type errListener struct{ net.Listener }

func (errListener) Accept() (net.Conn, error) { return nil, errors.New("broken") }
func (errListener) Close() error              { return nil }
func (errListener) Addr() net.Addr            { return &net.TCPAddr{} }

func runtimeGosched() { runtime.Gosched() }

// TestConcurrentStreams serves one script to many streams at once (run with
// -race: served messages are shared).
func TestConcurrentStreams(t *testing.T) {
	s := Start(t)
	c := client(t, s)
	sess := session(t, c, true)
	rs := randrs.ResultSet(rand.New(rand.NewPCG(9, 9)), randrs.Options{MinRows: 50, MaxRows: 50})
	s.AddResult("q", &Result{ResultSet: rs, Split: SplitOptions{Random: true, Seed: 9}})
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st, err := c.ExecuteStreamingSql(context.Background(), &spannerpb.ExecuteSqlRequest{Session: sess, Sql: "q"})
			if err != nil {
				errs <- err
				return
			}
			var msgs []*spannerpb.PartialResultSet
			for {
				m, err := st.Recv()
				if err == io.EOF {
					break
				}
				if err != nil {
					errs <- err
					return
				}
				msgs = append(msgs, m)
			}
			got, err := Merge(msgs)
			if err == nil && !proto.Equal(got.Rows[len(got.Rows)-1], rs.Rows[len(rs.Rows)-1]) {
				err = errors.New("rows differ")
			}
			if err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// BenchmarkServeStream measures how fast the server streams a large result
// to a raw gRPC client (bytes/s of encoded PartialResultSets).
func BenchmarkServeStream(b *testing.B) {
	s := Start(b)
	conn, err := s.Dial()
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	c := spannerpb.NewSpannerClient(conn)
	ss, err := c.CreateSession(context.Background(), &spannerpb.CreateSessionRequest{Database: db})
	if err != nil {
		b.Fatal(err)
	}
	rs := randrs.ResultSet(rand.New(rand.NewPCG(1, 1)), randrs.Options{MinRows: 5000, MaxRows: 5000,
		MinColumns: 5, MaxColumns: 5, LongStringLen: -1})
	s.AddResult("q", &Result{ResultSet: rs, Split: SplitOptions{MaxBytes: 64 << 10}})
	s.SetRecording(false)
	size := 0
	for _, m := range Split(rs, SplitOptions{MaxBytes: 64 << 10}) {
		size += proto.Size(m)
	}
	b.SetBytes(int64(size))
	b.Run("decoded", func(b *testing.B) {
		b.SetBytes(int64(size))
		for b.Loop() {
			st, err := c.ExecuteStreamingSql(context.Background(), &spannerpb.ExecuteSqlRequest{Session: ss.Name, Sql: "q"})
			if err != nil {
				b.Fatal(err)
			}
			for {
				if _, err := st.Recv(); err == io.EOF {
					break
				} else if err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	// Raw bytes on the client: the server's serving cost plus transport.
	b.Run("raw", func(b *testing.B) {
		b.SetBytes(int64(size))
		for b.Loop() {
			st, err := conn.NewStream(context.Background(), &grpc.StreamDesc{ServerStreams: true},
				"/google.spanner.v1.Spanner/ExecuteStreamingSql", grpc.ForceCodecV2(rawCodec{}))
			if err != nil {
				b.Fatal(err)
			}
			if err := st.SendMsg(&spannerpb.ExecuteSqlRequest{Session: ss.Name, Sql: "q"}); err != nil {
				b.Fatal(err)
			}
			st.CloseSend()
			for {
				var raw []byte
				if err := st.RecvMsg(&raw); err == io.EOF {
					break
				} else if err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}

// rawCodec receives messages as bytes and sends protos normally.
type rawCodec struct{}

func (rawCodec) Marshal(v any) (mem.BufferSlice, error) {
	b, err := proto.Marshal(v.(proto.Message))
	return mem.BufferSlice{mem.SliceBuffer(b)}, err
}
func (rawCodec) Unmarshal(data mem.BufferSlice, v any) error {
	*v.(*[]byte) = data.Materialize()
	return nil
}
func (rawCodec) Name() string { return "proto" }

func TestWire(t *testing.T) {
	s := Start(t)
	c := client(t, s)
	sess := session(t, c, false)
	md := &spannerpb.ResultSetMetadata{RowType: &spannerpb.StructType{Fields: []*spannerpb.StructType_Field{{Name: "s", Type: tString}}}}
	m0, _ := proto.Marshal(&spannerpb.PartialResultSet{Metadata: md, Values: []*structpb.Value{sv("a")}, ResumeToken: []byte("t0")})
	m0 = protowire.AppendTag(m0, 99, protowire.BytesType) // unknown field
	m0 = protowire.AppendBytes(m0, []byte("junk"))
	// values { string_value: "\xff" }: invalid UTF-8, cannot be built with the proto encoder.
	val := protowire.AppendBytes(protowire.AppendTag(nil, 3, protowire.BytesType), []byte{0xff})
	m1 := protowire.AppendBytes(protowire.AppendTag(nil, 2, protowire.BytesType), val)
	s.AddResult("w", &Result{Wire: [][]byte{m0, m1}})

	conn, err := s.Dial()
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	read := func(req *spannerpb.ExecuteSqlRequest) [][]byte {
		st, err := conn.NewStream(context.Background(), &grpc.StreamDesc{ServerStreams: true},
			"/google.spanner.v1.Spanner/ExecuteStreamingSql", grpc.ForceCodecV2(rawCodec{}))
		if err != nil {
			t.Fatal(err)
		}
		if err := st.SendMsg(req); err != nil {
			t.Fatal(err)
		}
		st.CloseSend()
		var out [][]byte
		for {
			var b []byte
			if err := st.RecvMsg(&b); err == io.EOF {
				return out
			} else if err != nil {
				t.Fatal(err)
			}
			out = append(out, b)
		}
	}
	got := read(&spannerpb.ExecuteSqlRequest{Session: sess, Sql: "w"})
	if len(got) != 2 || !bytes.Equal(got[0], m0) || !bytes.Equal(got[1], m1) {
		t.Fatalf("wire messages differ: %x", got)
	}
	got = read(&spannerpb.ExecuteSqlRequest{Session: sess, Sql: "w", ResumeToken: []byte("t0")})
	if len(got) != 1 || !bytes.Equal(got[0], m1) {
		t.Fatalf("resumed wire messages differ: %x", got)
	}
	// A normal client fails on the invalid UTF-8; unary cannot merge.
	_, err = readAll(t, c, context.Background(), &spannerpb.ExecuteSqlRequest{Session: sess, Sql: "w"})
	wantCode(t, err, codes.Internal, "")
	_, err = c.ExecuteSql(context.Background(), &spannerpb.ExecuteSqlRequest{Session: sess, Sql: "w"})
	wantCode(t, err, codes.InvalidArgument, "does not decode")

	// Decodable wire messages still serve unary ExecuteSql.
	s.AddResult("w2", &Result{Wire: [][]byte{m0}})
	rs, err := c.ExecuteSql(context.Background(), &spannerpb.ExecuteSqlRequest{Session: sess, Sql: "w2"})
	if err != nil || len(rs.Rows) != 1 {
		t.Fatalf("w2: %v %v", rs, err)
	}
}
