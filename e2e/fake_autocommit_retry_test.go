package e2e

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc/codes"

	"github.com/spannerfast/spannerfast/internal/fakespanner"
)

// TestFakeAutocommitThenReturnRetried: DML with THEN RETURN (PostgreSQL:
// RETURNING) through QueryContext outside a transaction returns nothing to
// the application before its commit, so an aborted commit runs the
// statement and the commit again in a new transaction, with nothing
// compared: the second run's rows (a key from a sequence or an IDENTITY
// column, different each run) are what the application gets, without
// error. The first commit was refused, so exactly one write is committed.
func TestFakeAutocommitThenReturnRetried(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		dialect, sql string
	}{
		{"GOOGLE_STANDARD_SQL", "INSERT INTO singers (name) VALUES ('x') THEN RETURN id"},
		{"POSTGRESQL", "INSERT INTO singers (name) VALUES ('x') RETURNING id"},
	} {
		t.Run(c.dialect, func(t *testing.T) {
			s := fakespanner.Start(t)
			// Each run of the INSERT takes the next key.
			var runs atomic.Int64
			s.SetFallback(func(req *spannerpb.ExecuteSqlRequest) *fakespanner.Result {
				if req.GetSql() != c.sql {
					return nil
				}
				rs := int64Rows(100 + runs.Add(1))
				rs.Stats = &spannerpb.ResultSetStats{RowCount: &spannerpb.ResultSetStats_RowCountExact{RowCountExact: 1}}
				return &fakespanner.Result{ResultSet: rs}
			})
			s.AddMethodFault("Commit", fakespanner.Fault{Err: fakespanner.WithRetryDelay(codes.Aborted, "aborted", time.Millisecond)})
			db := openFake(t, s, "database_dialect="+c.dialect)

			rows, err := db.QueryContext(ctx, c.sql)
			if err != nil {
				t.Fatalf("QueryContext (commit aborted once): %v", err)
			}
			var ids []int64
			for rows.Next() {
				var id int64
				if err := rows.Scan(&id); err != nil {
					t.Fatal(err)
				}
				ids = append(ids, id)
			}
			if err := rows.Err(); err != nil {
				t.Fatal(err)
			}
			rows.Close()
			if fmt.Sprint(ids) != "[102]" {
				t.Fatalf("ids %v, want [102]: the second run's", ids)
			}
			queries, commits := s.RequestsFor("ExecuteStreamingSql"), s.RequestsFor("Commit")
			if len(queries) != 2 || len(commits) != 2 {
				t.Fatalf("%d runs of the INSERT and %d Commit requests, want 2 and 2 (the first commit aborted)", len(queries), len(commits))
			}
			// The second run is a transaction of its own: it begins anew
			// and its commit names the transaction it began.
			first, second := queries[0].ExecuteSQL(), queries[1].ExecuteSQL()
			if first.GetTransaction().GetBegin() == nil || second.GetTransaction().GetBegin() == nil || !second.GetLastStatement() {
				t.Fatalf("selectors %v then %v (last_statement %v), want each run to begin a transaction inline", first.GetTransaction(), second.GetTransaction(), second.GetLastStatement())
			}
			c0 := commits[0].Message.(*spannerpb.CommitRequest).GetTransactionId()
			c1 := commits[1].Message.(*spannerpb.CommitRequest).GetTransactionId()
			if string(c0) == string(c1) {
				t.Fatalf("both commits name transaction %q: the retry must commit a new one", c1)
			}
		})
	}
}
