package e2e

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"testing"
	"time"

	"cloud.google.com/go/spanner"
	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	sfdriver "github.com/spannerfast/spannerfast/driver"
	"github.com/spannerfast/spannerfast/internal/fakespanner"
	"github.com/spannerfast/spannerfast/internal/mutationpb"
)

// Mutations through the connection (SpannerConn.Apply, BufferWrite,
// CommitTimestamp, CommitResponse) against the scripted fake server: the
// requests spannerfast sends, compared with what the official client sends
// for the same work against the same kind of server.

var singerCols = []string{"SingerId", "FirstName", "LastName", "Rating", "Active"}

// testMutations has one non-insert, so the mutation_key choice (a random
// non-insert, else the largest insert) is the same every time.
func testMutations() []*spanner.Mutation {
	return []*spanner.Mutation{
		spanner.Insert("Singers", singerCols, []any{int64(1), "Marc", "Richards", 4.5, true}),
		spanner.Insert("Singers", singerCols, []any{int64(2), "Catalina", "Smith", 3.0, false}),
		spanner.Update("Singers", []string{"SingerId", "Rating"}, []any{int64(3), 1.5}),
	}
}

// spannerConn runs f with the connection's SpannerConn.
func spannerConn(t *testing.T, c *sql.Conn, f func(sfdriver.SpannerConn) error) error {
	t.Helper()
	return c.Raw(func(dc any) error { return f(dc.(sfdriver.SpannerConn)) })
}

// writeRequests returns the BeginTransaction, Commit and Rollback requests
// the server received, in order, with what differs between two servers or
// clients for the same work blanked: session names, transaction ids and
// precommit token bytes (their seq_num stays), and request options that
// are present but empty (the official client sends an empty message where
// spannerfast sends none; Spanner reads both the same).
func writeRequests(s *fakespanner.Server) []proto.Message {
	var out []proto.Message
	for _, r := range s.Requests() {
		switch r.Method {
		case "BeginTransaction", "Commit", "Rollback":
		default:
			continue
		}
		m := proto.Clone(r.Message)
		switch m := m.(type) {
		case *spannerpb.BeginTransactionRequest:
			m.Session = ""
			if m.RequestOptions != nil && proto.Size(m.RequestOptions) == 0 {
				m.RequestOptions = nil
			}
		case *spannerpb.CommitRequest:
			m.Session = ""
			if _, ok := m.Transaction.(*spannerpb.CommitRequest_TransactionId); ok {
				m.Transaction = &spannerpb.CommitRequest_TransactionId{TransactionId: []byte("id")}
			}
			if m.PrecommitToken != nil {
				m.PrecommitToken.PrecommitToken = nil
			}
			if m.RequestOptions != nil && proto.Size(m.RequestOptions) == 0 {
				m.RequestOptions = nil
			}
		case *spannerpb.RollbackRequest:
			m.Session, m.TransactionId = "", nil
		}
		out = append(out, m)
	}
	return out
}

// leaderHeaders returns, per write request, whether it was routed to the
// leader.
func leaderHeaders(s *fakespanner.Server) []string {
	var out []string
	for _, r := range s.Requests() {
		if r.Method == "BeginTransaction" || r.Method == "Commit" {
			out = append(out, r.Method+":"+strings.Join(r.Header.Get("x-goog-spanner-route-to-leader"), ","))
		}
	}
	return out
}

func sameRequests(t *testing.T, what string, got, want []proto.Message) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d write requests, the official client sends %d:\n got %v\nwant %v", what, len(got), len(want), got, want)
	}
	for i := range got {
		if !proto.Equal(got[i], want[i]) {
			t.Fatalf("%s: request %d differs from the official client's:\n got %v\nwant %v", what, i, got[i], want[i])
		}
	}
}

