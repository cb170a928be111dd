package mutationpb

import (
	"fmt"
	"testing"
	"time"

	"cloud.google.com/go/spanner"
)

var benchCols = []string{"SingerId", "Name", "Score", "Active", "Updated"}

func benchMutations(n int) []*spanner.Mutation {
	ms := make([]*spanner.Mutation, n)
	ts := time.Date(2024, 1, 2, 3, 4, 5, 6, time.UTC)
	for i := range ms {
		ms[i] = spanner.Insert("Singers", benchCols, []any{int64(i), "name", 1.5, true, ts})
	}
	return ms
}

// BenchmarkConvert measures Convert for one 5-column insert and for 1,000
// (14 allocations per insert, 36 through NewRow; the client's own
// conversion, called through linkname by an earlier version of this
// package, made 28).
func BenchmarkConvert(b *testing.B) {
	for _, n := range []int{1, 1000} {
		ms := benchMutations(n)
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := Convert(ms); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkNewRow encodes the same five values through the public
// spanner.NewRow, the encoder a reflection-based rewrite would have used,
// for comparison (it also builds a type per column, which mutations do not).
func BenchmarkNewRow(b *testing.B) {
	vals := []any{int64(1), "name", 1.5, true, time.Date(2024, 1, 2, 3, 4, 5, 6, time.UTC)}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := spanner.NewRow(benchCols, vals); err != nil {
			b.Fatal(err)
		}
	}
}
