package spannerfasttest

import (
	"context"
	"strings"
	"testing"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"go.uber.org/goleak"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/structpb"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.IgnoreTopFunction("go.opencensus.io/stats/view.(*worker).start"))
}

const testDDL = `CREATE TABLE T (
	a INT64 NOT NULL,
	b STRING(MAX),
	c FLOAT64,
	d DATE,
) PRIMARY KEY (a)`

// raw is a server with a raw gRPC client and a multiplexed session, shaped
// like the driver's requests.
type raw struct {
	t       *testing.T
	srv     *Server
	c       spannerpb.SpannerClient
	session string
}

func newRaw(t *testing.T) *raw {
	t.Helper()
	ctx := context.Background()
	srv, err := Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	if err := srv.CreateTables(ctx, testDDL); err != nil {
		t.Fatal(err)
	}
	conn, err := grpc.NewClient(srv.Addr(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	c := spannerpb.NewSpannerClient(conn)
	sess, err := c.CreateSession(ctx, &spannerpb.CreateSessionRequest{Database: srv.DatabasePath(), Session: &spannerpb.Session{Multiplexed: true}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(sess.GetName(), srv.DatabasePath()+"/sessions/") {
		t.Fatalf("session name %q is not under the database", sess.GetName())
	}
	r := &raw{t: t, srv: srv, c: c, session: sess.GetName()}
	// After every test the server must still answer a query.
	t.Cleanup(func() { r.rows("SELECT a FROM T") })
	return r
}

func rwBegin() *spannerpb.TransactionSelector {
	return &spannerpb.TransactionSelector{Selector: &spannerpb.TransactionSelector_Begin{Begin: &spannerpb.TransactionOptions{
		Mode: &spannerpb.TransactionOptions_ReadWrite_{ReadWrite: &spannerpb.TransactionOptions_ReadWrite{}}}}}
}

func byID(id []byte) *spannerpb.TransactionSelector {
	return &spannerpb.TransactionSelector{Selector: &spannerpb.TransactionSelector_Id{Id: id}}
}

func str(s string) *structpb.Value { return structpb.NewStringValue(s) }

func intType() *spannerpb.Type { return &spannerpb.Type{Code: spannerpb.TypeCode_INT64} }
func strType() *spannerpb.Type { return &spannerpb.Type{Code: spannerpb.TypeCode_STRING} }

// rows runs a query single-use and returns its rows as text.
func (r *raw) rows(sql string) []string {
	r.t.Helper()
	rs, err := r.c.ExecuteSql(context.Background(), &spannerpb.ExecuteSqlRequest{Session: r.session, Sql: sql})
	if err != nil {
		r.t.Fatalf("%s: %v", sql, err)
	}
	var out []string
	for _, row := range rs.GetRows() {
		var parts []string
		for _, v := range row.GetValues() {
			switch k := v.GetKind().(type) {
			case *structpb.Value_StringValue:
				parts = append(parts, k.StringValue)
			case *structpb.Value_NullValue:
				parts = append(parts, "NULL")
			default:
				b, _ := v.MarshalJSON()
				parts = append(parts, string(b))
			}
		}
		out = append(out, strings.Join(parts, ","))
	}
	return out
}

func (r *raw) wantRows(sql string, want ...string) {
	r.t.Helper()
	got := r.rows(sql)
	if strings.Join(got, "|") != strings.Join(want, "|") {
		r.t.Fatalf("%s:\n got %q\nwant %q", sql, got, want)
	}
}

// exec runs DML in a new read-write transaction begun inline and commits
// it with the returned id and precommit token.
func (r *raw) exec(sql string, params map[string]*structpb.Value, types map[string]*spannerpb.Type) (int64, error) {
	ctx := context.Background()
	rs, err := r.c.ExecuteSql(ctx, &spannerpb.ExecuteSqlRequest{Session: r.session, Sql: sql, Transaction: rwBegin(), Seqno: 1,
		Params: &structpb.Struct{Fields: params}, ParamTypes: types})
	if err != nil {
		return 0, err
	}
	id := rs.GetMetadata().GetTransaction().GetId()
	if len(id) == 0 {
		r.t.Fatalf("%s: inline begin returned no transaction", sql)
	}
	if _, err := r.c.Commit(ctx, &spannerpb.CommitRequest{Session: r.session, Transaction: &spannerpb.CommitRequest_TransactionId{TransactionId: id},
		PrecommitToken: rs.GetPrecommitToken()}); err != nil {
		r.t.Fatalf("commit: %v", err)
	}
	return rs.GetStats().GetRowCountExact(), nil
}

func (r *raw) mustExec(sql string, want int64, params map[string]*structpb.Value, types map[string]*spannerpb.Type) {
	r.t.Helper()
	n, err := r.exec(sql, params, types)
	if err != nil {
		r.t.Fatalf("%s: %v", sql, err)
	}
	if n != want {
		r.t.Fatalf("%s: row count %d, want %d", sql, n, want)
	}
}

func wantCode(t *testing.T, err error, code codes.Code, words ...string) {
	t.Helper()
	if status.Code(err) != code {
		t.Fatalf("got %v, want code %v", err, code)
	}
	for _, w := range words {
		if !strings.Contains(err.Error(), w) {
			t.Fatalf("error %q does not name %q", err, w)
		}
	}
}
