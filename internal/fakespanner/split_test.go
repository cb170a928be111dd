package fakespanner

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"github.com/spannerfast/spannerfast/internal/randrs"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"
)

// ---- reference merger -------------------------------------------------
//
// Written independently of Merge: values are converted to a plain Go tree
// (string, []any, or the original *structpb.Value for other kinds), merged
// there following protocol.md, and converted back.

type other struct{ v *structpb.Value }

func toTree(v *structpb.Value) any {
	switch k := v.Kind.(type) {
	case *structpb.Value_StringValue:
		return k.StringValue
	case *structpb.Value_ListValue:
		out := []any{}
		for _, e := range k.ListValue.Values {
			out = append(out, toTree(e))
		}
		return out
	default:
		return other{v}
	}
}

func fromTree(t any) *structpb.Value {
	switch x := t.(type) {
	case string:
		return structpb.NewStringValue(x)
	case []any:
		vs := make([]*structpb.Value, len(x))
		for i, e := range x {
			vs[i] = fromTree(e)
		}
		return structpb.NewListValue(&structpb.ListValue{Values: vs})
	default:
		return x.(other).v
	}
}

func refMergeTree(a, b any) (any, error) {
	switch x := a.(type) {
	case string:
		y, ok := b.(string)
		if !ok {
			return nil, fmt.Errorf("string + %T", b)
		}
		return x + y, nil
	case []any:
		y, ok := b.([]any)
		if !ok {
			return nil, fmt.Errorf("list + %T", b)
		}
		if len(x) == 0 {
			return y, nil
		}
		if len(y) == 0 {
			return x, nil
		}
		out := append([]any{}, x[:len(x)-1]...)
		last := x[len(x)-1]
		switch last.(type) {
		case string, []any:
			m, err := refMergeTree(last, y[0])
			if err != nil {
				return nil, err
			}
			out = append(out, m)
			return append(out, y[1:]...), nil
		default:
			out = append(out, last)
			return append(out, y...), nil
		}
	default:
		return nil, fmt.Errorf("cannot merge %T", a)
	}
}

// refMerge returns the rows carried by msgs.
func refMerge(t *testing.T, msgs []*spannerpb.PartialResultSet) *spannerpb.ResultSet {
	t.Helper()
	if len(msgs) == 0 {
		t.Fatal("no messages")
	}
	md := msgs[0].Metadata
	if md == nil {
		t.Fatal("first message has no metadata")
	}
	var vals []*structpb.Value
	pending := false
	var stats *spannerpb.ResultSetStats
	for i, m := range msgs {
		if i > 0 && m.Metadata != nil {
			t.Fatalf("message %d repeats metadata", i)
		}
		vs := m.Values
		if pending {
			if len(vs) == 0 {
				t.Fatalf("message %d: nothing to continue chunk", i)
			}
			mt, err := refMergeTree(toTree(vals[len(vals)-1]), toTree(vs[0]))
			if err != nil {
				t.Fatalf("message %d: %v", i, err)
			}
			vals[len(vals)-1] = fromTree(mt)
			vs = vs[1:]
		}
		vals = append(vals, vs...)
		pending = m.ChunkedValue
		if pending && len(m.Values) == 0 {
			t.Fatalf("message %d chunked without values", i)
		}
		if m.Stats != nil {
			if i != len(msgs)-1 {
				t.Fatalf("stats on message %d of %d", i, len(msgs))
			}
			stats = m.Stats
		}
		if m.Last && i != len(msgs)-1 {
			t.Fatalf("last on message %d of %d", i, len(msgs))
		}
	}
	if pending {
		t.Fatal("stream ends inside a chunked value")
	}
	n := len(md.GetRowType().GetFields())
	rs := &spannerpb.ResultSet{Metadata: md, Stats: stats}
	if n == 0 {
		if len(vals) != 0 {
			t.Fatalf("%d values without columns", len(vals))
		}
		return rs
	}
	if len(vals)%n != 0 {
		t.Fatalf("%d values for %d columns", len(vals), n)
	}
	for i := 0; i < len(vals); i += n {
		rs.Rows = append(rs.Rows, &structpb.ListValue{Values: vals[i : i+n]})
	}
	return rs
}

