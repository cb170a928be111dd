package e2e

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/protobuf/types/known/structpb"

	sfdriver "github.com/spannerfast/spannerfast/driver"

	"github.com/spannerfast/spannerfast/internal/fakespanner"
)

// batchDMLRequests returns, per ExecuteBatchDml sent, its statements and
// the value of each one's parameter p1 ("" for none).
func batchDMLRequests(s *fakespanner.Server) (sqls [][]string, p1 [][]string) {
	for _, r := range s.RequestsFor("ExecuteBatchDml") {
		var ss, ps []string
		for _, st := range r.Message.(*spannerpb.ExecuteBatchDmlRequest).GetStatements() {
			ss = append(ss, st.GetSql())
			ps = append(ps, st.GetParams().GetFields()["p1"].GetStringValue())
		}
		sqls, p1 = append(sqls, ss), append(p1, ps)
	}
	return sqls, p1
}

// TestFakePGMultiStatementBatches: on a PostgreSQL database consecutive
// DML of a string of several statements goes as one ExecuteBatchDml,
// each statement with PostgreSQL's parameter names (? sent as $1, bound
// to p1 in each statement that has it); DML with RETURNING between
// them ends the batch and runs as a query of its own; a semicolon in a
// dollar-quoted string does not split.
func TestFakePGMultiStatementBatches(t *testing.T) {
	ctx := context.Background()
	s := fakespanner.Start(t)
	const (
		ins = "INSERT INTO t (a) VALUES ($1)"
		upd = "UPDATE t SET a = $1 WHERE a = 0"
		del = "DELETE FROM t WHERE s = $$x;y$$"
		ret = "UPDATE t SET s = 'r' RETURNING s"
	)
	for sql, n := range map[string]int64{ins: 1, upd: 2, del: 3} {
		s.AddResult(sql, fakespanner.DML(n))
	}
	rs := stringRows("r")
	rs.Stats = &spannerpb.ResultSetStats{RowCount: &spannerpb.ResultSetStats_RowCountExact{RowCountExact: 1}}
	s.AddResult(ret, &fakespanner.Result{ResultSet: rs})
	db := openFake(t, s, "database_dialect=POSTGRESQL")

	res, err := db.ExecContext(ctx, "INSERT INTO t (a) VALUES (?); "+upd+"; "+del, int64(7))
	if n := rowsAffected(t, res, err); n != 6 {
		t.Fatalf("RowsAffected %d, want 1+2+3", n)
	}
	sqls, p1 := batchDMLRequests(s)
	if !slices.EqualFunc(sqls, [][]string{{ins, upd, del}}, slices.Equal) || !slices.Equal(p1[0], []string{"7", "7", ""}) {
		t.Fatalf("batches %q with p1 %q, want one of the three statements, p1 = 7 in the two with $1", sqls, p1)
	}

	s.ResetRequests()
	rows, err := db.QueryContext(ctx, ins+"; "+upd+"; "+ret+"; "+del, int64(8))
	if err != nil {
		t.Fatal(err)
	}
	if got := readSets(t, rows); !slices.EqualFunc(got, [][]string{nil, nil, {"r"}, nil}, slices.Equal) {
		t.Fatalf("result sets %q", got)
	}
	rows.Close()
	sqls, _ = batchDMLRequests(s)
	if !slices.EqualFunc(sqls, [][]string{{ins, upd}}, slices.Equal) {
		t.Fatalf("batches %q, want the INSERT and UPDATE before the RETURNING", sqls)
	}
	var single []string
	for _, r := range s.Requests() {
		if req, ok := r.Message.(*spannerpb.ExecuteSqlRequest); ok {
			single = append(single, req.GetSql())
		}
	}
	if !slices.Equal(single, []string{ret, del}) {
		t.Fatalf("statements sent alone %q, want the RETURNING and the DELETE", single)
	}
}

