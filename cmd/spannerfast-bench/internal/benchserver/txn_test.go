package benchserver

import (
	"context"
	"testing"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
)

func beginRW() *spannerpb.TransactionSelector {
	return &spannerpb.TransactionSelector{Selector: &spannerpb.TransactionSelector_Begin{Begin: &spannerpb.TransactionOptions{
		Mode: &spannerpb.TransactionOptions_ReadWrite_{ReadWrite: &spannerpb.TransactionOptions_ReadWrite{}}}}}
}

func withID(id []byte) *spannerpb.TransactionSelector {
	return &spannerpb.TransactionSelector{Selector: &spannerpb.TransactionSelector_Id{Id: id}}
}

// TestInlineBeginStream checks that a query beginning a read-write
// transaction gets the transaction in the first message's metadata and,
// on a multiplexed session, a precommit token on the last message, with
// every value unchanged; a query outside a transaction gets neither.
func TestInlineBeginStream(t *testing.T) {
	_, c, ws := start(t, "txread-checksum", 0.1)
	ctx := context.Background()
	mux, err := c.CreateSession(ctx, &spannerpb.CreateSessionRequest{Database: "d", Session: &spannerpb.Session{Multiplexed: true}})
	if err != nil {
		t.Fatal(err)
	}
	w := ws[0]
	plain, err := readAll(t, c, &spannerpb.ExecuteSqlRequest{Session: mux.Name, Sql: w.SQL})
	if err != nil {
		t.Fatal(err)
	}
	tx, err := readAll(t, c, &spannerpb.ExecuteSqlRequest{Session: mux.Name, Sql: w.SQL, Transaction: beginRW()})
	if err != nil {
		t.Fatal(err)
	}
	if len(plain) < 2 || len(tx) != len(plain) {
		t.Fatalf("%d messages in a transaction, %d outside (want the same, at least 2)", len(tx), len(plain))
	}
	id := tx[0].GetMetadata().GetTransaction().GetId()
	if string(id) != "rw-inline" || plain[0].GetMetadata().GetTransaction() != nil {
		t.Errorf("transaction in the metadata: %q (outside a transaction: %v)", id, plain[0].GetMetadata().GetTransaction())
	}
	last := tx[len(tx)-1]
	if !proto.Equal(last.GetPrecommitToken(), precommitToken) || plain[len(plain)-1].GetPrecommitToken() != nil {
		t.Errorf("precommit token %v (outside a transaction: %v)", last.GetPrecommitToken(), plain[len(plain)-1].GetPrecommitToken())
	}
	for i := range tx {
		a, b := proto.Clone(tx[i]).(*spannerpb.PartialResultSet), plain[i]
		a.PrecommitToken = nil
		if a.Metadata != nil {
			a.Metadata.Transaction = nil
		}
		if !proto.Equal(a, b) {
			t.Fatalf("message %d differs beyond the transaction and the token", i)
		}
	}
	// A later statement of the transaction (by id) on a session that is
	// not multiplexed gets the stored messages.
	again, err := readAll(t, c, &spannerpb.ExecuteSqlRequest{Session: "d/sessions/s1", Sql: w.SQL, Transaction: withID(id)})
	if err != nil || len(again) != len(plain) || again[0].GetMetadata().GetTransaction() != nil || again[len(again)-1].GetPrecommitToken() != nil {
		t.Errorf("by id on a plain session: %d messages, %v", len(again), err)
	}
}