func sameRS(t *testing.T, got, want *spannerpb.ResultSet) {
	t.Helper()
	if len(got.Rows) == 0 && len(want.Rows) == 0 {
		got, want = copyRS(got), copyRS(want)
		got.Rows, want.Rows = nil, nil
	}
	if !proto.Equal(got, want) {
		t.Fatalf("result differs:\n got %v\nwant %v", got, want)
	}
	// proto.Equal treats -0 and 0 alike; bytes do not.
	o := proto.MarshalOptions{Deterministic: true}
	gb, _ := o.Marshal(got)
	wb, _ := o.Marshal(want)
	if !bytes.Equal(gb, wb) {
		t.Fatal("results are proto.Equal but encode differently")
	}
}

// checkShape verifies structural rules of a split stream.
func checkShape(t *testing.T, msgs []*spannerpb.PartialResultSet, opts SplitOptions) {
	t.Helper()
	for i, m := range msgs {
		switch every := opts.ResumeTokenEvery; {
		case every < 0:
			if m.ResumeToken != nil {
				t.Fatalf("message %d has a token with NoResumeTokens", i)
			}
		case every <= 1 || (i+1)%every == 0:
			if !bytes.Equal(m.ResumeToken, ResumeToken(i)) {
				t.Fatalf("message %d token %q", i, m.ResumeToken)
			}
		default:
			if m.ResumeToken != nil {
				t.Fatalf("message %d has a token, every=%d", i, every)
			}
		}
		if m.Last != (opts.Last && i == len(msgs)-1) {
			t.Fatalf("message %d of %d: last=%v", i, len(msgs), m.Last)
		}
		if opts.MaxValues > 0 && len(m.Values) > opts.MaxValues {
			t.Fatalf("message %d has %d values, MaxValues %d", i, len(m.Values), opts.MaxValues)
		}
	}
	if opts.SeparateMetadata && len(msgs[0].Values) != 0 {
		t.Fatal("metadata message carries values")
	}
}

func msgValuesSize(m *spannerpb.PartialResultSet) int {
	n := 0
	for _, v := range m.Values {
		n += proto.Size(v)
	}
	return n
}

// ---- tests ----------------------------------------------------------------

func TestSplitPropertyRandom(t *testing.T) {
	n := int64(300)
	if testing.Short() {
		n = 50
	}
	for seed := int64(0); seed < n; seed++ {
		checkSplitSeed(t, seed)
	}
}

func checkSplitSeed(t *testing.T, seed int64) {
	{
		r := rand.New(rand.NewPCG(uint64(seed), 99))
		rs := randrs.ResultSet(r, randrs.Options{TopLevelStructs: seed%2 == 0, LongStringLen: 300, MaxRows: 12})
		if seed%5 == 0 {
			rs.Stats = &spannerpb.ResultSetStats{RowCount: &spannerpb.ResultSetStats_RowCountExact{RowCountExact: int64(len(rs.Rows))}}
		}
		before := proto.Clone(rs)
		opts := SplitOptions{Random: true, Seed: seed, ResumeTokenEvery: int(seed%4) - 1, Last: seed%3 == 0}
		switch seed % 4 {
		case 1:
			opts.MaxValues = 1 + int(seed%7)
		case 2:
			opts.MaxBytes = 40 + int(seed%300)
		}
		msgs, err := SplitChecked(rs, opts)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if !proto.Equal(rs, before) {
			t.Fatalf("seed %d: Split modified its input", seed)
		}
		checkShape(t, msgs, opts)
		sameRS(t, refMerge(t, msgs), rs)
		got, err := Merge(msgs)
		if err != nil {
			t.Fatalf("seed %d: Merge: %v", seed, err)
		}
		sameRS(t, got, rs)
		for _, m := range msgs {
			if _, err := proto.Marshal(m); err != nil {
				t.Fatalf("seed %d: message does not encode: %v", seed, err)
			}
		}
		// Deterministic.
		again := Split(rs, opts)
		if len(again) != len(msgs) {
			t.Fatalf("seed %d: not deterministic", seed)
		}
		for i := range again {
			if !proto.Equal(again[i], msgs[i]) {
				t.Fatalf("seed %d: message %d not deterministic", seed, i)
			}
		}
	}
}

