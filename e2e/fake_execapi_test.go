package e2e

import (
	"context"
	"database/sql"
	"errors"
	"testing"
	"time"

	"cloud.google.com/go/spanner"
	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/structpb"

	sfdriver "github.com/spannerfast/spannerfast/driver"
	"github.com/spannerfast/spannerfast/dsn"
	"github.com/spannerfast/spannerfast/internal/fakespanner"
)

// TestFakeQueryClientContext: ExecOptions.QueryOptions.ClientContext goes
// into the request options of the statement it came with (query or DML,
// outside or inside a transaction, next to its tag), as the official
// client sends a QueryOptions.ClientContext; the next statement has none.
func TestFakeQueryClientContext(t *testing.T) {
	s := fakespanner.Start(t)
	answerEverything(s)
	const dml = "UPDATE T SET a = 1 WHERE true"
	s.AddResult(dml, fakespanner.DML(1))
	db := openFake(t, s)
	ctx := context.Background()
	cc := &spannerpb.RequestOptions_ClientContext{SecureContext: map[string]*structpb.Value{"tenant": structpb.NewStringValue("t1")}}
	opts := sfdriver.ExecOptions{QueryOptions: spanner.QueryOptions{ClientContext: cc, RequestTag: "rt"}}
	last := func(method string) *spannerpb.RequestOptions {
		t.Helper()
		reqs := s.RequestsFor(method)
		if len(reqs) == 0 {
			t.Fatalf("no %s request", method)
		}
		return reqs[len(reqs)-1].ExecuteSQL().GetRequestOptions()
	}
	want := func(ro *spannerpb.RequestOptions, with bool) {
		t.Helper()
		if with && (!protoEq(ro.GetClientContext(), cc) || ro.GetRequestTag() != "rt") {
			t.Fatalf("request options %s, want client context %s and tag rt", protoText(ro), protoText(cc))
		}
		if !with && ro.GetClientContext() != nil {
			t.Fatalf("request options %s: the statement's client context stayed", protoText(ro))
		}
	}

	if err := queryOne(ctx, db, "SELECT 1", opts); err != nil {
		t.Fatal(err)
	}
	want(last("ExecuteStreamingSql"), true)
	if err := queryOne(ctx, db, "SELECT 1"); err != nil {
		t.Fatal(err)
	}
	want(last("ExecuteStreamingSql"), false)
	if _, err := db.ExecContext(ctx, dml, opts); err != nil {
		t.Fatal(err)
	}
	want(last("ExecuteSql"), true)

	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := queryOne(ctx, tx, "SELECT 1", opts); err != nil {
		t.Fatal(err)
	}
	want(last("ExecuteStreamingSql"), true)
	if _, err := tx.ExecContext(ctx, dml, opts); err != nil {
		t.Fatal(err)
	}
	want(last("ExecuteSql"), true)
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if ro := s.RequestsFor("Commit"); len(ro) == 0 {
		t.Fatal("no Commit")
	}

	// The official client puts it in the same place.
	client := officialClient(t, s)
	it := client.Single().QueryWithOptions(ctx, spanner.NewStatement("SELECT 1"), spanner.QueryOptions{ClientContext: cc, RequestTag: "rt"})
	if err := it.Do(func(*spanner.Row) error { return nil }); err != nil {
		t.Fatal(err)
	}
	want(last("ExecuteStreamingSql"), true)
}

// TestFakeExecOptionsQueryMetadata: QueryContext fills in the
// QueryMetadata an ExecOptions carries: IsMulti for a string of several
// statements, as go-sql-spanner does.
func TestFakeExecOptionsQueryMetadata(t *testing.T) {
	s := fakespanner.Start(t)
	answerEverything(s)
	db := openFake(t, s)
	ctx := context.Background()
	for _, tc := range []struct {
		query string
		multi bool
	}{
		{"SELECT 1", false},
		{"SELECT 1; SELECT 2", true},
		{"SELECT 1;", false},
	} {
		md := &sfdriver.QueryMetadata{IsMulti: !tc.multi}
		r, err := db.QueryContext(ctx, tc.query, sfdriver.ExecOptions{QueryMetadata: md})
		if err != nil {
			t.Fatal(err)
		}
		r.Close()
		if md.IsMulti != tc.multi {
			t.Errorf("%q: IsMulti = %v, want %v", tc.query, md.IsMulti, tc.multi)
		}
	}
}

