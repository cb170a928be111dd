package spannerfasttest

import (
	"context"
	"testing"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/types/known/structpb"
)

func stmt(sql string) *spannerpb.ExecuteBatchDmlRequest_Statement {
	return &spannerpb.ExecuteBatchDmlRequest_Statement{Sql: sql}
}

func TestExecuteBatchDmlStopsAtFirstError(t *testing.T) {
	r := newRaw(t)
	ctx := context.Background()
	resp, err := r.c.ExecuteBatchDml(ctx, &spannerpb.ExecuteBatchDmlRequest{Session: r.session, Transaction: rwBegin(), Seqno: 1,
		Statements: []*spannerpb.ExecuteBatchDmlRequest_Statement{
			stmt("INSERT INTO T (a, b) VALUES (1, 'x'), (2, 'y')"),
			stmt("UPDATE T SET b = 'z' WHERE a = 2"),
			stmt("INSERT INTO T (a) VALUES (1)"),
			stmt("INSERT INTO T (a) VALUES (9)"),
		}})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(resp.GetResultSets()); n != 2 {
		t.Fatalf("%d result sets, want 2", n)
	}
	if c := codes.Code(resp.GetStatus().GetCode()); c != codes.AlreadyExists {
		t.Fatalf("status %v, want AlreadyExists", resp.GetStatus())
	}
	if got := resp.GetResultSets()[0].GetStats().GetRowCountExact(); got != 2 {
		t.Fatalf("first count %d, want 2", got)
	}
	// The failed statement fails the transaction, as on the emulator: its
	// commit fails the same way and stores nothing.
	id := resp.GetResultSets()[0].GetMetadata().GetTransaction().GetId()
	_, err = r.c.Commit(ctx, &spannerpb.CommitRequest{Session: r.session,
		Transaction: &spannerpb.CommitRequest_TransactionId{TransactionId: id}, PrecommitToken: resp.GetPrecommitToken()})
	wantCode(t, err, codes.AlreadyExists)
	r.wantRows("SELECT a, b FROM T ORDER BY a")
}

func TestBeginCommitMutationsAndPrecommitToken(t *testing.T) {
	r := newRaw(t)
	ctx := context.Background()
	tx, err := r.c.BeginTransaction(ctx, &spannerpb.BeginTransactionRequest{Session: r.session,
		Options:     rwBegin().GetBegin(),
		MutationKey: &spannerpb.Mutation{Operation: &spannerpb.Mutation_Insert{Insert: &spannerpb.Mutation_Write{Table: "T"}}}})
	if err != nil {
		t.Fatal(err)
	}
	if tx.GetPrecommitToken() == nil {
		t.Fatal("no precommit token for a multiplexed read-write transaction with a mutation key")
	}
	rs, err := r.c.ExecuteSql(ctx, &spannerpb.ExecuteSqlRequest{Session: r.session, Transaction: byID(tx.GetId()), Seqno: 1,
		Sql: "INSERT INTO T (a, b) VALUES (1, 'dml')"})
	if err != nil {
		t.Fatal(err)
	}
	// A repeated seqno replays the result instead of running it again.
	again, err := r.c.ExecuteSql(ctx, &spannerpb.ExecuteSqlRequest{Session: r.session, Transaction: byID(tx.GetId()), Seqno: 1,
		Sql: "INSERT INTO T (a, b) VALUES (1, 'dml')"})
	if err != nil || again.GetStats().GetRowCountExact() != 1 {
		t.Fatalf("replay: %v %v", again, err)
	}
	ms := []*spannerpb.Mutation{{Operation: &spannerpb.Mutation_Insert{Insert: &spannerpb.Mutation_Write{Table: "T", Columns: []string{"b", "a"},
		Values: []*structpb.ListValue{{Values: []*structpb.Value{str("m"), str("2")}}}}}}}
	commit := &spannerpb.CommitRequest{Session: r.session, Transaction: &spannerpb.CommitRequest_TransactionId{TransactionId: tx.GetId()},
		Mutations: ms, PrecommitToken: tx.GetPrecommitToken()}
	_, err = r.c.Commit(ctx, commit)
	wantCode(t, err, codes.FailedPrecondition, "precommit token")
	// The refused commit left the transaction open: with the latest token
	// it commits its DML and its mutations.
	commit.PrecommitToken = rs.GetPrecommitToken()
	if _, err := r.c.Commit(ctx, commit); err != nil {
		t.Fatal(err)
	}
	r.wantRows("SELECT a, b FROM T ORDER BY a", "1,dml", "2,m")
	commit.Mutations = nil
	tx2, _ := r.c.BeginTransaction(ctx, &spannerpb.BeginTransactionRequest{Session: r.session, Options: rwBegin().GetBegin()})
	rs2, err := r.c.ExecuteSql(ctx, &spannerpb.ExecuteSqlRequest{Session: r.session, Transaction: byID(tx2.GetId()), Seqno: 1,
		Sql: "UPDATE T SET b = 'dml2' WHERE a = 1"})
	if err != nil {
		t.Fatal(err)
	}
	commit.Transaction = &spannerpb.CommitRequest_TransactionId{TransactionId: tx2.GetId()}
	commit.PrecommitToken = rs2.GetPrecommitToken()
	if _, err := r.c.Commit(ctx, commit); err != nil {
		t.Fatal(err)
	}
	r.wantRows("SELECT a, b FROM T ORDER BY a", "1,dml2", "2,m")
	_, err = r.c.Commit(ctx, commit)
	wantCode(t, err, codes.FailedPrecondition, "committed")
}