// TestSplitRandomCoverage checks the random mode really produces the
// interesting shapes.
func TestSplitRandomCoverage(t *testing.T) {
	var chunked, nestedChunk, emptyMsg, sepMeta, multi int
	for seed := int64(0); seed < 300; seed++ {
		r := rand.New(rand.NewPCG(uint64(seed), 1))
		rs := randrs.ResultSet(r, randrs.Options{MinRows: 3, MaxRows: 10})
		msgs := Split(rs, SplitOptions{Random: true, Seed: seed})
		if len(msgs) > 1 {
			multi++
		}
		if len(msgs[0].Values) == 0 && len(rs.Rows) > 0 {
			sepMeta++
		}
		for i, m := range msgs {
			if m.ChunkedValue {
				chunked++
				last := m.Values[len(m.Values)-1]
				if lv := last.GetListValue(); lv != nil && len(lv.Values) > 0 && lv.Values[len(lv.Values)-1].GetListValue() != nil {
					nestedChunk++
				}
			}
			if i > 0 && i < len(msgs)-1 && len(m.Values) == 0 {
				emptyMsg++
			}
		}
	}
	for name, n := range map[string]int{"chunked values": chunked, "nested list chunks": nestedChunk,
		"empty messages": emptyMsg, "separate metadata": sepMeta, "multi-message streams": multi} {
		if n == 0 {
			t.Errorf("random mode never produced %s", name)
		}
	}
}

func sv(s string) *structpb.Value { return structpb.NewStringValue(s) }
func lv(vs ...*structpb.Value) *structpb.Value {
	return structpb.NewListValue(&structpb.ListValue{Values: vs})
}
func nv() *structpb.Value { return structpb.NewNullValue() }

func oneValueRS(typ *spannerpb.Type, v *structpb.Value) *spannerpb.ResultSet {
	return &spannerpb.ResultSet{
		Metadata: &spannerpb.ResultSetMetadata{RowType: &spannerpb.StructType{Fields: []*spannerpb.StructType_Field{{Name: "v", Type: typ}}}},
		Rows:     []*structpb.ListValue{{Values: []*structpb.Value{v}}},
	}
}

var (
	tString   = &spannerpb.Type{Code: spannerpb.TypeCode_STRING}
	tInt64    = &spannerpb.Type{Code: spannerpb.TypeCode_INT64}
	tStrArray = &spannerpb.Type{Code: spannerpb.TypeCode_ARRAY, ArrayElementType: tString}
	tIntArray = &spannerpb.Type{Code: spannerpb.TypeCode_ARRAY, ArrayElementType: tInt64}
	tStruct   = &spannerpb.Type{Code: spannerpb.TypeCode_STRUCT, StructType: &spannerpb.StructType{Fields: []*spannerpb.StructType_Field{
		{Name: "n", Type: tInt64}, {Name: "s", Type: tString}, {Name: "f", Type: &spannerpb.Type{Code: spannerpb.TypeCode_FLOAT64}}}}}
	tStructArr = &spannerpb.Type{Code: spannerpb.TypeCode_ARRAY, ArrayElementType: tStruct}
)

