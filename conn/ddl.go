package conn

import (
	"context"
	"database/sql/driver"

	"cloud.google.com/go/longrunning/autogen/longrunningpb"
	databasepb "cloud.google.com/go/spanner/admin/database/apiv1/databasepb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/spannerfast/spannerfast/dsn"
	"github.com/spannerfast/spannerfast/internal/ddlop"
	"github.com/spannerfast/spannerfast/internal/sqlparse"
)

// DDL through database/sql, as go-sql-spanner runs it: CREATE, ALTER,
// DROP, GRANT, REVOKE, ANALYZE, RENAME go to the database admin API
// (UpdateDatabaseDdl); the error keeps its gRPC code. DDL is not
// transactional, so it is refused in a transaction rather than leave the
// caller wondering whether it was part of it. In a DDL batch it is
// buffered until RUN BATCH. CREATE DATABASE and DROP DATABASE use
// CreateDatabase and DropDatabase in the DSN's instance; like
// go-sql-spanner, they run whatever the connection's transaction state. A
// DDL batch (or several DDL statements in one string) that starts with
// CREATE DATABASE creates the database with the others as its extra
// statements; DROP DATABASE must be alone.
//
// ddl_execution_mode says how long DDL waits for its long-running
// operation: SYNC until it is done; ASYNC not at all (an operation that
// the server reports failed at once still fails); ASYNC_WAIT up to
// ddl_async_wait_timeout, after which it returns while the operation goes
// on. In ASYNC and ASYNC_WAIT the result's OperationID names the
// operation (RUN BATCH through QueryContext returns it as a row, column
// OPERATION_ID).
//
// default_sequence_kind: when DDL fails because the database has no
// default sequence kind (CREATE SEQUENCE, or AUTO_INCREMENT / IDENTITY
// columns, without a kind), that kind is set as the database's option and
// the statements not yet applied are sent again, once (internal/ddlop).
//
// A batch of several DDL statements that fails returns a *BatchError whose
// BatchUpdateCounts has -1 for each statement applied before the failure, as
// go-sql-spanner's.

// execDDL runs a DDL statement from ExecContext or QueryContext; its
// arguments are ignored, as go-sql-spanner ignores them.
func (c *Conn) execDDL(ctx context.Context, st statement, query string) (driver.Result, error) {
	c.state.NoteStart() // as go-sql-spanner: DDL leaves no commit to report
	if b := c.activeBatch(); b != nil {
		if b.kind == batchDML {
			return nil, status.Errorf(codes.FailedPrecondition,
				"spannerfast: %s: the connection has an active DML batch; run or abort it before DDL", st.keyword)
		}
		if len(b.ddl) == 0 {
			b.ddlFirst = st
		}
		b.ddl = append(b.ddl, query)
		return driver.ResultNoRows, nil
	}
	if c.tx != nil && databaseStatement(st) == "" {
		return nil, status.Errorf(codes.FailedPrecondition,
			"spannerfast: %s: DDL cannot run in a transaction (it is not transactional); end the transaction first", st.keyword)
	}
	return c.runParsedDDL(ctx, st, []string{query})
}

// databaseStatement returns CREATE or DROP for CREATE DATABASE and DROP
// DATABASE, "" for any other statement.
func databaseStatement(st statement) string {
	if st.kind != kindDDL {
		return ""
	}
	switch st.database {
	case sqlparse.CreateDatabase:
		return "CREATE"
	case sqlparse.DropDatabase:
		return "DROP"
	}
	return ""
}

// runParsedDDL sends DDL statements as one operation: CreateDatabase when
// the first (parsed: first) is CREATE DATABASE (the others are its extra
// statements), DropDatabase for DROP DATABASE (alone), else
// UpdateDatabaseDdl. RUN BATCH, a single DDL statement and a run of DDL in a
// string of several statements all come here.
func (c *Conn) runParsedDDL(ctx context.Context, first statement, stmts []string) (driver.Result, error) {
	switch databaseStatement(first) {
	case "CREATE":
		return ddlop.CreateDatabase(ctx, c.client.Telemetry(), stmts, func(ctx context.Context) (driver.Result, error) { return c.createDatabase(ctx, stmts[0], stmts[1:]) })
	case "DROP":
		if len(stmts) > 1 {
			return nil, status.Error(codes.InvalidArgument, "spannerfast: DROP DATABASE cannot be sent in a batch with other statements")
		}
		return ddlop.DropDatabase(ctx, c.client.Telemetry(), stmts[0], func(ctx context.Context) (driver.Result, error) { return c.dropDatabase(ctx, first) })
	}
	return c.updateDDL(ctx, stmts)
}