func TestSingleUseCommitAndReplace(t *testing.T) {
	r := newRaw(t)
	ctx := context.Background()
	write := func(op func(*spannerpb.Mutation_Write) *spannerpb.Mutation, a, b string) error {
		_, err := r.c.Commit(ctx, &spannerpb.CommitRequest{Session: r.session,
			Transaction: &spannerpb.CommitRequest_SingleUseTransaction{SingleUseTransaction: rwBegin().GetBegin()},
			Mutations: []*spannerpb.Mutation{op(&spannerpb.Mutation_Write{Table: "T", Columns: []string{"a", "b"},
				Values: []*structpb.ListValue{{Values: []*structpb.Value{str(a), str(b)}}}})}})
		return err
	}
	ins := func(w *spannerpb.Mutation_Write) *spannerpb.Mutation {
		return &spannerpb.Mutation{Operation: &spannerpb.Mutation_Insert{Insert: w}}
	}
	rep := func(w *spannerpb.Mutation_Write) *spannerpb.Mutation {
		return &spannerpb.Mutation{Operation: &spannerpb.Mutation_Replace{Replace: w}}
	}
	if err := write(ins, "1", "x"); err != nil {
		t.Fatal(err)
	}
	r.mustExec("UPDATE T SET c = 2.5 WHERE a = 1", 1, nil, nil)
	if err := write(rep, "1", "y"); err != nil {
		t.Fatal(err)
	}
	// Replace clears the column it does not name.
	r.wantRows("SELECT a, b, c FROM T", "1,y,NULL")
}