func TestSplitExplicitChunks(t *testing.T) {
	cases := []struct {
		name   string
		typ    *spannerpb.Type
		v      *structpb.Value
		chunks []Chunk
		want   [][]*structpb.Value // values per message
	}{
		{"string", tString, sv("hello"), []Chunk{{At: 2}},
			[][]*structpb.Value{{sv("he")}, {sv("llo")}}},
		{"string many", tString, sv("hello"), []Chunk{{At: 3}, {At: 1}, {At: 3}},
			[][]*structpb.Value{{sv("h")}, {sv("el")}, {sv("lo")}}},
		{"string edges", tString, sv("hé"), []Chunk{{At: 0}, {At: 3}},
			[][]*structpb.Value{{sv("")}, {sv("hé")}, {sv("")}}},
		{"list boundary after string", tStrArray, lv(sv("ab"), sv("cd"), sv("ef")), []Chunk{{At: 1}},
			[][]*structpb.Value{{lv(sv("ab"))}, {lv(sv(""), sv("cd"), sv("ef"))}}},
		{"int64 array boundary", tIntArray, lv(sv("1"), sv("2"), sv("3")), []Chunk{{At: 2}},
			[][]*structpb.Value{{lv(sv("1"), sv("2"))}, {lv(sv(""), sv("3"))}}},
		{"list boundary after null", tIntArray, lv(sv("1"), nv(), sv("3")), []Chunk{{At: 2}},
			[][]*structpb.Value{{lv(sv("1"), nv())}, {lv(sv("3"))}}},
		{"list boundary 0 and end", tIntArray, lv(sv("1")), []Chunk{{At: 0}, {At: 1}},
			[][]*structpb.Value{{lv()}, {lv(sv("1"))}, {lv(sv(""))}}},
		{"inside last element", tStrArray, lv(sv("ab"), sv("cd"), sv("ef")), []Chunk{{Path: []int{2}, At: 1}},
			[][]*structpb.Value{{lv(sv("ab"), sv("cd"), sv("e"))}, {lv(sv("f"))}}},
		{"struct field", tStruct, lv(sv("7"), sv("xyz"), structpb.NewNumberValue(1.5)), []Chunk{{Path: []int{1}, At: 2}},
			[][]*structpb.Value{{lv(sv("7"), sv("xy"))}, {lv(sv("z"), structpb.NewNumberValue(1.5))}}},
		{"struct boundary before number", tStruct, lv(sv("7"), sv("xyz"), structpb.NewNumberValue(1.5)), []Chunk{{At: 2}},
			[][]*structpb.Value{{lv(sv("7"), sv("xyz"))}, {lv(sv(""), structpb.NewNumberValue(1.5))}}},
		{"array of struct nested", tStructArr,
			lv(lv(sv("1"), sv("abc"), nv()), lv(sv("2"), sv("uvw"), nv())),
			[]Chunk{{Path: []int{1, 1}, At: 1}, {Path: []int{0}, At: 3}},
			[][]*structpb.Value{
				{lv(lv(sv("1"), sv("abc"), nv()))},
				{lv(lv(), lv(sv("2"), sv("u")))},
				{lv(lv(sv("vw"), nv()))},
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rs := oneValueRS(c.typ, c.v)
			msgs, err := SplitChecked(rs, SplitOptions{Chunks: c.chunks})
			if err != nil {
				t.Fatal(err)
			}
			if len(msgs) != len(c.want) {
				t.Fatalf("got %d messages, want %d: %v", len(msgs), len(c.want), msgs)
			}
			for i, m := range msgs {
				if len(m.Values) != len(c.want[i]) {
					t.Fatalf("message %d: %v", i, m.Values)
				}
				for j := range m.Values {
					if !proto.Equal(m.Values[j], c.want[i][j]) {
						t.Fatalf("message %d value %d = %v, want %v", i, j, m.Values[j], c.want[i][j])
					}
				}
				if m.ChunkedValue != (i < len(msgs)-1) {
					t.Fatalf("message %d chunked=%v", i, m.ChunkedValue)
				}
			}
			sameRS(t, refMerge(t, msgs), rs)
		})
	}
}

