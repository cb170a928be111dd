package fakespanner

import (
	"context"
	"strconv"
	"strings"

	"cloud.google.com/go/longrunning/autogen/longrunningpb"
	databasepb "cloud.google.com/go/spanner/admin/database/apiv1/databasepb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/emptypb"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// The database admin service, enough for DDL tests: UpdateDatabaseDdl,
// CreateDatabase and DropDatabase are recorded like every request and
// answered with long-running operations that the Operations service
// (GetOperation) completes after SetOperationPolls polls. AddDDLError
// scripts an operation that fails; AddMethodFault makes the call itself
// fail. Nothing is applied: the fake has no schema.

// admin serves google.spanner.admin.database.v1.DatabaseAdmin and
// google.longrunning.Operations. Its fields are guarded by Server.mu.
type admin struct {
	databasepb.UnimplementedDatabaseAdminServer
	longrunningpb.UnimplementedOperationsServer

	s       *Server
	ops     map[string]*operation
	ddlErrs []ddlFailure // outcomes of the next UpdateDatabaseDdl operations
	polls   int          // GetOperation calls an operation needs to be done
}

// ddlFailure is a scripted failing UpdateDatabaseDdl operation: the first
// applied statements got commit timestamps, then err.
type ddlFailure struct {
	applied int
	err     error
}

// operation is a long-running operation and its final state.
type operation struct {
	final *longrunningpb.Operation
	left  int // polls before it reports done
}

func (s *Server) registerAdmin() {
	s.admin = &admin{s: s, ops: map[string]*operation{}, polls: 1}
	databasepb.RegisterDatabaseAdminServer(s.gs, s.admin)
	longrunningpb.RegisterOperationsServer(s.gs, s.admin)
}

// AddDDLError makes the operation of the next UpdateDatabaseDdl without a
// scripted outcome finish with err (a status error keeps its code). Calls
// queue up: each UpdateDatabaseDdl takes the oldest.
func (s *Server) AddDDLError(err error) { s.AddDDLFailure(0, err) }

// AddDDLFailure is AddDDLError for an operation that applied its first
// applied statements before failing: its metadata has commit timestamps
// for them, as Spanner reports a partly applied DDL batch.
func (s *Server) AddDDLFailure(applied int, err error) {
	s.mu.Lock()
	s.admin.ddlErrs = append(s.admin.ddlErrs, ddlFailure{applied: applied, err: err})
	s.mu.Unlock()
}

// SetOperationPolls sets how many GetOperation calls a new operation needs
// before it reports done (default 1; 0: done at once).
func (s *Server) SetOperationPolls(n int) {
	s.mu.Lock()
	s.admin.polls = max(n, 0)
	s.mu.Unlock()
}

// start registers an operation named under parent; its first answer is
// returned (done at once when polls is 0). s.mu must be held.
func (a *admin) startLocked(parent string, meta, resp proto.Message, opErr error) (*longrunningpb.Operation, error) {
	a.s.nextID++
	name := parent + "/operations/fake-op-" + strconv.Itoa(a.s.nextID)
	m, err := anypb.New(meta)
	if err != nil {
		return nil, status.Errorf(codes.Internal, "fakespanner: operation metadata: %v", err)
	}
	final := &longrunningpb.Operation{Name: name, Metadata: m, Done: true}
	if opErr != nil {
		final.Result = &longrunningpb.Operation_Error{Error: status.Convert(opErr).Proto()}
	} else {
		r, err := anypb.New(resp)
		if err != nil {
			return nil, status.Errorf(codes.Internal, "fakespanner: operation response: %v", err)
		}
		final.Result = &longrunningpb.Operation_Response{Response: r}
	}
	a.ops[name] = &operation{final: final, left: a.polls}
	if a.polls == 0 {
		return final, nil
	}
	return &longrunningpb.Operation{Name: name, Metadata: m}, nil
}

// UpdateDatabaseDdl answers with an operation that finishes with the next
// scripted DDL error, or successfully.
func (a *admin) UpdateDatabaseDdl(_ context.Context, req *databasepb.UpdateDatabaseDdlRequest) (*longrunningpb.Operation, error) {
	if req.GetDatabase() == "" || len(req.GetStatements()) == 0 {
		return nil, status.Error(codes.InvalidArgument, "fakespanner: UpdateDatabaseDdl needs a database and at least one statement")
	}
	a.s.mu.Lock()
	defer a.s.mu.Unlock()
	applied := len(req.GetStatements())
	var opErr error
	if len(a.ddlErrs) > 0 {
		f := a.ddlErrs[0]
		a.ddlErrs = a.ddlErrs[1:]
		opErr, applied = f.err, min(f.applied, applied)
	}
	meta := &databasepb.UpdateDatabaseDdlMetadata{Database: req.GetDatabase(), Statements: req.GetStatements()}
	for range applied {
		meta.CommitTimestamps = append(meta.CommitTimestamps, timestamppb.Now())
	}
	return a.startLocked(req.GetDatabase(), meta, &emptypb.Empty{}, opErr)
}

// CreateDatabase answers with an operation that yields the database named
// in the CREATE DATABASE statement.
func (a *admin) CreateDatabase(_ context.Context, req *databasepb.CreateDatabaseRequest) (*longrunningpb.Operation, error) {
	f := strings.Fields(req.GetCreateStatement())
	if req.GetParent() == "" || len(f) < 3 || !strings.EqualFold(f[0], "CREATE") || !strings.EqualFold(f[1], "DATABASE") {
		return nil, status.Errorf(codes.InvalidArgument, "fakespanner: CreateDatabase needs a parent and a CREATE DATABASE statement, got %q", req.GetCreateStatement())
	}
	name := req.GetParent() + "/databases/" + strings.Trim(f[2], "`;")
	db := &databasepb.Database{Name: name, State: databasepb.Database_READY, DatabaseDialect: req.GetDatabaseDialect()}
	a.s.mu.Lock()
	defer a.s.mu.Unlock()
	return a.startLocked(name, &databasepb.CreateDatabaseMetadata{Database: name}, db, nil)
}

// DropDatabase succeeds for any database name.
func (a *admin) DropDatabase(_ context.Context, req *databasepb.DropDatabaseRequest) (*emptypb.Empty, error) {
	if req.GetDatabase() == "" {
		return nil, status.Error(codes.InvalidArgument, "fakespanner: DropDatabase without database")
	}
	return &emptypb.Empty{}, nil
}

// GetOperation reports an operation, done once it was polled enough.
func (a *admin) GetOperation(_ context.Context, req *longrunningpb.GetOperationRequest) (*longrunningpb.Operation, error) {
	a.s.mu.Lock()
	defer a.s.mu.Unlock()
	op, ok := a.ops[req.GetName()]
	if !ok {
		return nil, status.Errorf(codes.NotFound, "fakespanner: operation %q not found", req.GetName())
	}
	if op.left--; op.left > 0 {
		return &longrunningpb.Operation{Name: op.final.GetName(), Metadata: op.final.GetMetadata()}, nil
	}
	return op.final, nil
}