func TestRollbackAndReadOnlyTransaction(t *testing.T) {
	r := newRaw(t)
	ctx := context.Background()
	r.mustExec("INSERT INTO T (a, b) VALUES (1, 'x')", 1, nil, nil)
	tx, err := r.c.BeginTransaction(ctx, &spannerpb.BeginTransactionRequest{Session: r.session, Options: rwBegin().GetBegin()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.c.Rollback(ctx, &spannerpb.RollbackRequest{Session: r.session, TransactionId: tx.GetId()}); err != nil {
		t.Fatal(err)
	}
	_, err = r.c.Commit(ctx, &spannerpb.CommitRequest{Session: r.session, Transaction: &spannerpb.CommitRequest_TransactionId{TransactionId: tx.GetId()}})
	wantCode(t, err, codes.FailedPrecondition, "rolled back")

	ro := &spannerpb.TransactionOptions{Mode: &spannerpb.TransactionOptions_ReadOnly_{ReadOnly: &spannerpb.TransactionOptions_ReadOnly{ReturnReadTimestamp: true}}}
	st, err := r.c.ExecuteStreamingSql(ctx, &spannerpb.ExecuteSqlRequest{Session: r.session, Sql: "SELECT a FROM T",
		Transaction: &spannerpb.TransactionSelector{Selector: &spannerpb.TransactionSelector_Begin{Begin: ro}}})
	if err != nil {
		t.Fatal(err)
	}
	first, err := st.Recv()
	if err != nil {
		t.Fatal(err)
	}
	rot := first.GetMetadata().GetTransaction()
	if len(rot.GetId()) == 0 || rot.GetReadTimestamp() == nil {
		t.Fatalf("inline read-only begin returned %v", rot)
	}
	if first.GetPrecommitToken() != nil {
		t.Fatal("precommit token in a read-only transaction")
	}
	for {
		if _, err := st.Recv(); err != nil {
			break
		}
	}
	// The same read-only transaction serves a second query, refuses DML.
	rs, err := r.c.ExecuteSql(ctx, &spannerpb.ExecuteSqlRequest{Session: r.session, Sql: "SELECT b FROM T", Transaction: byID(rot.GetId())})
	if err != nil || len(rs.GetRows()) != 1 {
		t.Fatalf("second read: %v %v", rs, err)
	}
	_, err = r.c.ExecuteSql(ctx, &spannerpb.ExecuteSqlRequest{Session: r.session, Sql: "DELETE FROM T WHERE true", Transaction: byID(rot.GetId())})
	wantCode(t, err, codes.FailedPrecondition, "read-only")
	_, err = r.c.ExecuteSql(ctx, &spannerpb.ExecuteSqlRequest{Session: r.session, Sql: "DELETE FROM T WHERE true"})
	wantCode(t, err, codes.InvalidArgument, "single-use")
	r.wantRows("SELECT a FROM T", "1")
}

func TestPartitionedDML(t *testing.T) {
	r := newRaw(t)
	ctx := context.Background()
	r.mustExec("INSERT INTO T (a, b) VALUES (1, 'x'), (2, 'x'), (3, 'y')", 3, nil, nil)
	tx, err := r.c.BeginTransaction(ctx, &spannerpb.BeginTransactionRequest{Session: r.session,
		Options: &spannerpb.TransactionOptions{Mode: &spannerpb.TransactionOptions_PartitionedDml_{PartitionedDml: &spannerpb.TransactionOptions_PartitionedDml{}}}})
	if err != nil {
		t.Fatal(err)
	}
	st, err := r.c.ExecuteStreamingSql(ctx, &spannerpb.ExecuteSqlRequest{Session: r.session, Transaction: byID(tx.GetId()), Seqno: 1,
		Sql: "UPDATE T SET b = 'p' WHERE b = 'x'"})
	if err != nil {
		t.Fatal(err)
	}
	p, err := st.Recv()
	if err != nil {
		t.Fatal(err)
	}
	if p.GetStats().GetRowCountLowerBound() != 2 {
		t.Fatalf("stats %v, want lower bound 2", p.GetStats())
	}
	r.wantRows("SELECT a, b FROM T ORDER BY a", "1,p", "2,p", "3,y")
	_, err = r.c.ExecuteSql(ctx, &spannerpb.ExecuteSqlRequest{Session: r.session, Transaction: byID(tx.GetId()), Seqno: 2, Sql: "INSERT INTO T (a) VALUES (5)"})
	wantCode(t, err, codes.InvalidArgument, "INSERT")
}

// TestEngineCrashersAreAnswered sends the requests that crash spannertest.
func TestEngineCrashersAreAnswered(t *testing.T) {
	r := newRaw(t)
	ctx := context.Background()
	r.mustExec("INSERT INTO T (a, b) VALUES (1, 'x')", 1, nil, nil)
	_, err := r.c.Read(ctx, &spannerpb.ReadRequest{Session: r.session, Table: "T", Columns: []string{"a"}})
	wantCode(t, err, codes.InvalidArgument, "key set")
	rs, err := r.c.Read(ctx, &spannerpb.ReadRequest{Session: r.session, Table: "T", Columns: []string{"a", "b"}, KeySet: &spannerpb.KeySet{All: true}})
	if err != nil || len(rs.GetRows()) != 1 {
		t.Fatalf("Read: %v %v", rs, err)
	}
	_, err = r.c.Read(ctx, &spannerpb.ReadRequest{Session: r.session, Table: "T", Columns: []string{"a"},
		KeySet: &spannerpb.KeySet{Ranges: []*spannerpb.KeyRange{{}}}})
	wantCode(t, err, codes.InvalidArgument, "start")
	_, err = r.c.ListSessions(ctx, &spannerpb.ListSessionsRequest{Database: r.srv.DatabasePath()})
	wantCode(t, err, codes.Unimplemented)
	// An untyped string parameter and an array type without element type.
	_, err = r.c.ExecuteSql(ctx, &spannerpb.ExecuteSqlRequest{Session: r.session, Sql: "SELECT a FROM T WHERE b = @b",
		Params: &structpb.Struct{Fields: map[string]*structpb.Value{"b": str("x")}}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = r.c.ExecuteSql(ctx, &spannerpb.ExecuteSqlRequest{Session: r.session, Sql: "SELECT a FROM T WHERE b IN UNNEST(@b)",
		Params:     &structpb.Struct{Fields: map[string]*structpb.Value{"b": structpb.NewListValue(&structpb.ListValue{})}},
		ParamTypes: map[string]*spannerpb.Type{"b": {Code: spannerpb.TypeCode_ARRAY}}})
	wantCode(t, err, codes.InvalidArgument, "parameter b")
	_, err = r.c.Commit(ctx, &spannerpb.CommitRequest{Session: r.session,
		Transaction: &spannerpb.CommitRequest_SingleUseTransaction{SingleUseTransaction: rwBegin().GetBegin()},
		Mutations:   []*spannerpb.Mutation{{Operation: &spannerpb.Mutation_Delete_{Delete: &spannerpb.Mutation_Delete{Table: "T"}}}, {}}})
	wantCode(t, err, codes.InvalidArgument)
	pr, err := r.c.PartitionQuery(ctx, &spannerpb.PartitionQueryRequest{Session: r.session, Sql: "SELECT a FROM T",
		Transaction: &spannerpb.TransactionSelector{Selector: &spannerpb.TransactionSelector_Begin{Begin: &spannerpb.TransactionOptions{
			Mode: &spannerpb.TransactionOptions_ReadOnly_{ReadOnly: &spannerpb.TransactionOptions_ReadOnly{}}}}}})
	if err != nil || len(pr.GetPartitions()) != 1 {
		t.Fatalf("PartitionQuery: %v %v", pr, err)
	}
	rs, err = r.c.ExecuteSql(ctx, &spannerpb.ExecuteSqlRequest{Session: r.session, Sql: "SELECT a FROM T",
		Transaction: byID(pr.GetTransaction().GetId()), PartitionToken: pr.GetPartitions()[0].GetPartitionToken()})
	if err != nil || len(rs.GetRows()) != 1 {
		t.Fatalf("partition: %v %v", rs, err)
	}
	bw, err := r.c.BatchWrite(ctx, &spannerpb.BatchWriteRequest{Session: r.session, MutationGroups: []*spannerpb.BatchWriteRequest_MutationGroup{
		{Mutations: []*spannerpb.Mutation{{Operation: &spannerpb.Mutation_Insert{Insert: &spannerpb.Mutation_Write{Table: "T", Columns: []string{"a"},
			Values: []*structpb.ListValue{{Values: []*structpb.Value{str("2")}}}}}}}},
		{Mutations: []*spannerpb.Mutation{{Operation: &spannerpb.Mutation_Insert{Insert: &spannerpb.Mutation_Write{Table: "T", Columns: []string{"a"},
			Values: []*structpb.ListValue{{Values: []*structpb.Value{str("1")}}}}}}}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	var got []codes.Code
	for {
		resp, err := bw.Recv()
		if err != nil {
			break
		}
		got = append(got, codes.Code(resp.GetStatus().GetCode()))
	}
	if len(got) != 2 || got[0] != codes.OK || got[1] != codes.AlreadyExists {
		t.Fatalf("BatchWrite statuses %v", got)
	}
	r.wantRows("SELECT a FROM T ORDER BY a", "1", "2")
}