// TestWrites runs the calls of a DML transaction, a batch and a mutation
// commit, and the refusals.
func TestWrites(t *testing.T) {
	s, c, _ := start(t, "insert", 1)
	ctx := context.Background()
	sess, err := c.CreateSession(ctx, &spannerpb.CreateSessionRequest{Database: "d", Session: &spannerpb.Session{Multiplexed: true}})
	if err != nil {
		t.Fatal(err)
	}
	ins := "INSERT INTO bench_writes (id) VALUES (1)"
	rs, err := c.ExecuteSql(ctx, &spannerpb.ExecuteSqlRequest{Session: sess.Name, Sql: ins, Transaction: beginRW()})
	if err != nil {
		t.Fatal(err)
	}
	id := rs.GetMetadata().GetTransaction().GetId()
	if rs.GetStats().GetRowCountExact() != 1 || len(id) == 0 || rs.GetPrecommitToken() == nil {
		t.Fatalf("inline-begin DML answer: %v", rs)
	}
	rs, err = c.ExecuteSql(ctx, &spannerpb.ExecuteSqlRequest{Session: sess.Name, Sql: " update t set x = 1", Transaction: withID(id)})
	if err != nil || rs.GetMetadata() != nil || rs.GetStats().GetRowCountExact() != 1 {
		t.Fatalf("DML by id: %v, %v", rs, err)
	}
	// DML streamed (go-sql-spanner's way in a transaction): one message,
	// beginning inline or by id.
	for _, sel := range []*spannerpb.TransactionSelector{beginRW(), withID(id)} {
		msgs, err := readAll(t, c, &spannerpb.ExecuteSqlRequest{Session: sess.Name, Sql: ins, Transaction: sel})
		if err != nil || len(msgs) != 1 || msgs[0].GetStats().GetRowCountExact() != 1 || msgs[0].GetPrecommitToken() == nil ||
			(sel.GetBegin() != nil) != (msgs[0].GetMetadata().GetTransaction() != nil) {
			t.Fatalf("streamed DML (%v): %v, %v", sel, msgs, err)
		}
	}
	if _, err := readAll(t, c, &spannerpb.ExecuteSqlRequest{Session: sess.Name, Sql: ins}); status.Code(err) != codes.FailedPrecondition {
		t.Errorf("streamed DML without a transaction: %v", err)
	}
	batch := &spannerpb.ExecuteBatchDmlRequest{Session: sess.Name, Transaction: withID(id)}
	for range 3 {
		batch.Statements = append(batch.Statements, &spannerpb.ExecuteBatchDmlRequest_Statement{Sql: ins})
	}
	for range 2 { // the second answer comes from the cache
		br, err := c.ExecuteBatchDml(ctx, batch)
		if err != nil || len(br.GetResultSets()) != 3 || br.GetResultSets()[2].GetStats().GetRowCountExact() != 1 ||
			br.GetResultSets()[0].GetMetadata() != nil || br.GetPrecommitToken() == nil {
			t.Fatalf("batch: %v, %v", br, err)
		}
	}
	batch.Transaction = beginRW()
	br, err := c.ExecuteBatchDml(ctx, batch)
	if err != nil || string(br.GetResultSets()[0].GetMetadata().GetTransaction().GetId()) != "rw-inline" || br.GetResultSets()[1].GetMetadata() != nil {
		t.Fatalf("batch beginning inline: %v, %v", br, err)
	}
	commit := &spannerpb.CommitRequest{Session: sess.Name, Transaction: &spannerpb.CommitRequest_TransactionId{TransactionId: id},
		Mutations: make([]*spannerpb.Mutation, 4)}
	if _, err := c.Commit(ctx, commit); status.Code(err) != codes.InvalidArgument {
		t.Errorf("commit without a precommit token: %v", err)
	}
	commit.PrecommitToken = rs.GetPrecommitToken()
	if cr, err := c.Commit(ctx, commit); err != nil || cr.GetCommitTimestamp() == nil {
		t.Errorf("commit: %v, %v", cr, err)
	}
	tx, err := c.BeginTransaction(ctx, &spannerpb.BeginTransactionRequest{Session: sess.Name,
		Options:     &spannerpb.TransactionOptions{Mode: &spannerpb.TransactionOptions_ReadWrite_{ReadWrite: &spannerpb.TransactionOptions_ReadWrite{}}},
		MutationKey: &spannerpb.Mutation{}})
	if err != nil || tx.GetPrecommitToken() == nil {
		t.Fatalf("BeginTransaction: %v, %v", tx, err)
	}

	// Refusals: DML outside a read-write transaction, a batch without
	// statements or with a query, committing a read-only transaction.
	if _, err := c.ExecuteSql(ctx, &spannerpb.ExecuteSqlRequest{Session: sess.Name, Sql: ins}); status.Code(err) != codes.FailedPrecondition {
		t.Errorf("DML without a transaction: %v", err)
	}
	if _, err := c.ExecuteSql(ctx, &spannerpb.ExecuteSqlRequest{Session: sess.Name, Sql: ins, Transaction: withID([]byte("ro-begun"))}); status.Code(err) != codes.FailedPrecondition {
		t.Errorf("DML in a read-only transaction: %v", err)
	}
	if _, err := c.ExecuteBatchDml(ctx, &spannerpb.ExecuteBatchDmlRequest{Transaction: withID(id)}); status.Code(err) != codes.InvalidArgument {
		t.Errorf("empty batch: %v", err)
	}
	batch.Statements[1].Sql = "SELECT 1"
	if _, err := c.ExecuteBatchDml(ctx, batch); status.Code(err) != codes.InvalidArgument {
		t.Errorf("batch with a query: %v", err)
	}
	if _, err := c.Commit(ctx, &spannerpb.CommitRequest{Transaction: &spannerpb.CommitRequest_TransactionId{TransactionId: []byte("ro-begun")}}); status.Code(err) != codes.FailedPrecondition {
		t.Errorf("commit of a read-only transaction: %v", err)
	}

	want := Stats{Begins: 1, MutationKeys: 1, InlineBegins: 4, DML: 4, Batches: 3, BatchStatements: 9, Commits: 1, Mutations: 4}
	if got := s.Stats(); got != want {
		t.Errorf("Stats = %+v, want %+v", got, want)
	}
}