func TestSplitCheckedErrors(t *testing.T) {
	rs := &spannerpb.ResultSet{
		Metadata: &spannerpb.ResultSetMetadata{RowType: &spannerpb.StructType{Fields: []*spannerpb.StructType_Field{
			{Name: "s", Type: tString}, {Name: "n", Type: &spannerpb.Type{Code: spannerpb.TypeCode_FLOAT64}}, {Name: "a", Type: tIntArray}}}},
		Rows: []*structpb.ListValue{{Values: []*structpb.Value{sv("héllo"), structpb.NewNumberValue(1), lv(sv("1"), nv())}}},
	}
	for _, c := range []struct {
		ch   Chunk
		want string
	}{
		{Chunk{Row: 1}, "no such value"},
		{Chunk{Column: 3}, "no such value"},
		{Chunk{Row: -1}, "no such value"},
		{Chunk{At: 2}, "inside a UTF-8 character"},
		{Chunk{At: 7}, "outside the string"},
		{Chunk{Column: 1}, "cannot be chunked"},
		{Chunk{Column: 2, Path: []int{1}}, "cannot be chunked"},
		{Chunk{Column: 2, Path: []int{5}}, "outside the list"},
		{Chunk{Column: 2, At: 3}, "outside the list"},
		{Chunk{Column: 0, Path: []int{0}}, "descends into a string"},
	} {
		_, err := SplitChecked(rs, SplitOptions{Chunks: []Chunk{c.ch}})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("chunk %+v: err %v, want %q", c.ch, err, c.want)
		}
		// Lenient Split ignores it (or moves the offset) and still round-trips.
		sameRS(t, refMerge(t, Split(rs, SplitOptions{Chunks: []Chunk{c.ch}})), rs)
	}
	bad := proto.Clone(rs).(*spannerpb.ResultSet)
	bad.Rows[0].Values = bad.Rows[0].Values[:2]
	if _, err := SplitChecked(bad, SplitOptions{}); err == nil || !strings.Contains(err.Error(), "row 0 has 2 values") {
		t.Errorf("short row: %v", err)
	}
	if _, err := SplitChecked(nil, SplitOptions{}); err == nil {
		t.Error("nil result set accepted")
	}
	if Split(nil, SplitOptions{}) != nil {
		t.Error("Split(nil) returned messages")
	}
	// The lenient mode moves an offset inside a character back to its start.
	msgs := Split(rs, SplitOptions{Chunks: []Chunk{{At: 2}}})
	if got := msgs[0].Values[0].GetStringValue(); got != "h" {
		t.Errorf("first piece %q, want %q", got, "h")
	}
}

func TestSplitLayout(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	rs := randrs.ResultSet(r, randrs.Options{MinRows: 4, MaxRows: 4, MinColumns: 3, MaxColumns: 3,
		Types: []spannerpb.TypeCode{spannerpb.TypeCode_INT64}, NullRate: -1})
	rs.Stats = &spannerpb.ResultSetStats{RowCount: &spannerpb.ResultSetStats_RowCountExact{RowCountExact: 4}}

	msgs := Split(rs, SplitOptions{})
	if len(msgs) != 1 || len(msgs[0].Values) != 12 || msgs[0].Stats == nil || msgs[0].Metadata == nil || msgs[0].Last {
		t.Fatalf("default split: %v", msgs)
	}

	opts := SplitOptions{MaxValues: 5, ResumeTokenEvery: 2, Last: true, SeparateMetadata: true, SeparateStats: true}
	msgs = Split(rs, opts)
	// metadata, 5, 5, 2, stats
	if len(msgs) != 5 {
		t.Fatalf("%d messages", len(msgs))
	}
	for i, n := range []int{0, 5, 5, 2, 0} {
		if len(msgs[i].Values) != n {
			t.Fatalf("message %d has %d values, want %d", i, len(msgs[i].Values), n)
		}
	}
	if msgs[0].Metadata == nil || msgs[4].Stats == nil || !msgs[4].Last {
		t.Fatal("metadata/stats/last misplaced")
	}
	checkShape(t, msgs, opts)
	sameRS(t, refMerge(t, msgs), rs)

	opts = SplitOptions{MaxValues: 1, ResumeTokenEvery: NoResumeTokens}
	msgs = Split(rs, opts)
	if len(msgs) != 12 {
		t.Fatalf("%d messages", len(msgs))
	}
	checkShape(t, msgs, opts)

	// No rows: one message with metadata and stats.
	empty := &spannerpb.ResultSet{Metadata: rs.Metadata, Stats: rs.Stats}
	msgs = Split(empty, SplitOptions{Last: true})
	if len(msgs) != 1 || msgs[0].Metadata == nil || msgs[0].Stats == nil || !msgs[0].Last {
		t.Fatalf("empty: %v", msgs)
	}
	sameRS(t, refMerge(t, msgs), empty)
}

