package e2e

import (
	"context"
	"net/url"
	"slices"
	"testing"

	databasepb "cloud.google.com/go/spanner/admin/database/apiv1/databasepb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/spannerfast/spannerfast/conn"
	"github.com/spannerfast/spannerfast/internal/fakespanner"
	"github.com/spannerfast/spannerfast/internal/transport"
)

// DDL against the fake server's database admin service: the exact
// UpdateDatabaseDdl requests, the awaited operations, the errors.

const (
	ddlTable = "CREATE TABLE Singers (SingerId INT64 NOT NULL, Name STRING(MAX)) PRIMARY KEY (SingerId)"
	ddlIndex = "CREATE INDEX SingersByName ON Singers (Name)"
	ddlAlter = "ALTER TABLE Singers ADD COLUMN Age INT64"
)

func ddlRequests(s *fakespanner.Server) []*databasepb.UpdateDatabaseDdlRequest {
	var out []*databasepb.UpdateDatabaseDdlRequest
	for _, r := range s.RequestsFor("UpdateDatabaseDdl") {
		out = append(out, r.Message.(*databasepb.UpdateDatabaseDdlRequest))
	}
	return out
}

// TestFakeDDL: ExecContext and QueryContext of DDL each send one
// UpdateDatabaseDdl for the database, with the routing headers, and return
// only once the operation is done (polled until then).
func TestFakeDDL(t *testing.T) {
	ctx := context.Background()
	s := fakespanner.Start(t)
	s.SetOperationPolls(3)
	db := openFake(t, s)
	if _, err := db.ExecContext(ctx, ddlTable); err != nil {
		t.Fatal(err)
	}
	if n := len(s.RequestsFor("GetOperation")); n != 3 {
		t.Fatalf("%d GetOperation polls, want 3 (the operation was not awaited)", n)
	}
	rows, err := db.QueryContext(ctx, ddlIndex)
	if err != nil {
		t.Fatal(err)
	}
	if rows.Next() {
		t.Fatal("DDL through QueryContext returned a row")
	}
	rows.Close()
	reqs := ddlRequests(s)
	if len(reqs) != 2 || !slices.Equal(reqs[0].GetStatements(), []string{ddlTable}) || !slices.Equal(reqs[1].GetStatements(), []string{ddlIndex}) {
		t.Fatalf("UpdateDatabaseDdl requests %v", reqs)
	}
	if reqs[0].GetDatabase() != fakeDB {
		t.Fatalf("database %q, want %q", reqs[0].GetDatabase(), fakeDB)
	}
	h := s.RequestsFor("UpdateDatabaseDdl")[0].Header
	if got := h.Get(transport.HeaderRequestParams); !slices.Equal(got, []string{"database=" + url.QueryEscape(fakeDB)}) {
		t.Fatalf("x-goog-request-params %v", got)
	}
	if got := h.Get(transport.HeaderResourcePrefix); !slices.Equal(got, []string{fakeDB}) {
		t.Fatalf("google-cloud-resource-prefix %v", got)
	}
	if len(s.RequestsFor("ExecuteSql"))+len(s.RequestsFor("ExecuteStreamingSql")) != 0 {
		t.Fatal("DDL went to the data API")
	}
}

// TestFakeDDLErrors: an operation error and an RPC error both keep their
// codes; DDL in a transaction is refused without sending anything.
func TestFakeDDLErrors(t *testing.T) {
	ctx := context.Background()
	s := fakespanner.Start(t)
	db := openFake(t, s)
	s.AddDDLError(status.Error(codes.FailedPrecondition, "Duplicate name in schema: Singers."))
	if _, err := db.ExecContext(ctx, ddlTable); status.Code(err) != codes.FailedPrecondition || status.Convert(err).Message() != "Duplicate name in schema: Singers." {
		t.Fatalf("operation error %v; want the operation's FailedPrecondition", err)
	}
	s.AddMethodFault("UpdateDatabaseDdl", fakespanner.Fault{Err: status.Error(codes.PermissionDenied, "no")})
	if _, err := db.ExecContext(ctx, ddlTable); status.Code(err) != codes.PermissionDenied {
		t.Fatalf("RPC error %v; want PermissionDenied", err)
	}
	n := len(ddlRequests(s))
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, ddlAlter); status.Code(err) != codes.FailedPrecondition {
		t.Fatalf("DDL in a transaction: %v; want FailedPrecondition", err)
	}
	if _, err := tx.QueryContext(ctx, ddlAlter); status.Code(err) != codes.FailedPrecondition {
		t.Fatalf("DDL through QueryContext in a transaction: %v; want FailedPrecondition", err)
	}
	if len(ddlRequests(s)) != n {
		t.Fatal("DDL in a transaction was sent")
	}
}