// applyCases are the Apply calls compared with the official client.
func applyCases() []struct {
	name string
	ms   []*spanner.Mutation
	opts []spanner.ApplyOption
} {
	delay := 100 * time.Millisecond
	all := []spanner.ApplyOption{
		spanner.TransactionTag("apply-tag"),
		spanner.Priority(spannerpb.RequestOptions_PRIORITY_HIGH),
		spanner.ApplyCommitOptions(spanner.CommitOptions{ReturnCommitStats: true, MaxCommitDelay: &delay}),
		spanner.ExcludeTxnFromChangeStreams(),
		spanner.IsolationLevel(spannerpb.TransactionOptions_REPEATABLE_READ),
	}
	return []struct {
		name string
		ms   []*spanner.Mutation
		opts []spanner.ApplyOption
	}{
		{"plain", testMutations(), nil},
		{"inserts only", testMutations()[:2], nil},
		{"all options", testMutations(), all},
		{"at least once", testMutations(), []spanner.ApplyOption{spanner.ApplyAtLeastOnce()}},
		{"at least once, all options", testMutations(), append([]spanner.ApplyOption{spanner.ApplyAtLeastOnce()}, all...)},
		{"no mutations", nil, nil},
	}
}

// TestFakeApplyMatchesOfficialClient: Apply sends exactly the
// BeginTransaction (read-write options, mutation_key) and Commit
// (mutations, precommit token, tags, priority, commit stats,
// max_commit_delay) the official client's Apply sends, or its single-use
// Commit with ApplyAtLeastOnce; also when Spanner answers the commit with a
// newer precommit token.
func TestFakeApplyMatchesOfficialClient(t *testing.T) {
	ctx := context.Background()
	for _, retry := range []bool{false, true} {
		for _, tc := range applyCases() {
			name := tc.name
			if retry {
				name += ", commit retry"
			}
			want := fakespanner.Start(t)
			client := officialClient(t, want)
			if retry {
				want.SetCommitRetries(1)
			}
			wantTS, err := client.Apply(ctx, tc.ms, tc.opts...)
			if err != nil {
				t.Fatalf("%s: official Apply: %v", name, err)
			}

			s := fakespanner.Start(t)
			if retry {
				s.SetCommitRetries(1)
			}
			c := dbConn(t, openFake(t, s))
			var ts time.Time
			err = spannerConn(t, c, func(sc sfdriver.SpannerConn) (err error) {
				ts, err = sc.Apply(ctx, tc.ms, tc.opts...)
				return err
			})
			if err != nil {
				t.Fatalf("%s: Apply: %v", name, err)
			}
			sameRequests(t, name, writeRequests(s), writeRequests(want))
			if got, w := leaderHeaders(s), leaderHeaders(want); strings.Join(got, " ") != strings.Join(w, " ") {
				t.Fatalf("%s: leader routing %v, official %v", name, got, w)
			}
			if ts.IsZero() || ts.Location() != wantTS.Location() {
				t.Fatalf("%s: commit timestamp %v, official client's is in %v", name, ts, wantTS.Location())
			}
		}
	}
}

// TestFakeApplyAbortRetried: an aborted Apply begins a new transaction
// (again with the mutation key) and commits the mutations in it; the
// at-least-once Apply sends its single-use Commit again.
func TestFakeApplyAbortRetried(t *testing.T) {
	ctx := context.Background()
	pbs, key, err := mutationpb.Convert(testMutations())
	if err != nil {
		t.Fatal(err)
	}
	for _, atLeastOnce := range []bool{false, true} {
		s := fakespanner.Start(t)
		s.AddMethodFault("Commit", fakespanner.Fault{Err: fakespanner.WithRetryDelay(codes.Aborted, "aborted", 0)})
		c := dbConn(t, openFake(t, s))
		var opts []spanner.ApplyOption
		if atLeastOnce {
			opts = append(opts, spanner.ApplyAtLeastOnce())
		}
		if err := spannerConn(t, c, func(sc sfdriver.SpannerConn) error {
			_, err := sc.Apply(ctx, testMutations(), opts...)
			return err
		}); err != nil {
			t.Fatalf("atLeastOnce=%v: Apply after one abort: %v", atLeastOnce, err)
		}
		begins, commits := s.RequestsFor("BeginTransaction"), s.RequestsFor("Commit")
		wantBegins := 2
		if atLeastOnce {
			wantBegins = 0
		}
		if len(begins) != wantBegins || len(commits) != 2 {
			t.Fatalf("atLeastOnce=%v: %d BeginTransaction, %d Commit; want %d and 2", atLeastOnce, len(begins), len(commits), wantBegins)
		}
		for _, b := range begins {
			if !proto.Equal(b.Message.(*spannerpb.BeginTransactionRequest).GetMutationKey(), key) {
				t.Fatalf("BeginTransaction mutation_key %v, want %v", b.Message, key)
			}
		}
		for _, r := range commits {
			if !sameMutations(r.Message.(*spannerpb.CommitRequest).GetMutations(), pbs) {
				t.Fatalf("atLeastOnce=%v: Commit mutations %v, want %v", atLeastOnce, r.Message, pbs)
			}
		}
		if !atLeastOnce {
			first := commits[0].Message.(*spannerpb.CommitRequest).GetTransactionId()
			second := commits[1].Message.(*spannerpb.CommitRequest).GetTransactionId()
			if string(first) == string(second) {
				t.Fatalf("the retry committed the aborted transaction %q again", first)
			}
		}
	}
}

