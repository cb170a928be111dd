package spannerfasttest

import (
	"context"
	"fmt"
	"testing"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/structpb"
)

// The grammar FuzzEmbeddedWrongTypes draws statements from: a table with a
// column of every type the engine stores, statement shapes that compare,
// write and look up those columns, and operands (parameters of every type,
// typed and untyped, and literals) most of which do not fit the column.
const fuzzDDL = `CREATE TABLE W (
	Id INT64 NOT NULL,
	I INT64,
	F FLOAT64,
	B BOOL,
	S STRING(MAX),
	Y BYTES(MAX),
	D DATE,
	TS TIMESTAMP,
	AI ARRAY<INT64>,
	AS_ ARRAY<STRING(MAX)>,
) PRIMARY KEY (Id)`

var (
	fuzzCols   = []string{"Id", "I", "F", "B", "S", "Y", "D", "TS", "AI", "AS_"}
	fuzzOps    = []string{"=", "!=", "<", ">=", "LIKE"}
	fuzzShapes = []string{
		"SELECT Id FROM W WHERE %[1]s %[3]s %[4]s",
		"SELECT Id FROM W WHERE %[4]s %[3]s %[1]s",
		"UPDATE W SET %[2]s = %[4]s WHERE %[1]s %[3]s %[5]s",
		"DELETE FROM W WHERE %[1]s %[3]s %[4]s",
		"SELECT Id FROM W WHERE %[1]s IN (%[4]s, %[5]s)",
		"SELECT Id FROM W WHERE %[1]s IN UNNEST(%[4]s)",
		"INSERT INTO W (Id, %[2]s) VALUES (%[4]s, %[5]s)",
		"SELECT Id FROM W WHERE %[1]s BETWEEN %[4]s AND %[5]s",
		"SELECT Id FROM W WHERE %[1]s %[3]s %[2]s",
		"SELECT Id FROM W WHERE %[4]s %[3]s %[5]s",
		"UPDATE W SET %[2]s = %[4]s WHERE Id = %[5]s",
		"SELECT %[4]s %[3]s %[5]s",
	}
	fuzzOperands = []string{"@p", "@q", "1", "1.5", "'x'", "'2024-01-02'", "true", "b'x'", "NULL", "[1, 2]", "'7'"}
)

// fuzzParam is a parameter value and its type (nil: untyped, as Go strings
// are sent).
type fuzzParam struct {
	v *structpb.Value
	t *spannerpb.Type
}

func fuzzParams() []fuzzParam {
	typ := func(c spannerpb.TypeCode) *spannerpb.Type { return &spannerpb.Type{Code: c} }
	arr := func(c spannerpb.TypeCode) *spannerpb.Type {
		return &spannerpb.Type{Code: spannerpb.TypeCode_ARRAY, ArrayElementType: typ(c)}
	}
	list := func(vs ...*structpb.Value) *structpb.Value {
		return structpb.NewListValue(&structpb.ListValue{Values: vs})
	}
	s, n := structpb.NewStringValue, structpb.NewNumberValue
	return []fuzzParam{
		{s("extra"), nil}, {s("5"), nil}, {s("2024-01-02"), nil}, {s("true"), nil}, {s("2.5"), nil},
		{s("7"), typ(spannerpb.TypeCode_INT64)}, {n(2.5), typ(spannerpb.TypeCode_FLOAT64)},
		{structpb.NewBoolValue(true), typ(spannerpb.TypeCode_BOOL)}, {s("s"), typ(spannerpb.TypeCode_STRING)},
		{s("eA=="), typ(spannerpb.TypeCode_BYTES)}, {s("2024-01-02"), typ(spannerpb.TypeCode_DATE)},
		{s("2024-01-02T03:04:05Z"), typ(spannerpb.TypeCode_TIMESTAMP)}, {structpb.NewNullValue(), nil},
		{list(s("1"), s("2")), arr(spannerpb.TypeCode_INT64)}, {list(s("a"), s("b")), nil},
		{list(s("a")), arr(spannerpb.TypeCode_STRING)}, {s("x"), typ(spannerpb.TypeCode_INT64)},
		{n(1), nil}, {structpb.NewBoolValue(false), nil},
	}
}

