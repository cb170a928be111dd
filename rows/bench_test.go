package rows_test

import (
	"database/sql/driver"
	"fmt"
	"io"
	"testing"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/spannerfast/spannerfast/decode"
	"github.com/spannerfast/spannerfast/rows"
)

// BenchmarkRowsNext measures rows.Rows.Next over in-memory frames: the
// merger, the row decoder and, with prefetch, the reader goroutine and ring,
// without gRPC or database/sql. One op is one result of 10,000 rows.
func BenchmarkRowsNext(b *testing.B) {
	const n = 10_000
	narrow := md(fld("id", tc(spannerpb.TypeCode_INT64)), fld("name", tc(spannerpb.TypeCode_STRING)), fld("score", tc(spannerpb.TypeCode_FLOAT64)))
	var values []*structpb.Value
	for i := range n {
		values = append(values, str(fmt.Sprint(i*7919)), str("abcdefghijklmnop"), num(float64(i)/3))
	}
	for _, perMsg := range []int{n, 1000, 10} {
		msgs := split(narrow, values, 3*perMsg)
		size := 0
		for _, m := range msgs {
			size += len(m)
		}
		for _, raw := range []bool{false, true} {
			for _, prefetch := range []int{0, 4} {
				name := fmt.Sprintf("rows/msg=%d/raw=%v/prefetch=%d", perMsg, raw, prefetch)
				b.Run(name, func(b *testing.B) {
					b.ReportAllocs()
					b.SetBytes(int64(size))
					dest := make([]driver.Value, 3)
					for b.Loop() {
						r, err := rows.Open(newStream(b, msgs...), rows.Options{Decode: decode.Options{Raw: raw}, Prefetch: prefetch})
						if err != nil {
							b.Fatal(err)
						}
						got := 0
						for {
							if err := r.Next(dest); err == io.EOF {
								break
							} else if err != nil {
								b.Fatal(err)
							}
							got++
						}
						r.Close()
						if got != n {
							b.Fatalf("%d rows, want %d", got, n)
						}
					}
					b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/row")
				})
			}
		}
	}
}

// split encodes values as messages of at most per values (whole rows).
func split(m *spannerpb.ResultSetMetadata, values []*structpb.Value, per int) [][]byte {
	var out [][]byte
	for i := 0; i < len(values); i += per {
		p := &spannerpb.PartialResultSet{Values: values[i:min(i+per, len(values))]}
		if i == 0 {
			p.Metadata = m
		}
		out = append(out, prs(p))
	}
	return out
}