func sameMutations(got, want []*spannerpb.Mutation) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if !proto.Equal(got[i], want[i]) {
			return false
		}
	}
	return true
}

// TestFakeBufferWriteMatchesOfficialClient: mutations buffered in a
// transaction go with its Commit, as the official client sends them: after
// DML with the transaction's id and the last statement's precommit token;
// alone with a BeginTransaction carrying the mutation key.
func TestFakeBufferWriteMatchesOfficialClient(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		withDML bool
		ms      []*spanner.Mutation
	}{
		{true, testMutations()},
		{false, testMutations()},
		// Two inserts of one row in two calls: the key is the later one,
		// as the client's scan over all buffered mutations picks it.
		{false, testMutations()[:2]},
	} {
		withDML, ms := tc.withDML, tc.ms
		want := fakespanner.Start(t)
		want.AddResult(txnUpdate, fakespanner.DML(3))
		_, err := officialClient(t, want).ReadWriteTransaction(ctx, func(ctx context.Context, tx *spanner.ReadWriteTransaction) error {
			if withDML {
				if _, err := tx.Update(ctx, spanner.Statement{SQL: txnUpdate}); err != nil {
					return err
				}
			}
			if err := tx.BufferWrite(ms[:1]); err != nil {
				return err
			}
			return tx.BufferWrite(ms[1:])
		})
		if err != nil {
			t.Fatal(err)
		}

		s, db := startTxnFake(t)
		c := dbConn(t, db)
		tx, err := c.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if withDML {
			if _, err := tx.ExecContext(ctx, txnUpdate); err != nil {
				t.Fatal(err)
			}
		}
		if err := spannerConn(t, c, func(sc sfdriver.SpannerConn) error {
			if err := sc.BufferWrite(ms[:1]); err != nil {
				return err
			}
			return sc.BufferWrite(ms[1:])
		}); err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		sameRequests(t, "BufferWrite", writeRequests(s), writeRequests(want))
		if withDML {
			cr := s.RequestsFor("Commit")[0].Message.(*spannerpb.CommitRequest)
			if cr.GetPrecommitToken().GetSeqNum() != 1 || len(cr.GetMutations()) != len(ms) {
				t.Fatalf("Commit after DML: %v", cr)
			}
		}
	}
}