// FuzzEmbeddedWrongTypes: statements of every shape in the grammar above,
// with operands of any type, never crash the embedded server (a panic in
// the engine would end this test binary) and never fail with Internal
// (a panic recovered here); after each the server still answers a query
// and takes a write (its writer lock is free). The seed run is a few dozen
// statements; `go test -fuzz FuzzEmbeddedWrongTypes ./spannerfasttest/`
// explores more.
func FuzzEmbeddedWrongTypes(f *testing.F) {
	for _, seed := range [][8]uint8{
		{2, 0, 2, 0, 0, 0, 0, 0},  // UPDATE W SET I = @p WHERE Id = @q, @q "extra": the reported crash
		{0, 0, 0, 0, 0, 0, 0, 0},  // Id = untyped "extra"
		{0, 3, 0, 0, 0, 0, 1, 0},  // B = untyped "5"
		{1, 2, 0, 2, 0, 0, 7, 0},  // @p < F, @p BOOL
		{0, 4, 0, 0, 2, 0, 0, 0},  // S = 1
		{0, 6, 0, 0, 0, 0, 3, 0},  // D = untyped "true"
		{0, 8, 0, 0, 0, 0, 13, 0}, // AI = ARRAY<INT64>
		{3, 1, 0, 0, 0, 0, 8, 0},  // DELETE ... I = STRING
		{4, 0, 0, 0, 0, 1, 5, 8},  // Id IN (INT64, STRING)
		{5, 0, 0, 0, 0, 0, 14, 0}, // Id IN UNNEST(untyped strings)
		{5, 3, 0, 0, 0, 0, 13, 0}, // B IN UNNEST(ARRAY<INT64>)
		{6, 0, 3, 0, 0, 1, 5, 0},  // INSERT (Id, B) VALUES (7, "extra")
		{7, 0, 0, 0, 0, 1, 0, 2},  // Id BETWEEN "extra" AND ...
		{7, 6, 0, 0, 5, 4, 0, 0},  // D BETWEEN '2024-01-02' AND 'x'
		{8, 0, 4, 0, 0, 0, 0, 0},  // Id = S
		{8, 5, 4, 2, 0, 0, 0, 0},  // Y < S
		{9, 0, 0, 0, 0, 1, 5, 7},  // @p = @q, INT64 and BOOL
		{10, 0, 1, 0, 0, 1, 9, 0}, // UPDATE ... WHERE Id = @q, @q BYTES
		{11, 0, 0, 0, 2, 4, 0, 0}, // SELECT 1 = 'x'
		{0, 7, 0, 0, 0, 0, 16, 0}, // TS = INT64 "x"
		{0, 2, 0, 0, 0, 0, 17, 0}, // F = untyped number
		{2, 1, 9, 0, 0, 1, 1, 0},  // UPDATE W SET AS_ = @p WHERE I = @q
		{0, 0, 0, 4, 0, 0, 0, 0},  // Id LIKE "extra"
		{1, 8, 0, 0, 4, 0, 0, 0},  // 'x' = AI
		{0, 1, 0, 0, 10, 0, 0, 0}, // I = '7'
		{2, 0, 1, 0, 0, 1, 4, 4},  // UPDATE W SET I = "2.5" WHERE Id = "2.5"
		{0, 3, 0, 0, 0, 0, 18, 0}, // B = untyped bool
		{5, 9, 0, 0, 0, 0, 15, 0}, // AS_ IN UNNEST(ARRAY<STRING>)
		{0, 9, 0, 0, 0, 0, 15, 0}, // AS_ = ARRAY<STRING>
		{6, 0, 8, 0, 0, 1, 1, 14}, // INSERT (Id, AI) VALUES ("5", strings)
	} {
		f.Add(seed[0], seed[1], seed[2], seed[3], seed[4], seed[5], seed[6], seed[7])
	}
	r := startFuzzServer(f)
	params := fuzzParams()
	f.Fuzz(func(t *testing.T, shape, col, col2, op, lhs, rhs, p, q uint8) {
		pick := func(list []string, i uint8) string { return list[int(i)%len(list)] }
		sql := fmt.Sprintf(pick(fuzzShapes, shape), pick(fuzzCols, col), pick(fuzzCols, col2), pick(fuzzOps, op),
			pick(fuzzOperands, lhs), pick(fuzzOperands, rhs))
		vals, types := map[string]*structpb.Value{}, map[string]*spannerpb.Type{}
		for name, i := range map[string]uint8{"p": p, "q": q} {
			fp := params[int(i)%len(params)]
			vals[name] = fp.v
			if fp.t != nil {
				types[name] = fp.t
			}
		}
		err := r.run(sql, vals, types)
		if c := status.Code(err); c == codes.Internal || c == codes.Unknown {
			t.Errorf("%s %v %v: %v, want no Internal or Unknown error", sql, vals, types, err)
		}
		r.healthy(t, sql)
	})
}

