package fakespanner

import (
	"context"
	"math/rand/v2"
	"testing"

	"cloud.google.com/go/spanner"
	"github.com/spannerfast/spannerfast/internal/randrs"
	"google.golang.org/api/iterator"
	"google.golang.org/protobuf/proto"
)

// TestOfficialClient reads scripted streams with the official Go client:
// chunked values, resume tokens and a retried RST_STREAM must give back
// exactly the scripted rows.
func TestOfficialClient(t *testing.T) {
	s := Start(t)
	t.Setenv("SPANNER_EMULATOR_HOST", s.Addr())
	ctx := context.Background()
	client, err := spanner.NewClientWithConfig(ctx, db, spanner.ClientConfig{DisableNativeMetrics: true})
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()

	for seed := int64(0); seed < 20; seed++ {
		rs := randrs.ResultSet(rand.New(rand.NewPCG(uint64(seed), 8)), randrs.Options{
			MinRows: 5, MaxRows: 20, LongStringLen: 500,
		})
		opts := SplitOptions{Random: true, Seed: seed}
		n := len(Split(rs, opts))
		s.AddResult("q", &Result{ResultSet: rs, Split: opts, Faults: []Fault{{AfterMessage: n / 2, Err: ErrRSTStream}}})

		it := client.Single().Query(ctx, spanner.Statement{SQL: "q"})
		var got []*spanner.GenericColumnValue
		rows := 0
		for {
			row, err := it.Next()
			if err == iterator.Done {
				break
			}
			if err != nil {
				t.Fatalf("seed %d: %v", seed, err)
			}
			for i := 0; i < row.Size(); i++ {
				var v spanner.GenericColumnValue
				if err := row.Column(i, &v); err != nil {
					t.Fatal(err)
				}
				got = append(got, &v)
			}
			rows++
		}
		it.Stop()
		if rows != len(rs.Rows) {
			t.Fatalf("seed %d: %d rows, want %d", seed, rows, len(rs.Rows))
		}
		k := 0
		for _, row := range rs.Rows {
			for _, want := range row.Values {
				if !proto.Equal(got[k].Value, want) {
					t.Fatalf("seed %d value %d: %v, want %v", seed, k, got[k].Value, want)
				}
				k++
			}
		}
	}
	reqs := s.RequestsFor("ExecuteStreamingSql")
	resumed := 0
	for _, r := range reqs {
		if len(r.ExecuteSQL().ResumeToken) > 0 {
			resumed++
		}
	}
	if len(reqs) != 40 || resumed == 0 {
		t.Fatalf("%d streaming requests, %d resumed; want 40 with resumes", len(reqs), resumed)
	}
}
