package spannerfasttest

import (
	"context"
	"sync"
	"time"

	lropb "cloud.google.com/go/longrunning/autogen/longrunningpb"
	adminpb "cloud.google.com/go/spanner/admin/database/apiv1/databasepb"
	"cloud.google.com/go/spanner/spansql"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// adminService forwards the database admin calls spannertest implements and
// answers every other one with Unimplemented: spannertest leaves them nil,
// and calling one would crash the process.
type adminService struct {
	adminpb.UnimplementedDatabaseAdminServer
	lropb.UnimplementedOperationsServer
	engine  adminpb.DatabaseAdminClient
	ops     lropb.OperationsClient
	schema  *schemaNotes
	catalog *catalog

	ddlMu sync.Mutex // one DDL request at a time, so the catalog follows the engine
}

func (a *adminService) GetDatabase(ctx context.Context, req *adminpb.GetDatabaseRequest) (*adminpb.Database, error) {
	return a.engine.GetDatabase(ctx, req)
}

func (a *adminService) GetDatabaseDdl(ctx context.Context, req *adminpb.GetDatabaseDdlRequest) (*adminpb.GetDatabaseDdlResponse, error) {
	return a.engine.GetDatabaseDdl(ctx, req)
}

// UpdateDatabaseDdl applies the statements one at a time on the engine,
// waiting for each, so that the catalog records exactly those the engine
// applied: as on Spanner, the statements before a failing one stay
// applied. The answer is the last engine operation, already done.
func (a *adminService) UpdateDatabaseDdl(ctx context.Context, req *adminpb.UpdateDatabaseDdlRequest) (*lropb.Operation, error) {
	var stmts []spansql.DDLStmt
	for _, sql := range req.GetStatements() {
		stmt, err := spansql.ParseDDLStmt(sql)
		if err != nil {
			return a.engine.UpdateDatabaseDdl(ctx, req) // the engine rejects the request as a whole
		}
		if err := checkReserved(sql, stmt); err != nil {
			return nil, err
		}
		stmts = append(stmts, stmt)
	}
	if len(stmts) == 0 {
		return a.engine.UpdateDatabaseDdl(ctx, req)
	}
	a.ddlMu.Lock()
	defer a.ddlMu.Unlock()
	var op *lropb.Operation
	for i, stmt := range stmts {
		one := &adminpb.UpdateDatabaseDdlRequest{Database: req.GetDatabase(), Statements: req.GetStatements()[i : i+1]}
		var err error
		if op, err = a.runDDL(ctx, one); err != nil {
			return nil, err
		}
		if e := op.GetError(); e != nil {
			// Spanner refuses a name already in use with FailedPrecondition.
			if codes.Code(e.GetCode()) == codes.AlreadyExists {
				e.Code = int32(codes.FailedPrecondition)
			}
			break
		}
		a.schema.note(one.GetStatements())
		a.catalog.apply(stmt)
	}
	return op, nil
}

// runDDL sends one request to the engine and waits until it is done.
func (a *adminService) runDDL(ctx context.Context, req *adminpb.UpdateDatabaseDdlRequest) (*lropb.Operation, error) {
	op, err := a.engine.UpdateDatabaseDdl(ctx, req)
	for err == nil && !op.GetDone() {
		select {
		case <-ctx.Done():
			return nil, status.FromContextError(ctx.Err()).Err()
		case <-time.After(time.Millisecond):
		}
		op, err = a.ops.GetOperation(ctx, &lropb.GetOperationRequest{Name: op.GetName()})
	}
	return op, err
}

func (a *adminService) GetOperation(ctx context.Context, req *lropb.GetOperationRequest) (*lropb.Operation, error) {
	return a.ops.GetOperation(ctx, req)
}

// schemaNotes remembers what spannertest's GetDatabaseDdl leaves out:
// which columns are generated (they cannot be written, so an undo must
// skip them).
type schemaNotes struct {
	mu        sync.Mutex
	generated map[string]map[string]bool // lower-case table -> lower-case column
	defaults  map[string]map[string]bool // columns with a DEFAULT expression
}

func newSchemaNotes() *schemaNotes {
	return &schemaNotes{generated: map[string]map[string]bool{}, defaults: map[string]map[string]bool{}}
}

func (n *schemaNotes) note(stmts []string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, sql := range stmts {
		stmt, err := spansql.ParseDDLStmt(sql)
		if err != nil {
			continue // the engine rejects it too
		}
		switch st := stmt.(type) {
		case *spansql.CreateTable:
			for _, c := range st.Columns {
				n.markLocked(st.Name, c)
			}
		case *spansql.AlterTable:
			if add, ok := st.Alteration.(spansql.AddColumn); ok {
				n.markLocked(st.Name, add.Def)
			}
		}
	}
}

func (n *schemaNotes) markLocked(table spansql.ID, c spansql.ColumnDef) {
	mark := func(m map[string]map[string]bool, on bool) {
		t := lower(string(table))
		if m[t] == nil {
			m[t] = map[string]bool{}
		}
		m[t][lower(string(c.Name))] = on
	}
	mark(n.generated, c.Generated != nil)
	mark(n.defaults, c.Default != nil)
}

func (n *schemaNotes) isGenerated(table, col string) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.generated[lower(table)][lower(col)]
}

func (n *schemaNotes) hasDefault(table, col string) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.defaults[lower(table)][lower(col)]
}

// unimplemented is the error for requests the server does not support.
func unimplemented(format string, args ...any) error {
	return status.Errorf(codes.Unimplemented, "spannerfasttest: "+format, args...)
}

func invalid(format string, args ...any) error {
	return status.Errorf(codes.InvalidArgument, "spannerfasttest: "+format, args...)
}