// fuzzServer is an embedded server with a raw client and a session.
type fuzzServer struct {
	c       spannerpb.SpannerClient
	session string
}

func startFuzzServer(f *testing.F) *fuzzServer {
	ctx := context.Background()
	srv, err := Start()
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(srv.Close)
	if err := srv.CreateTables(ctx, fuzzDDL); err != nil {
		f.Fatal(err)
	}
	conn, err := grpc.NewClient(srv.Addr(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { conn.Close() })
	c := spannerpb.NewSpannerClient(conn)
	sess, err := c.CreateSession(ctx, &spannerpb.CreateSessionRequest{Database: srv.DatabasePath(), Session: &spannerpb.Session{Multiplexed: true}})
	if err != nil {
		f.Fatal(err)
	}
	r := &fuzzServer{c: c, session: sess.GetName()}
	if err := r.write(); err != nil {
		f.Fatal(err)
	}
	return r
}

// run runs sql: a query single-use, DML in a read-write transaction begun
// inline and rolled back.
func (r *fuzzServer) run(sql string, vals map[string]*structpb.Value, types map[string]*spannerpb.Type) error {
	ctx := context.Background()
	req := &spannerpb.ExecuteSqlRequest{Session: r.session, Sql: sql, Params: &structpb.Struct{Fields: vals}, ParamTypes: types, Seqno: 1}
	dml := classify(sql) == dmlStatement
	if dml {
		req.Transaction = rwBegin()
	}
	rs, err := r.c.ExecuteSql(ctx, req)
	if id := rs.GetMetadata().GetTransaction().GetId(); dml && len(id) > 0 {
		if _, rerr := r.c.Rollback(ctx, &spannerpb.RollbackRequest{Session: r.session, TransactionId: id}); rerr != nil {
			return rerr
		}
	}
	return err
}

// write stores row 1 in a single-use commit: it waits for the writer, so it
// fails (Aborted, after the lock wait) while a write holds the lock.
func (r *fuzzServer) write() error {
	row := &structpb.ListValue{Values: []*structpb.Value{structpb.NewStringValue("1"), structpb.NewStringValue("2"), structpb.NewStringValue("s")}}
	_, err := r.c.Commit(context.Background(), &spannerpb.CommitRequest{Session: r.session,
		Transaction: &spannerpb.CommitRequest_SingleUseTransaction{SingleUseTransaction: &spannerpb.TransactionOptions{
			Mode: &spannerpb.TransactionOptions_ReadWrite_{ReadWrite: &spannerpb.TransactionOptions_ReadWrite{}}}},
		Mutations: []*spannerpb.Mutation{{Operation: &spannerpb.Mutation_InsertOrUpdate{InsertOrUpdate: &spannerpb.Mutation_Write{
			Table: "W", Columns: []string{"Id", "I", "S"}, Values: []*structpb.ListValue{row}}}}}})
	return err
}

// healthy checks that the server answers a query and takes a write.
func (r *fuzzServer) healthy(t *testing.T, after string) {
	t.Helper()
	if _, err := r.c.ExecuteSql(context.Background(), &spannerpb.ExecuteSqlRequest{Session: r.session, Sql: "SELECT Id FROM W"}); err != nil {
		t.Fatalf("after %s: query: %v", after, err)
	}
	if err := r.write(); err != nil {
		t.Fatalf("after %s: write: %v", after, err)
	}
}
