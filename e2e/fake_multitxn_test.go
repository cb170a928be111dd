package e2e

import (
	"context"
	"database/sql"
	"errors"
	"slices"
	"strings"
	"testing"

	"cloud.google.com/go/spanner/apiv1/spannerpb"

	"github.com/spannerfast/spannerfast/conn"
	"github.com/spannerfast/spannerfast/internal/fakespanner"
)

// The implicit transaction of a string of several statements, as
// go-sql-spanner has it: the requests each mix sends.

const (
	mtDML1     = "INSERT INTO T (a) VALUES (1)"
	mtDML2     = "UPDATE T SET a = 2 WHERE true"
	mtBadDML   = "DELETE FROM Missing WHERE true" // the fake knows no result: InvalidArgument
	mtQuery    = "SELECT 1"
	mtBadQuery = "SELECT 2"
)

// mtRequests is what a run sent.
type mtRequests struct {
	execs     int   // ExecuteSql and ExecuteStreamingSql
	batches   []int // statements per ExecuteBatchDml
	commits   int
	rollbacks int
	roBegins  int // inline read-only begins
	rwBegins  int // inline read-write begins
	ddl       []int
}

func mtSent(s *fakespanner.Server) mtRequests {
	var got mtRequests
	count := func(sel *spannerpb.TransactionSelector) {
		if b := sel.GetBegin(); b != nil {
			if b.GetReadOnly() != nil {
				got.roBegins++
			} else if b.GetReadWrite() != nil {
				got.rwBegins++
			}
		}
	}
	for _, r := range s.Requests() {
		switch m := r.Message.(type) {
		case *spannerpb.ExecuteSqlRequest:
			got.execs++
			count(m.GetTransaction())
		case *spannerpb.ExecuteBatchDmlRequest:
			got.batches = append(got.batches, len(m.GetStatements()))
			count(m.GetTransaction())
		case *spannerpb.CommitRequest:
			got.commits++
		case *spannerpb.RollbackRequest:
			got.rollbacks++
		}
	}
	for _, r := range ddlRequests(s) {
		got.ddl = append(got.ddl, len(r.GetStatements()))
	}
	return got
}

func (a mtRequests) equal(b mtRequests) bool {
	return a.execs == b.execs && slices.Equal(a.batches, b.batches) && a.commits == b.commits && a.rollbacks == b.rollbacks &&
		a.roBegins == b.roBegins && a.rwBegins == b.rwBegins && slices.Equal(a.ddl, b.ddl)
}

