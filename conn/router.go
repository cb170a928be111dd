package conn

import (
	"context"
	"database/sql/driver"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/spannerfast/spannerfast/internal/sqlparse"
	"github.com/spannerfast/spannerfast/rows"
)

// The router: a parsed statement goes to the executor for its kind.
//
// Statements for Spanner (queries, DML, DDL) are routed by queryOne and
// execParsed in conn.go; partitioned reads of a query first
// (queryPartitioned). Client-side statements are routed by clientRoutes
// below, the one table that says, for each command internal/sqlparse
// recognises, what kind of statement it is and which executor runs it.
// A new client-side command is a line in that table, its grammar in
// internal/sqlparse and its executor in a file of its own.

// clientRoute is how one client-side command runs.
type clientRoute struct {
	kind statementKind
	// rows runs a command that answers with rows (SHOW, the partition
	// statements): ExecContext refuses it, as it would return nothing.
	rows func(c *Conn, ctx context.Context, st statement, args []driver.NamedValue, opts QueryOptions) (driver.Rows, error)
	// exec runs a command that changes the connection; through
	// QueryContext it returns no rows (RUN BATCH of DDL in an async mode
	// excepted: its operation).
	exec func(c *Conn, ctx context.Context, st statement) (driver.Result, error)
}

// clientRoutes maps each command to its route. It is filled by init, not
// by its declaration, because executors parse inner statements and parsing
// reads the table's kinds: a declaration would be an initialization cycle.
var clientRoutes [sqlparse.CmdRelease + 1]clientRoute

func init() {
	clientRoutes = [...]clientRoute{
		sqlparse.CmdSet:            {kind: kindClientSet, exec: noResult((*Conn).set)},
		sqlparse.CmdSetLocal:       {kind: kindClientSet, exec: noResult((*Conn).set)},
		sqlparse.CmdSetTransaction: {kind: kindClientSet, exec: noResult((*Conn).set)},
		sqlparse.CmdShow:           {kind: kindClientShow, rows: (*Conn).showStatement},
		sqlparse.CmdReset:          {kind: kindClientReset, exec: noResult((*Conn).resetStatement)},
		sqlparse.CmdBegin:          {kind: kindClientBegin, exec: noResultCtx((*Conn).beginStatement)},
		sqlparse.CmdCommit:         {kind: kindClientCommit, exec: noResultCtx((*Conn).endStatement)},
		sqlparse.CmdRollback:       {kind: kindClientRollback, exec: noResultCtx((*Conn).endStatement)},
		sqlparse.CmdStartBatch:     {kind: kindBatchStart, exec: (*Conn).execBatchStatement},
		sqlparse.CmdRunBatch:       {kind: kindBatchRun, exec: (*Conn).execBatchStatement},
		sqlparse.CmdAbortBatch:     {kind: kindBatchAbort, exec: (*Conn).execBatchStatement},
		// RUN PARTITION and RUN PARTITIONED QUERY are RUN statements too, so
		// they have RUN BATCH's kind; partitions.go runs them.
		sqlparse.CmdPartition:           {kind: kindPartition, rows: (*Conn).partitionStatement},
		sqlparse.CmdRunPartition:        {kind: kindBatchRun, rows: (*Conn).runStatement},
		sqlparse.CmdRunPartitionedQuery: {kind: kindBatchRun, rows: (*Conn).runStatement},
		sqlparse.CmdSavepoint:           {kind: kindClientSet, exec: noResultCtx((*Conn).savepointStatement)},
		sqlparse.CmdRollbackTo:          {kind: kindClientRollback, exec: noResultCtx((*Conn).savepointStatement)},
		sqlparse.CmdRelease:             {kind: kindClientSet, exec: noResultCtx((*Conn).savepointStatement)},
	}
}

// clientRouteOf returns the route of a client-side statement, and false
// for any other statement. A command without a route (one internal/sqlparse
// learnt before this table did) fails with Unimplemented rather than
// being sent to Spanner as SQL.
func clientRouteOf(st statement) (clientRoute, bool) {
	if st.client == nil {
		return clientRoute{}, false
	}
	if int(st.client.Command) < len(clientRoutes) {
		if r := clientRoutes[st.client.Command]; r.rows != nil || r.exec != nil {
			return r, true
		}
	}
	return clientRoute{exec: unrouted}, true
}

func unrouted(_ *Conn, _ context.Context, st statement) (driver.Result, error) {
	return nil, status.Errorf(codes.Unimplemented,
		"spannerfast: the client-side statement %s (command %d) has no executor", st.keyword, st.client.Command)
}

// queryClient runs a client-side statement through QueryContext.
func (c *Conn) queryClient(ctx context.Context, r clientRoute, st statement, args []driver.NamedValue, opts QueryOptions) (driver.Rows, error) {
	if r.rows != nil {
		return r.rows(c, ctx, st, args, opts)
	}
	res, err := r.exec(c, ctx, st)
	if err != nil {
		return nil, err
	}
	if r, ok := res.(*Result); ok && r.operationID != "" {
		// RUN BATCH of DDL in ASYNC / ASYNC_WAIT mode: the operation.
		return rows.OneRow([]string{"OPERATION_ID"}, r.operationID), nil
	}
	return rows.NoRows(), nil
}

// execClient runs a client-side statement through ExecContext.
func (c *Conn) execClient(ctx context.Context, r clientRoute, st statement) (driver.Result, error) {
	if r.exec == nil {
		return nil, status.Errorf(codes.InvalidArgument,
			"spannerfast: %s returns rows: run it with QueryContext", st.keyword)
	}
	return r.exec(c, ctx, st)
}

// noResult adapts an executor that only changes the connection.
func noResult(f func(*Conn, statement) error) func(*Conn, context.Context, statement) (driver.Result, error) {
	return func(c *Conn, _ context.Context, st statement) (driver.Result, error) {
		if err := f(c, st); err != nil {
			return nil, err
		}
		return driver.ResultNoRows, nil
	}
}

// noResultCtx is noResult for an executor that may call Spanner.
func noResultCtx(f func(*Conn, context.Context, statement) error) func(*Conn, context.Context, statement) (driver.Result, error) {
	return func(c *Conn, ctx context.Context, st statement) (driver.Result, error) {
		if err := f(c, ctx, st); err != nil {
			return nil, err
		}
		return driver.ResultNoRows, nil
	}
}