// updateDDL sends statements in one UpdateDatabaseDdl and waits for the
// operation as ddl_execution_mode says, retrying once after setting
// default_sequence_kind when that is what the database lacked.
func (c *Conn) updateDDL(ctx context.Context, stmts []string) (driver.Result, error) {
	if err := c.enterReadWrite(ctx); err != nil { // the emulator's schema changes wait for its transactions
		return nil, err
	}
	defer c.leaveReadWrite()
	var setKind func() error
	if c.props().DefaultSequenceKind != "" {
		setKind = func() error { return c.setDefaultSequenceKind(ctx) }
	}
	op, applied, err := ddlop.Send(ctx, c.client.Telemetry(), stmts, c.startDDL, setKind)
	if err != nil {
		if len(stmts) > 1 {
			be := &BatchError{BatchUpdateCounts: make([]int64, applied), Err: err}
			for i := range be.BatchUpdateCounts {
				be.BatchUpdateCounts[i] = -1 // applied; DDL has no update count
			}
			return nil, be
		}
		return nil, err
	}
	return c.ddlResult(op), nil
}

// startDDL sends one UpdateDatabaseDdl and waits for it (awaitDDL). The
// operation is returned as last seen, nil if the call itself failed.
func (c *Conn) startDDL(ctx context.Context, stmts []string) (*longrunningpb.Operation, error) {
	db := c.client.DatabasePath()
	op, err := c.client.DatabaseAdmin().UpdateDatabaseDdl(c.client.AdminContext(ctx, "database", db),
		&databasepb.UpdateDatabaseDdlRequest{Database: db, Statements: stmts})
	if err != nil {
		return nil, err
	}
	return c.awaitDDL(ctx, op)
}

// awaitDDL waits for a DDL operation as ddl_execution_mode says (ddlop.Wait).
func (c *Conn) awaitDDL(ctx context.Context, op *longrunningpb.Operation) (*longrunningpb.Operation, error) {
	p := c.props()
	return ddlop.Wait(ctx, op, p.DDLExecutionMode == dsn.DDLAsync, p.DDLExecutionMode == dsn.DDLAsyncWait,
		p.DDLAsyncWaitTimeout, c.client.AwaitOperation)
}

// ddlResult is the result of DDL whose operation is op: in ASYNC and
// ASYNC_WAIT mode it carries the operation's name (OperationID).
func (c *Conn) ddlResult(op *longrunningpb.Operation) driver.Result {
	if m := c.props().DDLExecutionMode; m == dsn.DDLAsync || m == dsn.DDLAsyncWait {
		return &Result{operationID: op.GetName()}
	}
	return driver.ResultNoRows
}

// OperationID returns the name of the long-running operation of DDL run in
// ddl_execution_mode ASYNC or ASYNC_WAIT; for other results it fails with
// FailedPrecondition, as go-sql-spanner's.
func (r *Result) OperationID() (string, error) {
	if r.operationID == "" {
		return "", status.Error(codes.FailedPrecondition, "spannerfast: OperationID is only set for DDL run with ddl_execution_mode ASYNC or ASYNC_WAIT")
	}
	return r.operationID, nil
}

// setDefaultSequenceKind sets default_sequence_kind as the database's
// option, in the statement form of its dialect (dsn checked the kind).
func (c *Conn) setDefaultSequenceKind(ctx context.Context) error {
	pg := c.props().DatabaseDialect == dsn.DialectPostgreSQL || c.props().Dialect == dsn.DialectPostgreSQL
	stmt, err := ddlop.SetSequenceKind(pg, c.props().Database, c.props().DefaultSequenceKind)
	if err != nil {
		return err
	}
	_, err = c.startDDL(ctx, []string{stmt})
	return err
}

// createDatabase sends CREATE DATABASE with extra statements (a DDL batch
// that starts with it) in the DSN's instance and waits for the operation
// as ddl_execution_mode says.
func (c *Conn) createDatabase(ctx context.Context, query string, extra []string) (driver.Result, error) {
	parent := c.props().InstancePath()
	op, err := c.client.DatabaseAdmin().CreateDatabase(c.client.AdminContext(ctx, "parent", parent),
		&databasepb.CreateDatabaseRequest{
			Parent:          parent,
			CreateStatement: query,
			ExtraStatements: extra,
			DatabaseDialect: databasepb.DatabaseDialect(databasepb.DatabaseDialect_value[string(c.props().NewDatabaseDialect())]),
		})
	if err == nil {
		op, err = c.awaitDDL(ctx, op)
	}
	if err != nil {
		return nil, err
	}
	return c.ddlResult(op), nil
}

// dropDatabase drops the database named after DROP DATABASE in the DSN's
// instance.
func (c *Conn) dropDatabase(ctx context.Context, st statement) (driver.Result, error) {
	if st.invalid != nil {
		return nil, st.invalid
	}
	path := c.props().InstancePath() + "/databases/" + st.dbName
	_, err := c.client.DatabaseAdmin().DropDatabase(c.client.AdminContext(ctx, "database", path),
		&databasepb.DropDatabaseRequest{Database: path})
	if err != nil {
		return nil, err
	}
	return driver.ResultNoRows, nil
}
