package mutationpb

import (
	"time"

	"cloud.google.com/go/spanner"
	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// selfCheck converts one mutation of every kind, made by the client's
// public constructors, and compares the result with the wire form written
// out here. Field names and types were checked already; this catches a
// release that keeps them but changes what they mean. It runs once per
// process, before the first conversion.
func (l *layout) selfCheck() error {
	ts := time.Date(2024, 2, 29, 1, 2, 3, 4, time.UTC)
	s := structpb.NewStringValue
	list := func(vs ...*structpb.Value) *structpb.ListValue { return &structpb.ListValue{Values: vs} }
	write := func(table string) *spannerpb.Mutation_Write {
		return &spannerpb.Mutation_Write{Table: table, Columns: []string{"a", "b"}, Values: []*structpb.ListValue{list(s("1"), s("x"))}}
	}
	cols, vals := []string{"a", "b"}, []any{int64(1), "x"}
	for _, c := range []struct {
		m    *spanner.Mutation
		want *spannerpb.Mutation
	}{
		{spanner.Insert("I", cols, vals), &spannerpb.Mutation{Operation: &spannerpb.Mutation_Insert{Insert: write("I")}}},
		{spanner.Update("U", cols, vals), &spannerpb.Mutation{Operation: &spannerpb.Mutation_Update{Update: write("U")}}},
		{spanner.InsertOrUpdate("O", cols, vals), &spannerpb.Mutation{Operation: &spannerpb.Mutation_InsertOrUpdate{InsertOrUpdate: write("O")}}},
		{spanner.Replace("R", cols, vals), &spannerpb.Mutation{Operation: &spannerpb.Mutation_Replace{Replace: write("R")}}},
		{spanner.Delete("D", spanner.KeySets(spanner.Key{1, "k"}, spanner.KeyRange{Start: spanner.Key{2}, End: spanner.Key{3}, Kind: spanner.OpenClosed})),
			&spannerpb.Mutation{Operation: &spannerpb.Mutation_Delete_{Delete: &spannerpb.Mutation_Delete{Table: "D", KeySet: &spannerpb.KeySet{
				Keys: []*structpb.ListValue{list(s("1"), s("k"))},
				Ranges: []*spannerpb.KeyRange{{
					StartKeyType: &spannerpb.KeyRange_StartOpen{StartOpen: list(s("2"))},
					EndKeyType:   &spannerpb.KeyRange_EndClosed{EndClosed: list(s("3"))},
				}},
			}}}}},
		{spanner.Delete("A", spanner.AllKeys()),
			&spannerpb.Mutation{Operation: &spannerpb.Mutation_Delete_{Delete: &spannerpb.Mutation_Delete{Table: "A", KeySet: &spannerpb.KeySet{All: true}}}}},
		{spanner.Send("Q", spanner.Key{"k"}, "p", spanner.WithDeliveryTime(ts)),
			&spannerpb.Mutation{Operation: &spannerpb.Mutation_Send_{Send: &spannerpb.Mutation_Send{
				Queue: "Q", Key: list(s("k")), Payload: s("p"), DeliverTime: timestamppb.New(ts),
			}}}},
		{spanner.Ack("Q", spanner.Key{"k"}, spanner.WithIgnoreNotFound(true)),
			&spannerpb.Mutation{Operation: &spannerpb.Mutation_Ack_{Ack: &spannerpb.Mutation_Ack{Queue: "Q", Key: list(s("k")), IgnoreNotFound: true}}}},
	} {
		got, err := l.convert(c.m)
		if err != nil {
			return layoutError("self-check: %v", err)
		}
		if !proto.Equal(got, c.want) {
			return layoutError("self-check: converted %v, want %v", got, c.want)
		}
	}
	return nil
}
