package conn

import (
	"testing"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/structpb"
)

// TestDMLResultReturning: the Result of DML with THEN RETURN (RETURNING)
// through ExecContext: an INSERT returning one INT64 row gives
// LastInsertId and the row count of its statistics, or, without one, the
// number of rows returned (one per row written); anything else returning
// columns is refused.
func TestDMLResultReturning(t *testing.T) {
	ids := func(vals ...string) *spannerpb.ResultSet {
		rs := &spannerpb.ResultSet{Metadata: &spannerpb.ResultSetMetadata{RowType: &spannerpb.StructType{Fields: []*spannerpb.StructType_Field{
			{Name: "id", Type: &spannerpb.Type{Code: spannerpb.TypeCode_INT64}},
		}}}}
		for _, v := range vals {
			rs.Rows = append(rs.Rows, &structpb.ListValue{Values: []*structpb.Value{structpb.NewStringValue(v)}})
		}
		return rs
	}
	withCount := ids("42")
	withCount.Stats = &spannerpb.ResultSetStats{RowCount: &spannerpb.ResultSetStats_RowCountExact{RowCountExact: 1}}
	for _, tc := range []struct {
		name    string
		counts  []int64
		rs      *spannerpb.ResultSet
		keyword string
		rows    int64
		id      int64 // 0: no LastInsertId
	}{
		{"row count given", []int64{1}, withCount, "INSERT", 1, 42},
		{"no row count", []int64{0}, ids("42"), "INSERT", 1, 42},
		{"no row, no row count", []int64{0}, ids(), "INSERT", 0, 0},
		{"no columns", []int64{3}, &spannerpb.ResultSet{}, "UPDATE", 3, 0},
	} {
		res, err := dmlResult(tc.counts, tc.rs, tc.keyword)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		n, _ := res.RowsAffected()
		id, err := res.LastInsertId()
		if n != tc.rows || id != tc.id || (tc.id == 0) != (status.Code(err) == codes.FailedPrecondition) {
			t.Errorf("%s: RowsAffected %d, LastInsertId %d (%v); want %d, %d", tc.name, n, id, err, tc.rows, tc.id)
		}
	}
	for _, tc := range []struct {
		name    string
		rs      *spannerpb.ResultSet
		keyword string
	}{
		{"an UPDATE", ids("1"), "UPDATE"},
		{"two rows", ids("1", "2"), "INSERT"},
	} {
		if _, err := dmlResult([]int64{0}, tc.rs, tc.keyword); status.Code(err) != codes.FailedPrecondition {
			t.Errorf("%s: %v, want FailedPrecondition", tc.name, err)
		}
	}
}
