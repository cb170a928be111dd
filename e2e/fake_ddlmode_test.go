package e2e

import (
	"context"
	sqldriver "database/sql/driver"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	databasepb "cloud.google.com/go/spanner/admin/database/apiv1/databasepb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/spannerfast/spannerfast/conn"
	"github.com/spannerfast/spannerfast/internal/fakespanner"
)

// ddl_execution_mode, default_sequence_kind, DDL batch errors and CREATE
// DATABASE with extra statements, against the fake server's admin service.

// execRaw runs query through the driver connection's ExecContext and
// returns the driver's own result (sql.Result hides it).
func execRaw(t *testing.T, s *fakespanner.Server, props []string, queries ...string) (sqldriver.Result, error) {
	t.Helper()
	c := dbConn(t, openFake(t, s, props...))
	var res sqldriver.Result
	err := raw(t, c, func(dc *conn.Conn) error {
		for _, q := range queries {
			var err error
			if res, err = dc.ExecContext(context.Background(), q, nil); err != nil {
				return err
			}
		}
		return nil
	})
	return res, err
}

// operationID returns the OperationID of a DDL result, or the error.
func operationID(res sqldriver.Result) (string, error) {
	sr, ok := res.(conn.SpannerResult)
	if !ok {
		return "", status.Errorf(codes.Internal, "result %T is no SpannerResult", res)
	}
	return sr.OperationID()
}

// opNamed checks that id names an operation of the fake's database.
func opNamed(t *testing.T, id string) {
	t.Helper()
	if !strings.HasPrefix(id, fakeDB+"/operations/") {
		t.Fatalf("OperationID %q; want an operation of %s", id, fakeDB)
	}
}

// TestFakeDDLExecutionMode: ASYNC returns once the operation started (no
// polling) with its name as OperationID, also from RUN BATCH through
// QueryContext as a row; ASYNC_WAIT returns when the operation is done or
// the timeout passed, whichever is first, and reports a failure seen in
// time; SYNC has no OperationID.
func TestFakeDDLExecutionMode(t *testing.T) {
	ctx := context.Background()
	s := fakespanner.Start(t)
	s.SetOperationPolls(1 << 30) // never done

	res, err := execRaw(t, s, []string{"ddl_execution_mode=ASYNC"}, ddlTable)
	if err != nil {
		t.Fatal(err)
	}
	id, err := operationID(res)
	if err != nil {
		t.Fatal(err)
	}
	opNamed(t, id)
	if n := len(s.RequestsFor("GetOperation")); n != 0 {
		t.Fatalf("ASYNC polled the operation %d times", n)
	}

	// RUN BATCH through QueryContext: one row, column OPERATION_ID.
	c := dbConn(t, openFake(t, s, "ddl_execution_mode=ASYNC"))
	mustExec(t, c, "START BATCH DDL")
	mustExec(t, c, ddlTable)
	mustExec(t, c, ddlIndex)
	rows, err := c.QueryContext(ctx, "RUN BATCH")
	if err != nil {
		t.Fatal(err)
	}
	cols, _ := rows.Columns()
	var got []string
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			t.Fatal(err)
		}
		got = append(got, v)
	}
	rows.Close()
	if !slices.Equal(cols, []string{"OPERATION_ID"}) || len(got) != 1 {
		t.Fatalf("RUN BATCH rows %v %q; want one OPERATION_ID", cols, got)
	}
	opNamed(t, got[0])
	if reqs := ddlRequests(s); len(reqs) != 2 || len(reqs[1].GetStatements()) != 2 {
		t.Fatalf("UpdateDatabaseDdl %v", reqs)
	}

	// ASYNC_WAIT: the operation never finishes; the wait ends at the
	// timeout (0s: at once) without an error.
	for _, timeout := range []string{"0s", "30ms"} {
		res, err = execRaw(t, s, []string{"ddl_execution_mode=ASYNC_WAIT", "ddl_async_wait_timeout=" + timeout}, ddlTable)
		if err != nil {
			t.Fatalf("ASYNC_WAIT %s: %v", timeout, err)
		}
		if id, err = operationID(res); err != nil {
			t.Fatal(err)
		}
		opNamed(t, id)
	}

	// ASYNC_WAIT: the caller's deadline, before the wait's, is the
	// caller's error.
	cw := dbConn(t, openFake(t, s, "ddl_execution_mode=ASYNC_WAIT"))
	err = raw(t, cw, func(dc *conn.Conn) error {
		dctx, cancel := context.WithTimeout(ctx, 30*time.Millisecond)
		defer cancel()
		_, err := dc.ExecContext(dctx, ddlTable, nil)
		return err
	})
	if status.Code(err) != codes.DeadlineExceeded && !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("ASYNC_WAIT past the caller's deadline: %v; want DeadlineExceeded", err)
	}

	// ASYNC_WAIT: an operation done in time reports its outcome.
	s.SetOperationPolls(2)
	res, err = execRaw(t, s, []string{"ddl_execution_mode=ASYNC_WAIT"}, ddlTable)
	if err != nil {
		t.Fatal(err)
	}
	if id, err = operationID(res); err != nil {
		t.Fatal(err)
	}
	opNamed(t, id)
	s.AddDDLError(status.Error(codes.FailedPrecondition, "Duplicate name in schema: Singers."))
	if _, err = execRaw(t, s, []string{"ddl_execution_mode=ASYNC_WAIT"}, ddlTable); status.Code(err) != codes.FailedPrecondition {
		t.Fatalf("ASYNC_WAIT, failing operation: %v; want its FailedPrecondition", err)
	}
	// ASYNC: an operation that the server reports failed at once fails.
	s.SetOperationPolls(0)
	s.AddDDLError(status.Error(codes.FailedPrecondition, "Duplicate name in schema: Singers."))
	if _, err = execRaw(t, s, []string{"ddl_execution_mode=ASYNC"}, ddlTable); status.Code(err) != codes.FailedPrecondition {
		t.Fatalf("ASYNC, operation failed at once: %v; want its FailedPrecondition", err)
	}

	// SYNC (the default) waits and has no OperationID.
	s.SetOperationPolls(2)
	s.ResetRequests()
	res, err = execRaw(t, s, nil, ddlTable)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(s.RequestsFor("GetOperation")); n != 2 {
		t.Fatalf("SYNC polled %d times, want 2", n)
	}
	if _, err := operationID(res); err == nil {
		t.Fatal("SYNC DDL has an OperationID")
	}
	// The mode can be changed with SET.
	s.SetOperationPolls(1 << 30)
	if res, err = execRaw(t, s, nil, "SET ddl_execution_mode = 'ASYNC'", ddlTable); err != nil {
		t.Fatal(err)
	}
	if _, err := operationID(res); err != nil {
		t.Fatal(err)
	}
}