// TestFakeBufferWriteAbortReplay: Spanner aborts the commit; the replay
// runs the DML again and the new Commit carries the buffered mutations
// exactly once. Mutations buffered with no statement begin the new
// transaction with the mutation key again.
func TestFakeBufferWriteAbortReplay(t *testing.T) {
	ctx := context.Background()
	pbs, key, err := mutationpb.Convert(testMutations())
	if err != nil {
		t.Fatal(err)
	}
	for _, withDML := range []bool{true, false} {
		s, db := startTxnFake(t)
		s.AddMethodFault("Commit", fakespanner.Fault{Err: fakespanner.WithRetryDelay(codes.Aborted, "aborted", 0)})
		c := dbConn(t, db)
		tx, err := c.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if withDML {
			if _, err := tx.ExecContext(ctx, txnUpdate); err != nil {
				t.Fatal(err)
			}
		}
		if err := spannerConn(t, c, func(sc sfdriver.SpannerConn) error { return sc.BufferWrite(testMutations()) }); err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatalf("withDML=%v: Commit after one abort: %v", withDML, err)
		}
		commits := s.RequestsFor("Commit")
		if len(commits) != 2 {
			t.Fatalf("withDML=%v: %d Commit requests, want 2", withDML, len(commits))
		}
		for i, r := range commits {
			if got := r.Message.(*spannerpb.CommitRequest).GetMutations(); !sameMutations(got, pbs) {
				t.Fatalf("withDML=%v: Commit %d carries %d mutations, want the %d buffered once: %v", withDML, i, len(got), len(pbs), got)
			}
		}
		if withDML {
			if n := len(s.RequestsFor("ExecuteSql")); n != 2 {
				t.Fatalf("%d DML requests, want 2 (the replay)", n)
			}
			continue
		}
		begins := s.RequestsFor("BeginTransaction")
		if len(begins) != 2 {
			t.Fatalf("%d BeginTransaction, want 2", len(begins))
		}
		for _, b := range begins {
			if !proto.Equal(b.Message.(*spannerpb.BeginTransactionRequest).GetMutationKey(), key) {
				t.Fatalf("BeginTransaction %v, want mutation_key %v", b.Message, key)
			}
		}
	}
}

// TestFakeMutationErrors: Apply only outside, BufferWrite only inside a
// read-write transaction, with go-sql-spanner's FailedPrecondition
// messages; a value that cannot be sent names table and column and sends
// nothing.
func TestFakeMutationErrors(t *testing.T) {
	ctx := context.Background()
	s, db := startTxnFake(t)
	c := dbConn(t, db)
	call := func(f func(sfdriver.SpannerConn) error) error { return spannerConn(t, c, f) }
	apply := func(sc sfdriver.SpannerConn) error { _, err := sc.Apply(ctx, testMutations()); return err }
	buffer := func(sc sfdriver.SpannerConn) error { return sc.BufferWrite(testMutations()) }
	check := func(what string, err error, code codes.Code, contains string) {
		t.Helper()
		if status.Code(err) != code || !strings.Contains(err.Error(), contains) {
			t.Fatalf("%s: %v (code %v), want %v containing %q", what, err, status.Code(err), code, contains)
		}
	}

	check("BufferWrite outside a transaction", call(buffer), codes.FailedPrecondition,
		"BufferWrite may not be called while the connection is not in a transaction. Use Apply to write mutations outside a transaction.")
	check("CommitTimestamp before any commit", call(func(sc sfdriver.SpannerConn) error { _, err := sc.CommitTimestamp(); return err }),
		codes.FailedPrecondition, "this connection has not executed a read/write transaction that committed successfully")
	check("CommitResponse before any commit", call(func(sc sfdriver.SpannerConn) error { _, err := sc.CommitResponse(); return err }),
		codes.FailedPrecondition, "this connection has not executed a read/write transaction that committed successfully")

	bad := []*spanner.Mutation{
		spanner.Insert("Singers", singerCols, []any{int64(1), "a", "b", 1.0, true}),
		spanner.Update("Albums", []string{"AlbumId", "Price"}, []any{int64(1), complex(1, 2)}),
	}
	err := call(func(sc sfdriver.SpannerConn) error { _, err := sc.Apply(ctx, bad); return err })
	check("Apply of a bad value", err, codes.InvalidArgument, `mutation 1 (table "Albums", column "Price")`)
	var merr *mutationpb.Error
	if !errors.As(err, &merr) {
		t.Fatalf("Apply of a bad value: %T, want *mutationpb.Error", err)
	}
	if n := len(writeRequests(s)); n != 0 {
		t.Fatalf("a bad Apply sent %d write requests", n)
	}

	tx, err := c.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	check("Apply in a transaction", call(apply), codes.FailedPrecondition,
		"Apply may not be called while the connection is in a transaction. Use BufferWrite to write mutations in a transaction.")
	check("BufferWrite of a bad value", call(func(sc sfdriver.SpannerConn) error { return sc.BufferWrite(bad) }),
		codes.InvalidArgument, `column "Price"`)
	if _, err := tx.ExecContext(ctx, txnUpdate); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if cr := s.RequestsFor("Commit")[0].Message.(*spannerpb.CommitRequest); len(cr.GetMutations()) != 0 {
		t.Fatalf("a refused BufferWrite left mutations in the commit: %v", cr.GetMutations())
	}

	ro, err := c.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	check("BufferWrite in a read-only transaction", call(buffer), codes.FailedPrecondition, "read-only transactions cannot write")
	if err := ro.Commit(); err != nil {
		t.Fatal(err)
	}
}