// TestFakeMultiImplicitTransaction: through QueryContext, each mix sends
// what go-sql-spanner sends: queries share one read-only transaction,
// consecutive DML is one ExecuteBatchDml, the implicit transaction commits
// once at the end (or before DDL, or at COMMIT) and rolls back on a
// failure; BEGIN leaves a transaction open. rows is the row count of each
// result set; err: the last statement run fails.
func TestFakeMultiImplicitTransaction(t *testing.T) {
	ddl := ddlTable + "; " + ddlIndex
	for _, tc := range []struct {
		query  string
		rows   []int
		err    bool
		want   mtRequests
		txOpen bool
	}{
		{query: mtQuery + "; " + mtQuery, rows: []int{1, 1}, want: mtRequests{execs: 2, roBegins: 1}},
		{query: mtDML1 + "; " + mtDML2, rows: []int{0, 0}, want: mtRequests{batches: []int{2}, commits: 1, rwBegins: 1}},
		{query: mtDML1 + "; " + mtQuery + "; " + mtDML2, rows: []int{0, 1, 0}, want: mtRequests{execs: 3, commits: 1, rwBegins: 1}},
		{query: mtDML1 + "; COMMIT; " + mtDML2, rows: []int{0, 0, 0}, want: mtRequests{execs: 2, commits: 2, rwBegins: 2}},
		{query: "BEGIN; " + mtDML1 + "; " + mtDML2, rows: []int{0, 0, 0}, want: mtRequests{batches: []int{2}, rwBegins: 1}, txOpen: true},
		{query: mtDML1 + "; " + mtDML2 + "; " + ddl, rows: []int{0, 0, 0, 0}, want: mtRequests{batches: []int{2}, commits: 1, rwBegins: 1, ddl: []int{2}}},
		{query: mtQuery + "; " + ddlTable + "; " + mtQuery, rows: []int{1, 0, 1}, want: mtRequests{execs: 2, ddl: []int{1}}},
		{query: mtQuery + "; " + mtQuery + "; COMMIT", rows: []int{1, 1, 0}, want: mtRequests{execs: 2, roBegins: 1}},
		{query: mtQuery + "; " + mtQuery + "; BEGIN; " + mtQuery, rows: []int{1, 1, 0, 1}, want: mtRequests{execs: 3, rwBegins: 1}, txOpen: true},
		{query: mtQuery + "; " + mtBadQuery + "; " + mtQuery, rows: []int{1}, err: true, want: mtRequests{execs: 2, roBegins: 1}},
		{query: mtDML1 + "; " + mtBadQuery, rows: []int{0}, err: true, want: mtRequests{execs: 2, rollbacks: 1, rwBegins: 1}},
		{query: mtDML1 + "; " + mtBadDML + "; " + mtDML2, rows: []int{0}, err: true, want: mtRequests{batches: []int{3}, rollbacks: 1, rwBegins: 1}},
		{query: "BEGIN; " + mtQuery + "; " + mtBadQuery + "; COMMIT", rows: []int{0, 1}, err: true, want: mtRequests{execs: 2, rwBegins: 1}, txOpen: true},
		// A client-side statement does not begin the implicit transaction:
		// the UPDATE runs as partitioned DML, as it would alone.
		{query: "SET autocommit_dml_mode = 'PARTITIONED_NON_ATOMIC'; " + mtDML2, rows: []int{0, 0}, want: mtRequests{execs: 1}},
	} {
		t.Run(tc.query, func(t *testing.T) {
			ctx := context.Background()
			s := fakespanner.Start(t)
			s.AddResult(mtQuery, fakespanner.Select1())
			s.AddResult(mtDML1, fakespanner.DML(1))
			s.AddResult(mtDML2, fakespanner.DML(2))
			c := dbConn(t, openFake(t, s))
			rows, err := c.QueryContext(ctx, tc.query)
			var got []int
			if err == nil {
				for {
					n := 0
					for rows.Next() {
						n++
					}
					got = append(got, n)
					if !rows.NextResultSet() {
						break
					}
				}
				err = rows.Err()
				rows.Close()
			}
			if tc.err != (err != nil) || !slices.Equal(got, tc.rows) {
				t.Fatalf("result sets %v, error %v; want %v, error %v", got, err, tc.rows, tc.err)
			}
			if sent := mtSent(s); !sent.equal(tc.want) {
				t.Fatalf("sent %+v\nwant %+v", sent, tc.want)
			}
			var open bool
			_ = raw(t, c, func(dc *conn.Conn) error { open = !dc.IsValid(); return nil }) // IsValid is false in a transaction
			if open != tc.txOpen {
				t.Fatalf("transaction open after the string: %v, want %v", open, tc.txOpen)
			}
			if open {
				mustExec(t, c, "ROLLBACK")
			}
		})
	}
}

// TestFakeMultiExecImplicitTransaction: ExecContext follows the same rules:
// consecutive DML is one batch and one commit, with a count per statement;
// a failing statement of the batch rolls the transaction back and its
// error says which statement failed, unwrapping to the *BatchError.
func TestFakeMultiExecImplicitTransaction(t *testing.T) {
	ctx := context.Background()
	s := fakespanner.Start(t)
	s.AddResult(mtDML1, fakespanner.DML(1))
	s.AddResult(mtDML2, fakespanner.DML(2))
	db := openFake(t, s)
	var res sql.Result
	if err := raw(t, dbConn(t, db), func(dc *conn.Conn) error {
		r, err := dc.ExecContext(ctx, mtDML1+"; "+mtDML2, nil)
		if err == nil {
			counts, _ := r.(conn.SpannerResult).BatchRowsAffected()
			if !slices.Equal(counts, []int64{1, 2}) {
				t.Errorf("counts %v, want [1 2]", counts)
			}
		}
		res = r
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if n, _ := res.RowsAffected(); n != 3 {
		t.Fatalf("RowsAffected %d, want 3", n)
	}
	if sent := mtSent(s); !sent.equal(mtRequests{batches: []int{2}, commits: 1, rwBegins: 1}) {
		t.Fatalf("sent %+v", sent)
	}
	s.ResetRequests()
	_, err := db.ExecContext(ctx, mtDML1+"; "+mtBadDML+"; "+mtDML2)
	var se *conn.StatementError
	var be *conn.BatchError
	if !errors.As(err, &se) || se.Index != 1 || !errors.As(err, &be) || !slices.Equal(be.BatchUpdateCounts, []int64{1}) ||
		!strings.Contains(err.Error(), mtBadDML) {
		t.Fatalf("failing batch: %v; want statement 2 failed, a BatchError with counts [1]", err)
	}
	if sent := mtSent(s); !sent.equal(mtRequests{batches: []int{3}, rollbacks: 1, rwBegins: 1}) {
		t.Fatalf("sent %+v", sent)
	}
}
