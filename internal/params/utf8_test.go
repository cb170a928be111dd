package params_test

import (
	"testing"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/spannerfast/spannerfast/internal/params"
)

// TestCheckMutationsUTF8NoAllocation: checking valid mutations, names
// included, allocates nothing (Apply checks every mutation before
// sending it).
func TestCheckMutationsUTF8NoAllocation(t *testing.T) {
	w := &spannerpb.Mutation_Write{Table: "Singers", Columns: []string{"SingerId", "Name", "Bio"},
		Values: []*structpb.ListValue{{Values: []*structpb.Value{
			structpb.NewStringValue("1"), structpb.NewStringValue("Alice"), structpb.NewNullValue(),
		}}}}
	ms := []*spannerpb.Mutation{
		{Operation: &spannerpb.Mutation_Insert{Insert: w}},
		{Operation: &spannerpb.Mutation_Delete_{Delete: &spannerpb.Mutation_Delete{Table: "Singers", KeySet: &spannerpb.KeySet{All: true}}}},
	}
	if err := params.CheckMutationsUTF8(ms); err != nil {
		t.Fatal(err)
	}
	if a := testing.AllocsPerRun(100, func() { _ = params.CheckMutationsUTF8(ms) }); a != 0 {
		t.Errorf("CheckMutationsUTF8 of valid mutations: %v allocations, want 0", a)
	}
}
