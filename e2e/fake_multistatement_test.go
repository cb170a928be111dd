package e2e

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/spannerfast/spannerfast/conn"
	"github.com/spannerfast/spannerfast/internal/fakespanner"
)

// Several statements in one string: results through NextResultSet, DDL
// runs sent as one UpdateDatabaseDdl, the first failure stopping the rest.

func executedSQL(s *fakespanner.Server) []string {
	var out []string
	for _, r := range s.Requests() {
		if req, ok := r.Message.(*spannerpb.ExecuteSqlRequest); ok {
			out = append(out, req.GetSql())
		}
	}
	return out
}

// readSets reads every result set of rows as strings, one slice per set.
func readSets(t *testing.T, rows interface {
	Next() bool
	Scan(...any) error
	NextResultSet() bool
	Columns() ([]string, error)
}) [][]string {
	t.Helper()
	var sets [][]string
	for {
		var set []string
		cols, _ := rows.Columns()
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			for _, v := range vals {
				set = append(set, fmt.Sprint(v))
			}
		}
		sets = append(sets, set)
		if !rows.NextResultSet() {
			return sets
		}
	}
}

// TestFakeMultiQuery: a query, DML, two DDL statements and a query run in
// order; each has its result set; the two DDL statements go as one
// UpdateDatabaseDdl; `?` binds from the first argument in each statement.
func TestFakeMultiQuery(t *testing.T) {
	ctx := context.Background()
	s := fakespanner.Start(t)
	s.AddResult("SELECT @p1", &fakespanner.Result{ResultSet: stringRows("a")})
	s.AddResult("UPDATE T SET a = @p1 WHERE true", fakespanner.DML(2))
	s.AddResult("SELECT 'x;y'", &fakespanner.Result{ResultSet: stringRows("x;y")})
	db := openFake(t, s)
	rows, err := db.QueryContext(ctx, "SELECT ?;\n UPDATE T SET a = ? WHERE true; "+ddlTable+";"+ddlIndex+"; SELECT 'x;y'; -- done\n;", "v")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	sets := readSets(t, rows)
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	want := [][]string{{"a"}, nil, nil, nil, {"x;y"}}
	if len(sets) != len(want) || !slices.Equal(sets[0], want[0]) || sets[1] != nil || !slices.Equal(sets[4], want[4]) {
		t.Fatalf("result sets %q, want %q", sets, want)
	}
	if got := executedSQL(s); !slices.Equal(got, []string{"SELECT @p1", "UPDATE T SET a = @p1 WHERE true", "SELECT 'x;y'"}) {
		t.Fatalf("sent %q", got)
	}
	reqs := ddlRequests(s)
	if len(reqs) != 1 || !slices.Equal(reqs[0].GetStatements(), []string{ddlTable, ddlIndex}) {
		t.Fatalf("UpdateDatabaseDdl %v; want one with both statements", reqs)
	}
	for _, r := range s.RequestsFor("ExecuteSql") {
		if p := r.Message.(*spannerpb.ExecuteSqlRequest).GetParams().GetFields()["p1"]; p.GetStringValue() != "v" {
			t.Fatalf("%s: p1 = %v, want the first argument", r.Message.(*spannerpb.ExecuteSqlRequest).GetSql(), p)
		}
	}
}

// TestFakeMultiQueryError: a failing first statement fails QueryContext;
// a later one ends the result sets, reported by NextResultSet through
// rows.Err as a *StatementError with the statement's code; nothing after
// it runs.
func TestFakeMultiQueryError(t *testing.T) {
	ctx := context.Background()
	s := fakespanner.Start(t)
	s.AddResult("SELECT 1", fakespanner.Select1())
	db := openFake(t, s)
	_, err := db.QueryContext(ctx, "SELECT 2; SELECT 1")
	var se *conn.StatementError
	if !errors.As(err, &se) || se.Index != 0 || se.SQL != "SELECT 2" || status.Code(err) != codes.InvalidArgument {
		t.Fatalf("first statement failing: %v; want a StatementError for statement 0, InvalidArgument", err)
	}
	s.ResetRequests()
	rows, err := db.QueryContext(ctx, "SELECT 1; SELECT 2; SELECT 1")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	if !rows.Next() {
		t.Fatal("no row in the first result set")
	}
	if rows.Next() || rows.NextResultSet() {
		t.Fatal("a second result set after a failing statement")
	}
	err = rows.Err()
	if !errors.As(err, &se) || se.Index != 1 || se.Count != 3 || status.Code(err) != codes.InvalidArgument ||
		!strings.Contains(err.Error(), "statement 2 of 3") {
		t.Fatalf("rows.Err() = %v; want statement 2 of 3 failed, InvalidArgument", err)
	}
	if got := executedSQL(s); !slices.Equal(got, []string{"SELECT 1", "SELECT 2"}) {
		t.Fatalf("sent %q; nothing may run after the failure", got)
	}
}