// TestFakeDDLBatchError: a failing batch of several DDL statements returns
// a *BatchError with -1 for each statement applied before the failure and
// the operation's code; a single statement's failure is the plain error.
func TestFakeDDLBatchError(t *testing.T) {
	s := fakespanner.Start(t)
	s.AddDDLFailure(1, status.Error(codes.FailedPrecondition, "Duplicate name in schema: SingersByName."))
	_, err := execRaw(t, s, nil, "START BATCH DDL", ddlTable, ddlIndex, ddlAlter, "RUN BATCH")
	var be *conn.BatchError
	if !errors.As(err, &be) || !slices.Equal(be.BatchUpdateCounts, []int64{-1}) || status.Code(err) != codes.FailedPrecondition {
		t.Fatalf("failing DDL batch: %v; want a BatchError with counts [-1], FailedPrecondition", err)
	}
	s.AddDDLFailure(0, status.Error(codes.InvalidArgument, "Syntax error"))
	_, err = execRaw(t, s, nil, "START BATCH DDL", ddlTable, ddlIndex, "RUN BATCH")
	if !errors.As(err, &be) || len(be.BatchUpdateCounts) != 0 || status.Code(err) != codes.InvalidArgument {
		t.Fatalf("failing DDL batch: %v; want a BatchError with no counts, InvalidArgument", err)
	}
	s.AddDDLError(status.Error(codes.InvalidArgument, "Syntax error"))
	_, err = execRaw(t, s, nil, ddlTable)
	if errors.As(err, &be) || status.Code(err) != codes.InvalidArgument {
		t.Fatalf("failing single DDL: %v; want the plain InvalidArgument", err)
	}
}

const missingKind = "Please specify the sequence kind explicitly or set the database option 'default_sequence_kind'."