func TestSplitMaxBytes(t *testing.T) {
	big := strings.Repeat("0123456789abcdé", 700) // ~11 KB with 2-byte characters
	rs := oneValueRS(tString, sv(big))
	msgs := Split(rs, SplitOptions{MaxBytes: 1000})
	if len(msgs) < 10 {
		t.Fatalf("only %d messages", len(msgs))
	}
	for i, m := range msgs {
		if n := msgValuesSize(m); n > 1000 {
			t.Fatalf("message %d carries %d bytes", i, n)
		}
	}
	sameRS(t, refMerge(t, msgs), rs)

	// Random result sets with long values: bound holds up to framing slack.
	for seed := int64(0); seed < 40; seed++ {
		r := rand.New(rand.NewPCG(uint64(seed), 5))
		rs := randrs.ResultSet(r, randrs.Options{LongStringLen: 5000, MaxArrayLen: 30, MaxRows: 20})
		max := []int{200, 500, 2000}[seed%3]
		msgs := Split(rs, SplitOptions{MaxBytes: max})
		for i, m := range msgs {
			if n := msgValuesSize(m); n > max+48 {
				t.Fatalf("seed %d: message %d carries %d bytes, max %d", seed, i, n, max)
			}
		}
		sameRS(t, refMerge(t, msgs), rs)
	}
}

func TestMergeErrors(t *testing.T) {
	md := &spannerpb.ResultSetMetadata{RowType: &spannerpb.StructType{Fields: []*spannerpb.StructType_Field{{Name: "a", Type: tString}}}}
	for _, c := range []struct {
		name string
		msgs []*spannerpb.PartialResultSet
		want string
	}{
		{"empty", nil, "empty stream"},
		{"number chunk", []*spannerpb.PartialResultSet{{Metadata: md, Values: []*structpb.Value{structpb.NewNumberValue(1)}, ChunkedValue: true}, {Values: []*structpb.Value{sv("x")}}}, "cannot merge"},
		{"kind mismatch", []*spannerpb.PartialResultSet{{Metadata: md, Values: []*structpb.Value{sv("a")}, ChunkedValue: true}, {Values: []*structpb.Value{lv()}}}, "cannot merge"},
		{"nothing to continue", []*spannerpb.PartialResultSet{{Metadata: md, Values: []*structpb.Value{sv("a")}, ChunkedValue: true}, {}}, "no value to continue"},
		{"chunk without values", []*spannerpb.PartialResultSet{{Metadata: md, ChunkedValue: true}}, "without values"},
		{"final chunked", []*spannerpb.PartialResultSet{{Metadata: md, Values: []*structpb.Value{sv("a")}, ChunkedValue: true}}, "final message"},
		{"no columns", []*spannerpb.PartialResultSet{{Values: []*structpb.Value{sv("a")}}}, "no columns"},
		{"ragged", []*spannerpb.PartialResultSet{{Metadata: &spannerpb.ResultSetMetadata{RowType: &spannerpb.StructType{Fields: []*spannerpb.StructType_Field{{}, {}}}}, Values: []*structpb.Value{sv("a")}}}, "do not fill"},
	} {
		if _, err := Merge(c.msgs); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err %v, want %q", c.name, err, c.want)
		}
	}
	// Precommit token with the highest seq_num wins.
	got, err := Merge([]*spannerpb.PartialResultSet{
		{Metadata: md, PrecommitToken: &spannerpb.MultiplexedSessionPrecommitToken{SeqNum: 2}},
		{PrecommitToken: &spannerpb.MultiplexedSessionPrecommitToken{SeqNum: 1}},
	})
	if err != nil || got.PrecommitToken.SeqNum != 2 {
		t.Errorf("precommit: %v %v", got, err)
	}
}

// FuzzSplit checks the round trip for any seed (the seed picks the result
// set and the random split).
func FuzzSplit(f *testing.F) {
	for _, s := range []int64{0, 1, 2, 3, 42, -7} {
		f.Add(s)
	}
	f.Fuzz(checkSplitSeed)
}

func BenchmarkSplitRandom(b *testing.B) {
	rs := randrs.ResultSet(rand.New(rand.NewPCG(1, 1)), randrs.Options{MinRows: 200, MaxRows: 200})
	for b.Loop() {
		Split(rs, SplitOptions{Random: true, Seed: 1})
	}
}
