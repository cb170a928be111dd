package e2e

import (
	"context"
	"testing"

	"cloud.google.com/go/spanner/apiv1/spannerpb"

	"github.com/spannerfast/spannerfast/internal/fakespanner"
)

// TestFakePGPartitionedDMLParameters: on a PostgreSQL database partitioned
// DML (SET spanner.autocommit_dml_mode) sends the statement as written
// with its $n parameters bound as p1..pn (a Go string untyped, as on any
// PostgreSQL statement), and ? placeholders rewritten to $n, in a
// partitioned-DML transaction. The emulator cannot show this: its
// partitioned DML reads a PostgreSQL database's statement as GoogleSQL
// (TestEmulatorPGPartitionedDML).
func TestFakePGPartitionedDMLParameters(t *testing.T) {
	ctx := context.Background()
	const want = "UPDATE t SET s = $1 WHERE id > $2"
	s := fakespanner.Start(t)
	s.AddResult(want, fakespanner.DML(4))
	c := dbConn(t, openFake(t, s, "database_dialect=POSTGRESQL"))
	mustExec(t, c, "SET spanner.autocommit_dml_mode = 'PARTITIONED_NON_ATOMIC'")
	for _, q := range []string{want, "UPDATE t SET s = ? WHERE id > ?"} {
		s.ResetRequests()
		res, err := c.ExecContext(ctx, q, "x", 5)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if n, _ := res.RowsAffected(); n != 4 {
			t.Fatalf("%s: RowsAffected %d, want 4", q, n)
		}
		begins := s.RequestsFor("BeginTransaction")
		if len(begins) != 1 || begins[0].Message.(*spannerpb.BeginTransactionRequest).GetOptions().GetPartitionedDml() == nil {
			t.Fatalf("%s: BeginTransaction requests %v, want one partitioned_dml", q, begins)
		}
		streams := s.RequestsFor("ExecuteStreamingSql")
		if len(streams) != 1 {
			t.Fatalf("%s: %d ExecuteStreamingSql requests, want 1", q, len(streams))
		}
		req := streams[0].ExecuteSQL()
		p := req.GetParams().GetFields()
		if req.GetSql() != want || p["p1"].GetStringValue() != "x" || p["p2"].GetStringValue() != "5" ||
			req.GetParamTypes()["p2"].GetCode() != spannerpb.TypeCode_INT64 {
			t.Fatalf("%s: sent %q with %v (types %v)", q, req.GetSql(), p, req.GetParamTypes())
		}
	}
}