// TestFakeDDLBatch: START BATCH DDL buffers; RUN BATCH sends ONE
// UpdateDatabaseDdl with the statements in order; ABORT BATCH drops them;
// the API methods do the same.
func TestFakeDDLBatch(t *testing.T) {
	ctx := context.Background()
	s := fakespanner.Start(t)
	db := openFake(t, s)
	c := dbConn(t, db)
	mustExec(t, c, "START BATCH DDL")
	mustExec(t, c, ddlTable)
	mustExec(t, c, ddlIndex)
	if rows, err := c.QueryContext(ctx, ddlAlter); err != nil {
		t.Fatal(err)
	} else {
		rows.Close()
	}
	_ = raw(t, c, func(dc *conn.Conn) error {
		st := dc.GetBatchedStatements()
		if !dc.InDDLBatch() || dc.InDMLBatch() || len(st) != 3 || st[2].SQL != ddlAlter {
			t.Errorf("InDDLBatch %v, batched %v", dc.InDDLBatch(), st)
		}
		return nil
	})
	if len(ddlRequests(s)) != 0 {
		t.Fatal("DDL sent before RUN BATCH")
	}
	mustExec(t, c, "RUN BATCH")
	reqs := ddlRequests(s)
	if len(reqs) != 1 || !slices.Equal(reqs[0].GetStatements(), []string{ddlTable, ddlIndex, ddlAlter}) {
		t.Fatalf("UpdateDatabaseDdl requests %v; want one with the three statements in order", reqs)
	}

	mustExec(t, c, "START BATCH DDL")
	mustExec(t, c, ddlTable)
	mustExec(t, c, "ABORT BATCH")
	mustExec(t, c, "START BATCH DDL")
	mustExec(t, c, "RUN BATCH") // empty: nothing to send
	if n := len(ddlRequests(s)); n != 1 {
		t.Fatalf("%d UpdateDatabaseDdl after an aborted and an empty batch, want 1", n)
	}

	// The API form; a failing operation fails RunBatch with its code and
	// ends the batch.
	s.AddDDLError(status.Error(codes.InvalidArgument, "bad"))
	_ = raw(t, c, func(dc *conn.Conn) error { return dc.StartBatchDDL() })
	mustExec(t, c, ddlIndex)
	err := raw(t, c, func(dc *conn.Conn) error { return dc.RunBatch(ctx) })
	if status.Code(err) != codes.InvalidArgument {
		t.Fatalf("RunBatch: %v; want InvalidArgument", err)
	}
	// RunDmlBatch on a DDL batch runs it, then says it was no DML batch.
	_ = raw(t, c, func(dc *conn.Conn) error { return dc.StartBatchDDL() })
	mustExec(t, c, ddlAlter)
	err = raw(t, c, func(dc *conn.Conn) error {
		_, err := dc.RunDmlBatch(ctx)
		if dc.InDDLBatch() {
			t.Error("batch still active")
		}
		return err
	})
	if status.Code(err) != codes.FailedPrecondition || len(ddlRequests(s)) != 3 {
		t.Fatalf("RunDmlBatch of a DDL batch: %v, %d requests; want FailedPrecondition after sending it", err, len(ddlRequests(s)))
	}
	// DML in a DDL batch is not batched: it runs at once.
	s.AddResult(txnInsert, fakespanner.DML(1))
	mustExec(t, c, "START BATCH DDL")
	if n, _ := mustExec(t, c, txnInsert).RowsAffected(); n != 1 {
		t.Fatalf("DML in a DDL batch: RowsAffected %d, want 1", n)
	}
}

// TestFakeCreateDropDatabase: CREATE DATABASE goes to CreateDatabase in the
// DSN's instance (awaited), DROP DATABASE to DropDatabase.
func TestFakeCreateDropDatabase(t *testing.T) {
	ctx := context.Background()
	s := fakespanner.Start(t)
	db := openFake(t, s)
	const create = "CREATE DATABASE `other-db`"
	if _, err := db.ExecContext(ctx, create); err != nil {
		t.Fatal(err)
	}
	cr := s.RequestsFor("CreateDatabase")
	if len(cr) != 1 {
		t.Fatalf("%d CreateDatabase requests", len(cr))
	}
	req := cr[0].Message.(*databasepb.CreateDatabaseRequest)
	if req.GetParent() != "projects/p/instances/i" || req.GetCreateStatement() != create || req.GetDatabaseDialect() != databasepb.DatabaseDialect_GOOGLE_STANDARD_SQL {
		t.Fatalf("CreateDatabase request %v", req)
	}
	if len(s.RequestsFor("GetOperation")) != 1 {
		t.Fatal("CreateDatabase operation not awaited")
	}
	if _, err := db.ExecContext(ctx, "DROP DATABASE `other-db`"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, "drop database plain_db;"); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range s.RequestsFor("DropDatabase") {
		got = append(got, r.Message.(*databasepb.DropDatabaseRequest).GetDatabase())
	}
	if !slices.Equal(got, []string{"projects/p/instances/i/databases/other-db", "projects/p/instances/i/databases/plain_db"}) {
		t.Fatalf("DropDatabase requests %v", got)
	}
	if _, err := db.ExecContext(ctx, "DROP DATABASE"); status.Code(err) != codes.InvalidArgument {
		t.Fatalf("DROP DATABASE without a name: %v; want InvalidArgument", err)
	}
	if len(ddlRequests(s)) != 0 {
		t.Fatal("database statements went to UpdateDatabaseDdl")
	}
}
