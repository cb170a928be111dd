package mutationpb

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"cloud.google.com/go/spanner"
	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
)

var update = flag.Bool("update", false, "rewrite testdata/golden.binpb from the current client")

const goldenPath = "testdata/golden.binpb"

// goldenCase is one named batch and its wire form.
type goldenCase struct {
	name string
	pbs  []*spannerpb.Mutation
}

// goldenCases converts every mutation kind and every value the client
// accepts (one Insert per value).
func goldenCases(t *testing.T) []goldenCase {
	t.Helper()
	var out []goldenCase
	add := func(name string, ms []*spanner.Mutation) {
		if pbs, _, err := Convert(ms); err == nil {
			out = append(out, goldenCase{name, pbs})
		}
	}
	for _, c := range mutationKinds() {
		add("kind/"+c.name, c.ms)
	}
	for _, v := range values() {
		add("value/"+v.name, []*spanner.Mutation{spanner.Insert("T", []string{"K", "V"}, []any{int64(1), v.v})})
	}
	return out
}

// The golden file is a sequence of (name, BatchWriteRequest_MutationGroup)
// pairs, each a length-delimited protobuf field, so it needs no schema of
// its own and diffs as protos rather than bytes.
func encodeGolden(cs []goldenCase) ([]byte, error) {
	var b []byte
	for _, c := range cs {
		g, err := proto.MarshalOptions{Deterministic: true}.Marshal(&spannerpb.BatchWriteRequest_MutationGroup{Mutations: c.pbs})
		if err != nil {
			return nil, err
		}
		b = protowire.AppendString(b, c.name)
		b = protowire.AppendBytes(b, g)
	}
	return b, nil
}

func decodeGolden(b []byte) ([]goldenCase, error) {
	var out []goldenCase
	for len(b) > 0 {
		name, n := protowire.ConsumeString(b)
		if n < 0 {
			return nil, protowire.ParseError(n)
		}
		b = b[n:]
		raw, n := protowire.ConsumeBytes(b)
		if n < 0 {
			return nil, protowire.ParseError(n)
		}
		b = b[n:]
		var g spannerpb.BatchWriteRequest_MutationGroup
		if err := proto.Unmarshal(raw, &g); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		out = append(out, goldenCase{name, g.Mutations})
	}
	return out, nil
}

// TestGolden catches a client release that changes the wire form of any
// mutation kind or value type (TestMatchesOfficialClient would accept it,
// since it compares with the client in use). Regenerate with -update only
// after checking that the change is the client's intent.
func TestGolden(t *testing.T) {
	cs := goldenCases(t)
	if *update {
		b, err := encodeGolden(cs)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(goldenPath), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(goldenPath, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(goldenPath)
	if err != nil {
		t.Fatal(err)
	}
	want, err := decodeGolden(b)
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != len(want) {
		t.Errorf("%d converted cases, golden has %d", len(cs), len(want))
	}
	for i := 0; i < min(len(cs), len(want)); i++ {
		if cs[i].name != want[i].name {
			t.Fatalf("case %d is %q, golden has %q", i, cs[i].name, want[i].name)
		}
		equalMutations(t, cs[i].name, cs[i].pbs, want[i].pbs)
	}
}
