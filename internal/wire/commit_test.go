package wire

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"testing"
	"time"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/structpb"
)

func commitRow(vs ...*structpb.Value) *structpb.ListValue { return &structpb.ListValue{Values: vs} }

// TestAppendCommitMatchesProto: AppendCommit writes the bytes
// proto.Marshal writes, for every kind of mutation and value, with and
// without the request's other fields.
func TestAppendCommitMatchesProto(t *testing.T) {
	list, _ := structpb.NewList([]any{"a", 1.5, nil})
	obj, _ := structpb.NewStruct(map[string]any{"k": "v"})
	w := &spannerpb.Mutation_Write{Table: "T", Columns: []string{"A", "B", "C"}, Values: []*structpb.ListValue{
		commitRow(structpb.NewStringValue("1"), structpb.NewNumberValue(math.NaN()), structpb.NewBoolValue(false)),
		commitRow(structpb.NewNullValue(), structpb.NewListValue(list), structpb.NewStructValue(obj)),
		commitRow(structpb.NewStringValue(""), structpb.NewNumberValue(0), structpb.NewBoolValue(true)),
	}}
	muts := []*spannerpb.Mutation{
		{Operation: &spannerpb.Mutation_Insert{Insert: w}},
		{Operation: &spannerpb.Mutation_Update{Update: w}},
		{Operation: &spannerpb.Mutation_InsertOrUpdate{InsertOrUpdate: w}},
		{Operation: &spannerpb.Mutation_Replace{Replace: w}},
		{Operation: &spannerpb.Mutation_Insert{Insert: &spannerpb.Mutation_Write{}}},
		{Operation: &spannerpb.Mutation_Delete_{Delete: &spannerpb.Mutation_Delete{Table: "T", KeySet: &spannerpb.KeySet{All: true}}}},
	}
	unknown := proto.Clone(muts[0]).(*spannerpb.Mutation)
	unknown.ProtoReflect().SetUnknown(protowire.AppendVarint(protowire.AppendTag(nil, 99, protowire.VarintType), 7))
	for i, r := range []*spannerpb.CommitRequest{
		{},
		{Session: "s", Transaction: &spannerpb.CommitRequest_TransactionId{TransactionId: []byte("tx")}, Mutations: muts},
		{Session: "s", Transaction: &spannerpb.CommitRequest_SingleUseTransaction{SingleUseTransaction: &spannerpb.TransactionOptions{
			Mode: &spannerpb.TransactionOptions_ReadWrite_{ReadWrite: &spannerpb.TransactionOptions_ReadWrite{}}}},
			Mutations: append(muts, unknown), ReturnCommitStats: true, MaxCommitDelay: durationpb.New(time.Millisecond),
			RequestOptions: &spannerpb.RequestOptions{TransactionTag: "t"},
			PrecommitToken: &spannerpb.MultiplexedSessionPrecommitToken{PrecommitToken: []byte("p"), SeqNum: 3},
			RoutingHint:    &spannerpb.RoutingHint{Key: []byte("k")}},
	} {
		want, err := proto.MarshalOptions{Deterministic: true}.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		got, err := AppendCommit(nil, r)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("request %d: AppendCommit gave %x, %v; proto.Marshal %x", i, got, err, want)
		}
		mb, err := UnaryCodec{}.Marshal(r)
		if err != nil || !bytes.Equal(mb.Materialize(), want) {
			t.Errorf("request %d: UnaryCodec.Marshal differs from proto.Marshal: %v", i, err)
		}
	}
	for _, row := range w.Values {
		if ListSize(row) != proto.Size(row) {
			t.Errorf("ListSize(%v) = %d, proto.Size %d", row, ListSize(row), proto.Size(row))
		}
	}
}

// TestCommitEncoderKnowsEveryField fails when a client library upgrade
// adds a field to CommitRequest, Mutation.Write or Mutation that
// AppendCommit does not write.
func TestCommitEncoderKnowsEveryField(t *testing.T) {
	for _, tc := range []struct {
		m    proto.Message
		want string
	}{
		{&spannerpb.CommitRequest{}, "[1 2 3 4 5 6 8 9 10]"},
		{&spannerpb.Mutation_Write{}, "[1 2 3]"},
	} {
		var got []int
		fields := tc.m.ProtoReflect().Descriptor().Fields()
		for i := range fields.Len() {
			got = append(got, int(fields.Get(i).Number()))
		}
		slices.Sort(got)
		if fmt.Sprint(got) != tc.want {
			t.Errorf("%T has fields %v, AppendCommit knows %s", tc.m, got, tc.want)
		}
	}
}

// FuzzAppendCommit compares AppendCommit with proto.Marshal for commits of
// rows of fuzzed strings, numbers and booleans, with a transaction id or
// single-use options.
func FuzzAppendCommit(f *testing.F) {
	f.Add("T", "a", "", 1.5, true, []byte("tx"), uint8(3))
	f.Add("", "\xff", "x", math.Inf(-1), false, []byte(nil), uint8(0))
	f.Fuzz(func(t *testing.T, table, s1, s2 string, num float64, b bool, tx []byte, rows uint8) {
		w := &spannerpb.Mutation_Write{Table: table, Columns: []string{s1, s2}}
		for i := range int(rows % 8) {
			row := commitRow(structpb.NewStringValue(s1), structpb.NewNumberValue(num), structpb.NewBoolValue(b))
			if i%2 == 1 {
				row.Values = append(row.Values, structpb.NewNullValue(), structpb.NewStringValue(s2))
			}
			w.Values = append(w.Values, row)
		}
		r := &spannerpb.CommitRequest{Session: s2, Mutations: []*spannerpb.Mutation{
			{Operation: &spannerpb.Mutation_Insert{Insert: w}},
			{Operation: &spannerpb.Mutation_InsertOrUpdate{InsertOrUpdate: w}},
		}}
		if tx != nil {
			r.Transaction = &spannerpb.CommitRequest_TransactionId{TransactionId: tx}
		} else {
			r.Transaction = &spannerpb.CommitRequest_SingleUseTransaction{SingleUseTransaction: &spannerpb.TransactionOptions{}}
		}
		want, werr := proto.MarshalOptions{Deterministic: true}.Marshal(r)
		got, gerr := AppendCommit(nil, r)
		if werr != nil {
			return // invalid UTF-8: proto refuses it; callers check strings first (params.CheckRowUTF8)
		}
		if gerr != nil || !bytes.Equal(got, want) {
			t.Fatalf("AppendCommit gave %x, %v; proto.Marshal %x", got, gerr, want)
		}
	})
}