// TestFakeMultiExec: ExecContext runs all statements, sums RowsAffected,
// keeps a count per statement, and stops at the first failure.
func TestFakeMultiExec(t *testing.T) {
	ctx := context.Background()
	s := fakespanner.Start(t)
	s.AddResult("UPDATE T SET a = @x WHERE true", fakespanner.DML(2))
	s.AddResult("DELETE FROM T WHERE a = @x", fakespanner.DML(3))
	db := openFake(t, s)
	c := dbConn(t, db)
	var res driver.Result
	if err := raw(t, c, func(dc *conn.Conn) (err error) {
		res, err = dc.ExecContext(ctx, "UPDATE T SET a = @x WHERE true; SET statement_tag = 'ignored'; "+
			ddlTable+"; DELETE FROM T WHERE a = @x;", []driver.NamedValue{{Name: "x", Ordinal: 1, Value: int64(1)}})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if n, _ := res.RowsAffected(); n != 5 {
		t.Fatalf("RowsAffected %d, want 2+3", n)
	}
	counts, err := res.(conn.SpannerResult).BatchRowsAffected()
	if err != nil || !slices.Equal(counts, []int64{2, 0, 0, 3}) {
		t.Fatalf("per statement %v %v", counts, err)
	}
	if len(ddlRequests(s)) != 1 {
		t.Fatal("the DDL statement was not sent")
	}
	s.AddDDLError(status.Error(codes.FailedPrecondition, "Duplicate name in schema: Singers."))
	s.ResetRequests()
	_, err = c.ExecContext(ctx, "UPDATE T SET a = @x WHERE true;"+ddlTable+";"+ddlIndex+"; DELETE FROM T WHERE a = @x", sql.Named("x", int64(1)))
	var se *conn.StatementError
	var be *conn.BatchError
	if !errors.As(err, &se) || se.Index != 1 || se.Last != 2 || status.Code(err) != codes.FailedPrecondition ||
		!strings.Contains(err.Error(), "statements 2-3 of 4") || !errors.As(err, &be) || len(be.BatchUpdateCounts) != 0 {
		t.Fatalf("failing DDL group: %v; want statements 2-3 failed, a BatchError with no statement applied", err)
	}
	if got := executedSQL(s); !slices.Equal(got, []string{"UPDATE T SET a = @x WHERE true"}) {
		t.Fatalf("sent %q; the DELETE after the failure must not run", got)
	}
}

// TestFakeMultiInTransaction: BEGIN and COMMIT among the statements act
// on those after them (the two updates go as one batch in the
// transaction); DDL in the transaction is not grouped and is refused.
func TestFakeMultiInTransaction(t *testing.T) {
	ctx := context.Background()
	s := fakespanner.Start(t)
	s.AddResult("UPDATE T SET a = 1 WHERE true", fakespanner.DML(1))
	db := openFake(t, s)
	c := dbConn(t, db)
	if _, err := c.ExecContext(ctx, "BEGIN; UPDATE T SET a = 1 WHERE true; UPDATE T SET a = 1 WHERE true; COMMIT"); err != nil {
		t.Fatal(err)
	}
	if n := len(s.RequestsFor("Commit")); n != 1 {
		t.Fatalf("%d commits, want 1 (both updates in one transaction)", n)
	}
	reqs := s.RequestsFor("ExecuteBatchDml")
	if len(reqs) != 1 || len(reqs[0].Message.(*spannerpb.ExecuteBatchDmlRequest).GetStatements()) != 2 ||
		reqs[0].Message.(*spannerpb.ExecuteBatchDmlRequest).GetTransaction().GetBegin() == nil || len(s.RequestsFor("ExecuteSql")) != 0 {
		t.Fatalf("the two updates did not go as one batch beginning the transaction")
	}
	_, err := c.ExecContext(ctx, "BEGIN; "+ddlTable+"; "+ddlIndex)
	if status.Code(err) != codes.FailedPrecondition || len(ddlRequests(s)) != 0 {
		t.Fatalf("DDL after BEGIN: %v; want FailedPrecondition and nothing sent", err)
	}
	mustExec(t, c, "ROLLBACK")
}

// TestFakeMultiPrepared: a prepared string of several statements takes
// arguments (database/sql does not count them against one statement's
// parameters) and binds them as QueryContext does.
func TestFakeMultiPrepared(t *testing.T) {
	ctx := context.Background()
	s := fakespanner.Start(t)
	s.AddResult("UPDATE T SET a = @p1 WHERE true", fakespanner.DML(2))
	s.AddResult("DELETE FROM T WHERE a = @p1", fakespanner.DML(1))
	db := openFake(t, s)
	st, err := db.PrepareContext(ctx, "UPDATE T SET a = ? WHERE true; DELETE FROM T WHERE a = ?")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	res, err := st.ExecContext(ctx, "v")
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := res.RowsAffected(); n != 3 {
		t.Fatalf("RowsAffected %d, want 3", n)
	}
	for _, r := range s.RequestsFor("ExecuteSql") {
		if p := r.ExecuteSQL().GetParams().GetFields()["p1"]; p.GetStringValue() != "v" {
			t.Fatalf("%s: p1 = %v", r.ExecuteSQL().GetSql(), p)
		}
	}
}
