package scratch

import (
	"context"
	"database/sql"
	"fmt"
	"testing"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/protobuf/types/known/structpb"

	_ "github.com/spannerfast/spannerfast/driver"
	"github.com/spannerfast/spannerfast/internal/fakespanner"
)

func narrow(n int) *spannerpb.ResultSet {
	rs := &spannerpb.ResultSet{Metadata: &spannerpb.ResultSetMetadata{RowType: &spannerpb.StructType{Fields: []*spannerpb.StructType_Field{
		{Name: "a", Type: &spannerpb.Type{Code: spannerpb.TypeCode_INT64}},
		{Name: "b", Type: &spannerpb.Type{Code: spannerpb.TypeCode_STRING}},
		{Name: "c", Type: &spannerpb.Type{Code: spannerpb.TypeCode_FLOAT64}},
	}}}}
	for i := range n {
		rs.Rows = append(rs.Rows, &structpb.ListValue{Values: []*structpb.Value{
			structpb.NewStringValue(fmt.Sprint(i * 1000)), structpb.NewStringValue("abcdefghijklmnop"), structpb.NewNumberValue(float64(i) * 1.5)}})
	}
	return rs
}

func BenchmarkNarrow(b *testing.B) {
	srv := fakespanner.Start(b)
	srv.SetRecording(false)
	const n = 200000
	srv.AddResult("SELECT narrow", &fakespanner.Result{ResultSet: narrow(n), Split: fakespanner.SplitOptions{MaxBytes: 1 << 20}})
	for _, raw := range []bool{false, true} {
		b.Run(fmt.Sprint("raw=", raw), func(b *testing.B) {
			db, _ := sql.Open("spannerfast", fmt.Sprintf("%s/projects/p/instances/i/databases/d;usePlainText=true;rawDecode=%v", srv.Addr(), raw))
			defer db.Close()
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				rows, err := db.QueryContext(ctx, "SELECT narrow")
				if err != nil {
					b.Fatal(err)
				}
				var a int64
				var s string
				var rb sql.RawBytes
				var c float64
				for rows.Next() {
					if raw {
						rows.Scan(&a, &rb, &c)
					} else {
						rows.Scan(&a, &s, &c)
					}
				}
				if err := rows.Err(); err != nil {
					b.Fatal(err)
				}
				rows.Close()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/row")
		})
	}
}