// TestFakeDirectExecuteContext: with DirectExecuteQuery, the
// DirectExecuteContext of an ExecOptions bounds QueryContext's wait for the
// first response: a query the server holds is cancelled when it ends and
// QueryContext fails with its code, while the query's own context is still
// live. Once QueryContext returned, its end no longer touches the rows.
// Without DirectExecuteQuery it is ignored, as in go-sql-spanner.
func TestFakeDirectExecuteContext(t *testing.T) {
	s := fakespanner.Start(t)
	s.AddResult("SELECT 1", fakespanner.Select1())
	db := openFake(t, s)
	ctx := context.Background()

	s.AddMethodFault("ExecuteStreamingSql", fakespanner.Fault{Hang: true})
	direct, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := db.QueryContext(ctx, "SELECT 1", sfdriver.ExecOptions{DirectExecuteQuery: true, DirectExecuteContext: direct})
	if status.Code(err) != codes.DeadlineExceeded {
		t.Fatalf("held query: %v, want DeadlineExceeded", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("QueryContext returned after %v", d)
	}

	direct2, cancel2 := context.WithCancel(ctx)
	r, err := db.QueryContext(ctx, "SELECT 1", sfdriver.ExecOptions{DirectExecuteQuery: true, DirectExecuteContext: direct2})
	if err != nil {
		t.Fatal(err)
	}
	cancel2()
	var n int64
	for r.Next() {
		if err := r.Scan(&n); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.Err(); err != nil || n != 1 {
		t.Fatalf("rows after DirectExecuteContext ended: %d, %v", n, err)
	}
	r.Close()

	done, cancel3 := context.WithCancel(ctx)
	cancel3()
	if err := queryOne(ctx, db, "SELECT 1", sfdriver.ExecOptions{DirectExecuteContext: done}); err != nil {
		t.Fatalf("DirectExecuteContext without DirectExecuteQuery: %v", err)
	}
}

// TestFakeExtractConnectorConfig: ExtractConnectorConfig takes a DSN apart
// as go-sql-spanner's does, and CreateConnector of its result talks to the
// same server as sql.Open of the DSN; a postgresql:// URL (sslmode=disable:
// plain text) works through both.
func TestFakeExtractConnectorConfig(t *testing.T) {
	s := fakespanner.Start(t)
	answerEverything(s)
	ctx := context.Background()
	for _, d := range []string{
		fakeDSN(s, "numChannels=2"),
		"postgresql://user:pw@" + s.Addr() + "/" + fakeDB + "?sslmode=disable&numChannels=2",
	} {
		cc, err := sfdriver.ExtractConnectorConfig(d)
		if err != nil {
			t.Fatal(err)
		}
		if cc.Host != s.Addr() || cc.Project != "p" || cc.Instance != "i" || cc.Database != "d" ||
			cc.Params["useplaintext"] != "true" || cc.Params["numchannels"] != "2" {
			t.Fatalf("ExtractConnectorConfig(%q) = %+v", d, cc)
		}
		c, err := sfdriver.CreateConnector(cc)
		if err != nil {
			t.Fatal(err)
		}
		for _, db := range []*sql.DB{sql.OpenDB(c), mustOpen(t, d)} {
			if err := queryOne(ctx, db, "SELECT 1"); err != nil {
				t.Fatalf("%q: %v", d, err)
			}
			db.Close()
		}
	}
	if _, err := sfdriver.ExtractConnectorConfig("postgresql://h/mydb"); !errors.Is(err, dsn.ErrMalformed) {
		t.Fatalf("bad URL: %v, want ErrMalformed", err)
	}
	if _, err := sfdriver.ExtractConnectorConfig(fakeDB + ";nosuch=1"); !errors.Is(err, dsn.ErrUnknownProperty) {
		t.Fatalf("unknown property: %v, want ErrUnknownProperty", err)
	}
}

func mustOpen(t *testing.T, d string) *sql.DB {
	t.Helper()
	db, err := sql.Open("spannerfast", d)
	if err != nil {
		t.Fatal(err)
	}
	return db
}