// TestFakeMultiRawDecodeKept: a query of a string of several statements
// in a read-write transaction is read to its end before the next
// statement, and its rows kept: in raw mode (per query or by the
// connection's raw_decode, poisoned here) they must still be each row's
// own values, decoded in safe mode. Kept raw, every row held the last
// row's number and the strings read the poison.
func TestFakeMultiRawDecodeKept(t *testing.T) {
	ctx := context.Background()
	const query = "SELECT n, s FROM t"
	rs := &spannerpb.ResultSet{Metadata: &spannerpb.ResultSetMetadata{RowType: &spannerpb.StructType{Fields: []*spannerpb.StructType_Field{
		{Name: "n", Type: typ(spannerpb.TypeCode_INT64)}, {Name: "s", Type: typ(spannerpb.TypeCode_STRING)},
	}}}}
	for _, v := range []string{"1000", "2000", "3000"} {
		rs.Rows = append(rs.Rows, &structpb.ListValue{Values: []*structpb.Value{str(v), str("s" + v)}})
	}
	for _, props := range [][]string{{"poison_raw_buffers=true"}, {"raw_decode=true", "poison_raw_buffers=true"}} {
		s, _ := startTxnFake(t)
		s.AddResult(query, &fakespanner.Result{ResultSet: rs, Split: fakespanner.SplitOptions{MaxValues: 1}})
		db := openFake(t, s, props...)
		rows, err := db.QueryContext(ctx, txnUpdate+"; "+query, sfdriver.RawDecode(true))
		if err != nil {
			t.Fatal(err)
		}
		if !rows.NextResultSet() {
			t.Fatalf("%v: one result set: %v", props, rows.Err())
		}
		var got []string
		for rows.Next() {
			var n, s any
			if err := rows.Scan(&n, &s); err != nil {
				t.Fatal(err)
			}
			got = append(got, fmt.Sprintf("%v:%v", n, s))
		}
		if err := rows.Close(); err != nil {
			t.Fatal(err)
		}
		if want := []string{"1000:s1000", "2000:s2000", "3000:s3000"}; !slices.Equal(got, want) {
			t.Fatalf("%v: rows %q, want %q", props, got, want)
		}
	}
}

// TestFakeReturningClauseOfTheDialect: whether DML returns rows is read
// in the database's dialect, as go-sql-spanner reads it: RETURNING on
// PostgreSQL, THEN RETURN on GoogleSQL, where a column may be named
// returning. Seen through autocommit_dml_mode=PARTITIONED_NON_ATOMIC,
// which runs only DML that returns no rows as partitioned DML.
func TestFakeReturningClauseOfTheDialect(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		dialect, sql string
		returns      bool
	}{
		{"GOOGLE_STANDARD_SQL", "UPDATE t SET returning = 1 WHERE true", false},
		{"GOOGLE_STANDARD_SQL", "UPDATE t SET a = (CASE WHEN b THEN return END) WHERE true", false},
		{"GOOGLE_STANDARD_SQL", "UPDATE t SET a = 1 WHERE true THEN RETURN a", true},
		{"POSTGRESQL", "UPDATE t SET a = 1 RETURNING a", true},
		{"POSTGRESQL", "UPDATE t SET a = 1", false},
	} {
		s := fakespanner.Start(t)
		rs := stringRows()
		if tc.returns {
			rs = stringRows("x")
		}
		rs.Stats = &spannerpb.ResultSetStats{RowCount: &spannerpb.ResultSetStats_RowCountExact{RowCountExact: 1}}
		s.AddResult(tc.sql, &fakespanner.Result{ResultSet: rs})
		db := openFake(t, s, "database_dialect="+tc.dialect, "autocommit_dml_mode=PARTITIONED_NON_ATOMIC")
		rows, err := db.QueryContext(ctx, tc.sql)
		if err != nil {
			t.Fatalf("%s: %s: %v", tc.dialect, tc.sql, err)
		}
		n := 0
		for rows.Next() {
			n++
		}
		rows.Close()
		partitioned := false
		for _, b := range s.RequestsFor("BeginTransaction") {
			partitioned = partitioned || b.Message.(*spannerpb.BeginTransactionRequest).GetOptions().GetPartitionedDml() != nil
		}
		if partitioned == tc.returns || (n == 1) != tc.returns {
			t.Errorf("%s: %s: partitioned DML %v, %d rows; want it to return rows: %v", tc.dialect, tc.sql, partitioned, n, tc.returns)
		}
	}
}