// TestFakeCommitResponse: after Apply, CommitTimestamp, CommitResponse
// (with the stats asked for) and SHOW VARIABLE commit_timestamp report
// the same commit; after a transaction with BufferWrite, its commit.
func TestFakeCommitResponse(t *testing.T) {
	ctx := context.Background()
	s, db := startTxnFake(t)
	c := dbConn(t, db)
	var applied time.Time
	var resp *spanner.CommitResponse
	err := spannerConn(t, c, func(sc sfdriver.SpannerConn) (err error) {
		applied, err = sc.Apply(ctx, testMutations(), spanner.ApplyCommitOptions(spanner.CommitOptions{ReturnCommitStats: true}))
		if err != nil {
			return err
		}
		ts, err := sc.CommitTimestamp()
		if err != nil || !ts.Equal(applied) {
			t.Fatalf("CommitTimestamp = %v, %v; Apply returned %v", ts, err, applied)
		}
		resp, err = sc.CommitResponse()
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if !resp.CommitTs.Equal(applied) || resp.CommitStats.GetMutationCount() != int64(len(testMutations())) {
		t.Fatalf("CommitResponse = %+v, want timestamp %v and %d mutations", resp, applied, len(testMutations()))
	}
	var shown time.Time
	if err := c.QueryRowContext(ctx, "SHOW VARIABLE commit_timestamp").Scan(&shown); err != nil || !shown.Equal(applied) {
		t.Fatalf("SHOW VARIABLE commit_timestamp = %v, %v; want %v", shown, err, applied)
	}

	tx, err := c.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := spannerConn(t, c, func(sc sfdriver.SpannerConn) error { return sc.BufferWrite(testMutations()) }); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	err = spannerConn(t, c, func(sc sfdriver.SpannerConn) error {
		ts, err := sc.CommitTimestamp()
		if err == nil && !ts.After(applied) {
			t.Errorf("CommitTimestamp after the transaction = %v, not later than the Apply's %v", ts, applied)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(s.RequestsFor("Commit")); n != 2 {
		t.Fatalf("%d commits, want 2", n)
	}
}

// BenchmarkApply1000 measures Apply of 1,000 five-column insert mutations
// against the fake server, spannerfast and the official client's
// Client.Apply doing the same requests. The server runs in the same process,
// so allocs/op and B/op include its decoding of the requests (the same for
// both).
func BenchmarkApply1000(b *testing.B) {
	const n = 1000
	ms := make([]*spanner.Mutation, n)
	for i := range ms {
		ms[i] = spanner.Insert("Singers", singerCols, []any{int64(i), "First name", "Last name", float64(i) / 7, i%2 == 0})
	}
	ctx := context.Background()
	run := func(b *testing.B, apply func() error) {
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if err := apply(); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/mutation")
	}
	b.Run("spannerfast", func(b *testing.B) {
		s := fakespanner.Start(b)
		s.SetRecording(false)
		c, err := openFake(b, s).Conn(ctx)
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close()
		run(b, func() error {
			return c.Raw(func(dc any) error {
				_, err := dc.(sfdriver.SpannerConn).Apply(ctx, ms)
				return err
			})
		})
	})
	b.Run("official", func(b *testing.B) {
		s := fakespanner.Start(b)
		s.SetRecording(false)
		client := officialClient(b, s)
		run(b, func() error {
			_, err := client.Apply(ctx, ms)
			return err
		})
	})
}