// TestFakeDefaultSequenceKind: with default_sequence_kind, DDL refused for
// want of a sequence kind (by the operation or by the call) sets the
// database's option and sends the statements not yet applied again;
// without it, the refusal is returned.
func TestFakeDefaultSequenceKind(t *testing.T) {
	const seq = "CREATE SEQUENCE my_seq"
	const alter = "ALTER DATABASE `d` SET OPTIONS (default_sequence_kind = 'bit_reversed_positive')"
	props := []string{"default_sequence_kind=bit_reversed_positive"}
	stmts := func(reqs []*databasepb.UpdateDatabaseDdlRequest) [][]string {
		var out [][]string
		for _, r := range reqs {
			out = append(out, r.GetStatements())
		}
		return out
	}
	s := fakespanner.Start(t)

	s.AddDDLError(status.Error(codes.InvalidArgument, missingKind))
	if _, err := execRaw(t, s, props, seq); err != nil {
		t.Fatal(err)
	}
	if got := stmts(ddlRequests(s)); !slices.EqualFunc(got, [][]string{{seq}, {alter}, {seq}}, slices.Equal) {
		t.Fatalf("requests %q; want the DDL, the ALTER DATABASE, the DDL again", got)
	}

	// The call itself refuses (ASYNC mode does not wait for operations).
	s.ResetRequests()
	s.AddMethodFault("UpdateDatabaseDdl", fakespanner.Fault{Err: status.Error(codes.InvalidArgument, missingKind)})
	if _, err := execRaw(t, s, append(props, "ddl_execution_mode=ASYNC"), seq); err != nil {
		t.Fatal(err)
	}
	if got := stmts(ddlRequests(s)); !slices.EqualFunc(got, [][]string{{seq}, {alter}, {seq}}, slices.Equal) {
		t.Fatalf("requests %q; want the DDL, the ALTER DATABASE, the DDL again", got)
	}

	// A batch: the statements after those applied are sent again; when
	// the retry fails, the BatchError counts the statements applied by
	// both operations.
	s.ResetRequests()
	s.AddDDLFailure(1, status.Error(codes.InvalidArgument, missingKind))
	s.AddDDLFailure(0, nil)
	s.AddDDLFailure(1, status.Error(codes.InvalidArgument, "Some other error on statement 3"))
	_, err := execRaw(t, s, props, "START BATCH DDL", "CREATE SEQUENCE s1", "CREATE SEQUENCE s2", ddlTable, "RUN BATCH")
	var be *conn.BatchError
	if !errors.As(err, &be) || !slices.Equal(be.BatchUpdateCounts, []int64{-1, -1}) || !strings.Contains(err.Error(), "statement 3") {
		t.Fatalf("batch: %v; want a BatchError with counts [-1 -1]", err)
	}
	if got := stmts(ddlRequests(s)); !slices.EqualFunc(got, [][]string{{"CREATE SEQUENCE s1", "CREATE SEQUENCE s2", ddlTable}, {alter}, {"CREATE SEQUENCE s2", ddlTable}}, slices.Equal) {
		t.Fatalf("requests %q", got)
	}

	// Without the property the refusal is the result.
	s.ResetRequests()
	s.AddDDLError(status.Error(codes.InvalidArgument, missingKind))
	if _, err := execRaw(t, s, nil, seq); status.Code(err) != codes.InvalidArgument || len(ddlRequests(s)) != 1 {
		t.Fatalf("without default_sequence_kind: %v, %d requests; want the InvalidArgument, 1 request", err, len(ddlRequests(s)))
	}
}

// TestFakeCreateDatabaseExtraStatements: a DDL batch that starts with
// CREATE DATABASE is one CreateDatabase with the others as its extra
// statements; DROP DATABASE in a batch with others is refused.
func TestFakeCreateDatabaseExtraStatements(t *testing.T) {
	s := fakespanner.Start(t)
	if _, err := execRaw(t, s, nil, "START BATCH DDL", "CREATE DATABASE `foo`", ddlTable, ddlIndex, "RUN BATCH"); err != nil {
		t.Fatal(err)
	}
	reqs := s.RequestsFor("CreateDatabase")
	if len(reqs) != 1 || len(ddlRequests(s)) != 0 {
		t.Fatalf("%d CreateDatabase, %d UpdateDatabaseDdl; want 1 and 0", len(reqs), len(ddlRequests(s)))
	}
	req := reqs[0].Message.(*databasepb.CreateDatabaseRequest)
	if req.GetParent() != "projects/p/instances/i" || req.GetCreateStatement() != "CREATE DATABASE `foo`" ||
		!slices.Equal(req.GetExtraStatements(), []string{ddlTable, ddlIndex}) {
		t.Fatalf("CreateDatabase %v", req)
	}
	_, err := execRaw(t, s, nil, "START BATCH DDL", "DROP DATABASE `foo`", ddlTable, "RUN BATCH")
	if status.Code(err) != codes.InvalidArgument {
		t.Fatalf("DROP DATABASE in a batch: %v; want InvalidArgument", err)
	}
}
