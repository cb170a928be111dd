package fakespanner

import (
	"context"
	"testing"

	"cloud.google.com/go/longrunning/autogen/longrunningpb"
	databasepb "cloud.google.com/go/spanner/admin/database/apiv1/databasepb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// TestAdminOperations: UpdateDatabaseDdl returns an operation that is done
// after the configured number of polls, with the scripted error if any;
// requests are recorded; an unknown operation is NOT_FOUND.
func TestAdminOperations(t *testing.T) {
	ctx := context.Background()
	s := Start(t)
	cc, err := s.Dial()
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	da, ops := databasepb.NewDatabaseAdminClient(cc), longrunningpb.NewOperationsClient(cc)
	const db = "projects/p/instances/i/databases/d"

	s.SetOperationPolls(2)
	s.AddDDLError(status.Error(codes.FailedPrecondition, "bad ddl"))
	op, err := da.UpdateDatabaseDdl(ctx, &databasepb.UpdateDatabaseDdlRequest{Database: db, Statements: []string{"CREATE TABLE t"}})
	if err != nil || op.GetDone() {
		t.Fatalf("UpdateDatabaseDdl = %v, %v; want a pending operation", op, err)
	}
	for i, wantDone := range []bool{false, true} {
		got, err := ops.GetOperation(ctx, &longrunningpb.GetOperationRequest{Name: op.GetName()})
		if err != nil || got.GetDone() != wantDone {
			t.Fatalf("poll %d: %v, %v; want done=%v", i, got, err, wantDone)
		}
		if wantDone && (got.GetError().GetCode() != int32(codes.FailedPrecondition) || got.GetError().GetMessage() != "bad ddl") {
			t.Fatalf("operation error = %v; want the scripted one", got.GetError())
		}
	}

	s.SetOperationPolls(0)
	op, err = da.UpdateDatabaseDdl(ctx, &databasepb.UpdateDatabaseDdlRequest{Database: db, Statements: []string{"DROP TABLE t"}})
	if err != nil || !op.GetDone() || op.GetError() != nil || op.GetResponse() == nil {
		t.Fatalf("second UpdateDatabaseDdl = %v, %v; want done without error", op, err)
	}
	if got := len(s.RequestsFor("UpdateDatabaseDdl")); got != 2 {
		t.Fatalf("recorded %d UpdateDatabaseDdl requests, want 2", got)
	}
	if _, err := ops.GetOperation(ctx, &longrunningpb.GetOperationRequest{Name: "nope"}); status.Code(err) != codes.NotFound {
		t.Fatalf("unknown operation: %v; want NotFound", err)
	}
	if _, err := da.UpdateDatabaseDdl(ctx, &databasepb.UpdateDatabaseDdlRequest{Database: db}); status.Code(err) != codes.InvalidArgument {
		t.Fatalf("no statements: %v; want InvalidArgument", err)
	}

	op, err = da.CreateDatabase(ctx, &databasepb.CreateDatabaseRequest{Parent: "projects/p/instances/i", CreateStatement: "CREATE DATABASE `new-db`"})
	if err != nil || !op.GetDone() {
		t.Fatalf("CreateDatabase = %v, %v", op, err)
	}
	var created databasepb.Database
	if err := op.GetResponse().UnmarshalTo(&created); err != nil || created.GetName() != "projects/p/instances/i/databases/new-db" {
		t.Fatalf("created %v (%v)", created.GetName(), err)
	}
}
