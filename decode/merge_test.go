package decode_test

import (
	"bytes"
	"database/sql/driver"
	"encoding/base64"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/spannerfast/spannerfast/decode"
	"github.com/spannerfast/spannerfast/internal/fakespanner"
)

// mergeAll feeds encoded PartialResultSets to a Merger and returns every
// complete value, copied.
func mergeAll(msgs [][]byte) ([][]byte, error) {
	var m decode.Merger
	var out [][]byte
	for _, b := range msgs {
		if err := m.Load(b); err != nil {
			return out, err
		}
		for {
			v, ok, err := m.Next()
			if err != nil {
				return out, err
			}
			if !ok {
				break
			}
			out = append(out, bytes.Clone(v))
		}
	}
	return out, m.End()
}

// chunkMsgs builds one PartialResultSet per group of values; every group but
// the last is marked chunked (its last value continues in the next).
func chunkMsgs(groups ...[]*structpb.Value) [][]byte {
	msgs := make([][]byte, len(groups))
	for i, g := range groups {
		msgs[i] = prs(&spannerpb.PartialResultSet{Values: g, ChunkedValue: i < len(groups)-1})
	}
	return msgs
}

func vals(vs ...*structpb.Value) []*structpb.Value { return vs }

func unmarshalValue(t testing.TB, b []byte) *structpb.Value {
	t.Helper()
	var v structpb.Value
	if err := proto.Unmarshal(b, &v); err != nil {
		t.Fatalf("merged value does not parse: %v", err)
	}
	return &v
}

func checkMerged(t *testing.T, msgs [][]byte, want ...*structpb.Value) {
	t.Helper()
	got, err := mergeAll(msgs)
	if err != nil {
		t.Fatalf("merge: %v", err)
	}
	if len(got) != len(want) {
		t.Fatalf("got %d values, want %d", len(got), len(want))
	}
	for i := range got {
		if g := unmarshalValue(t, got[i]); !proto.Equal(g, want[i]) {
			t.Errorf("value %d:\n got %s\nwant %s", i, pbCanon(g), pbCanon(want[i]))
		}
	}
}

func TestMergeString(t *testing.T) {
	const s = "hello, chunked world"
	for i := 0; i <= len(s); i++ {
		checkMerged(t, chunkMsgs(vals(str("a"), str(s[:i])), vals(str(s[i:]), str("z"))), str("a"), str(s), str("z"))
	}
	// Split three ways, the middle chunk alone in its message.
	checkMerged(t, chunkMsgs(vals(str("ab")), vals(str("cd")), vals(str("ef"))), str("abcdef"))
	// Empty chunks are allowed on either side.
	checkMerged(t, chunkMsgs(vals(str("")), vals(str("")), vals(str("x"))), str("x"))
}

// TestMergeBytesBase64 splits a BYTES value's base64 text at every position
// and decodes it as a column.
func TestMergeBytesBase64(t *testing.T) {
	raw := []byte("\x00\x01\x02binary\xff\xfe payload!")
	b64 := base64.StdEncoding.EncodeToString(raw)
	md := metadataOf(fld("id", tInt64), fld("data", tBytes))
	for i := 0; i <= len(b64); i++ {
		for _, o := range []decode.Options{{}, {Raw: true}} {
			msgs := [][]byte{
				prs(&spannerpb.PartialResultSet{Metadata: md, Values: vals(str("1"), str(b64[:i])), ChunkedValue: true}),
				prs(&spannerpb.PartialResultSet{Values: vals(str(b64[i:]))}),
			}
			n := 0
			err := decodeStream(msgs, o, func(_ *decode.Plan, row []driver.Value) error {
				n++
				if got := row[1].([]byte); !bytes.Equal(got, raw) {
					return fmt.Errorf("split at %d: got %q", i, got)
				}
				return nil
			})
			if err != nil || n != 1 {
				t.Fatalf("split at %d, %+v: err %v, %d rows", i, o, err, n)
			}
		}
	}
}

func TestMergeArray(t *testing.T) {
	t.Run("chunk inside the last element", func(t *testing.T) {
		checkMerged(t, chunkMsgs(vals(list(str("ab"), str("c"))), vals(list(str("de"), str("f")))),
			list(str("ab"), str("cde"), str("f")))
	})
	t.Run("numbers are appended", func(t *testing.T) {
		checkMerged(t, chunkMsgs(vals(list(num(1), num(2))), vals(list(num(3)))), list(num(1), num(2), num(3)))
	})
	t.Run("bools and nulls are appended", func(t *testing.T) {
		checkMerged(t, chunkMsgs(vals(list(boolv(true), null())), vals(list(null(), boolv(false)))),
			list(boolv(true), null(), null(), boolv(false)))
	})
	t.Run("empty sides", func(t *testing.T) {
		checkMerged(t, chunkMsgs(vals(list()), vals(list(str("a")))), list(str("a")))
		checkMerged(t, chunkMsgs(vals(list(str("a"))), vals(list())), list(str("a")))
		checkMerged(t, chunkMsgs(vals(list()), vals(list())), list())
	})
	t.Run("nested arrays", func(t *testing.T) {
		checkMerged(t, chunkMsgs(
			vals(list(list(str("a"), str("b")), list(str("c"), list(str("d"))))),
			vals(list(list(list(str("e"), str("f"))), str("g")))),
			list(list(str("a"), str("b")), list(str("c"), list(str("de"), str("f"))), str("g")))
	})
	t.Run("struct as list", func(t *testing.T) {
		// ARRAY<STRUCT<id INT64, name STRING, scores ARRAY<FLOAT64>>>, the
		// cut inside the second struct's name.
		checkMerged(t, chunkMsgs(
			vals(list(list(str("1"), str("one"), list(num(1))), list(str("2"), str("tw")))),
			vals(list(list(str("o"), list(num(2), num(3)))))),
			list(list(str("1"), str("one"), list(num(1))), list(str("2"), str("two"), list(num(2), num(3)))))
	})
	t.Run("value spanning many messages", func(t *testing.T) {
		var groups [][]*structpb.Value
		for i := range 200 {
			groups = append(groups, vals(list(str(fmt.Sprint(i)), str("x"))))
		}
		// Each chunk's last "x" merges with the next chunk's number.
		merged := []*structpb.Value{str("0")}
		for i := 1; i < 200; i++ {
			merged = append(merged, str("x"+fmt.Sprint(i)))
		}
		merged = append(merged, str("x"))
		checkMerged(t, chunkMsgs(groups...), list(merged...))
	})
	t.Run("string spanning many messages", func(t *testing.T) {
		var groups [][]*structpb.Value
		for i := range 1000 {
			groups = append(groups, vals(str(fmt.Sprintf("%03d|", i))))
		}
		var sb strings.Builder
		for i := range 1000 {
			fmt.Fprintf(&sb, "%03d|", i)
		}
		checkMerged(t, chunkMsgs(groups...), str(sb.String()))
	})
	t.Run("chunked value completed and new chunk in one message", func(t *testing.T) {
		msgs := [][]byte{
			prs(&spannerpb.PartialResultSet{Values: vals(str("a"), str("b")), ChunkedValue: true}),
			prs(&spannerpb.PartialResultSet{Values: vals(str("c")), ChunkedValue: true}),
			prs(&spannerpb.PartialResultSet{Values: vals(str("d"), str("e"), list(str("f"))), ChunkedValue: true}),
			prs(&spannerpb.PartialResultSet{}), // no values: the chunk continues past it
			prs(&spannerpb.PartialResultSet{Values: vals(list(str("g"), num(1)), str("h"))}),
		}
		checkMerged(t, msgs, str("a"), str("bcd"), str("e"), list(str("fg"), num(1)), str("h"))
	})
}

// randomValue makes a value with nested lists, strings and scalars.
func randomValue(r *rand.Rand, depth int) *structpb.Value {
	switch n := r.IntN(10); {
	case n < 4:
		b := make([]byte, r.IntN(40))
		for i := range b {
			b[i] = "abcdefghij0123456789+/="[r.IntN(23)]
		}
		return str(string(b))
	case n < 7 && depth < 4:
		es := make([]*structpb.Value, r.IntN(6))
		for i := range es {
			es[i] = randomValue(r, depth+1)
		}
		return list(es...)
	case n == 7:
		return num(r.Float64())
	case n == 8:
		return boolv(r.IntN(2) == 0)
	}
	return null()
}

// TestMergeRandomChunking checks the merge of random values cut at random
// places against the values themselves.
func TestMergeRandomChunking(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	chunked := 0
	defer func() {
		if chunked < 100 {
			t.Errorf("only %d chunked messages in 500 random streams", chunked)
		}
	}()
	for iter := range 500 {
		values := make([]*structpb.Value, 1+r.IntN(12))
		for i := range values {
			values[i] = randomValue(r, 0)
		}
		msgs := chunkStream(values, r, nil)
		chunked += countChunked(t, msgs)
		got, err := mergeAll(msgs)
		if err != nil {
			t.Fatalf("iteration %d: %v", iter, err)
		}
		if len(got) != len(values) {
			t.Fatalf("iteration %d: %d values, want %d", iter, len(got), len(values))
		}
		for i := range got {
			if g := unmarshalValue(t, got[i]); !proto.Equal(g, values[i]) {
				t.Fatalf("iteration %d value %d:\n got %s\nwant %s", iter, i, pbCanon(g), pbCanon(values[i]))
			}
		}
	}
}

// TestMergeProtocolViolations: every way of breaking the chunk protocol is
// an error matching ErrMalformed with code FailedPrecondition or Internal,
// never a panic.
func TestMergeProtocolViolations(t *testing.T) {
	cases := []struct {
		name string
		msgs [][]byte
		code codes.Code
	}{
		{"number", chunkMsgs(vals(num(1)), vals(num(2))), codes.FailedPrecondition},
		{"bool", chunkMsgs(vals(boolv(true)), vals(boolv(false))), codes.FailedPrecondition},
		{"null", chunkMsgs(vals(null()), vals(null())), codes.FailedPrecondition},
		{"struct", chunkMsgs(vals(emptyStruct()), vals(emptyStruct())), codes.FailedPrecondition},
		{"unset", chunkMsgs(vals(unset()), vals(str("a"))), codes.FailedPrecondition},
		{"string then list", chunkMsgs(vals(str("a")), vals(list(str("b")))), codes.FailedPrecondition},
		{"list then string", chunkMsgs(vals(list(str("a"))), vals(str("b"))), codes.FailedPrecondition},
		{"string then number", chunkMsgs(vals(str("a")), vals(num(1))), codes.FailedPrecondition},
		{"string then null", chunkMsgs(vals(str("a")), vals(null())), codes.FailedPrecondition},
		{"list element string then list", chunkMsgs(vals(list(str("a"))), vals(list(list()))), codes.FailedPrecondition},
		{"list element list then string", chunkMsgs(vals(list(list(str("a")))), vals(list(str("b")))), codes.FailedPrecondition},
		{"list element string then number", chunkMsgs(vals(list(str("a"))), vals(list(num(2)))), codes.FailedPrecondition},
		{"nested mismatch", chunkMsgs(vals(list(list(str("a")))), vals(list(list(null())))), codes.FailedPrecondition},
		{"unset element in chunk", chunkMsgs(vals(list(unset())), vals(list(str("a")))), codes.FailedPrecondition},
		{"chunked_value with no values", [][]byte{prs(&spannerpb.PartialResultSet{ChunkedValue: true})}, codes.FailedPrecondition},
		{"stream ends inside a chunk", [][]byte{prs(&spannerpb.PartialResultSet{Values: vals(str("a")), ChunkedValue: true})}, codes.FailedPrecondition},
		{"stream ends inside a list chunk", chunkMsgs(vals(list(str("a"))), vals(list(str("b"))))[:1], codes.FailedPrecondition},
		{"stream ends after an empty message", [][]byte{
			prs(&spannerpb.PartialResultSet{Values: vals(str("a")), ChunkedValue: true}),
			prs(&spannerpb.PartialResultSet{}),
		}, codes.FailedPrecondition},
		{"truncated chunk", [][]byte{
			prs(&spannerpb.PartialResultSet{Values: vals(str("a")), ChunkedValue: true}),
			{0x12, 0x03, 0x1a, 0x05, 'b'}, // values: a string claiming 5 bytes
		}, codes.Internal},
		{"truncated element in a list chunk", [][]byte{
			prs(&spannerpb.PartialResultSet{Values: vals(list(str("a"))), ChunkedValue: true}),
			func() []byte {
				v := listBytes([]byte{0x1a, 0x05, 'b'})
				b := []byte{0x12, byte(len(v))}
				return append(b, v...)
			}(),
		}, codes.Internal},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := mergeAll(c.msgs)
			if err == nil {
				t.Fatal("no error")
			}
			if !errors.Is(err, decode.ErrMalformed) {
				t.Errorf("errors.Is(%v, ErrMalformed) = false", err)
			}
			if got := status.Code(err); got != c.code {
				t.Errorf("code = %v, want %v (%v)", got, c.code, err)
			}
		})
	}
}

// allocBytes reports the bytes allocated by f.
func allocBytes(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestMergeLinearString merges a 64 MiB string sent in 1 MiB chunks. The
// bytes allocated must stay within a small multiple of the value's size;
// quadratic copying would allocate about 32 times the size.
func TestMergeLinearString(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates several hundred MiB")
	}
	const total, chunk = 64 << 20, 1 << 20
	piece := strings.Repeat("x", chunk)
	var groups [][]*structpb.Value
	for range total / chunk {
		groups = append(groups, vals(str(piece)))
	}
	msgs := chunkMsgs(groups...)
	groups, piece = nil, ""
	var m decode.Merger
	var got int
	n := allocBytes(func() {
		for _, b := range msgs {
			if err := m.Load(b); err != nil {
				t.Fatal(err)
			}
			for {
				v, ok, err := m.Next()
				if err != nil {
					t.Fatal(err)
				}
				if !ok {
					break
				}
				got += len(v)
			}
		}
	})
	if got < total {
		t.Fatalf("merged %d bytes, want at least %d", got, total)
	}
	ratio := float64(n) / total
	t.Logf("merging %d MiB in %d chunks allocated %.1f MiB (%.2f x)", total>>20, total/chunk, float64(n)/(1<<20), ratio)
	if ratio > 8 {
		t.Errorf("allocated %.2f x the value size, want at most 8 x", ratio)
	}
}

// TestMergeLinearList checks that a list spread over many messages costs
// the same per element however long it gets: 4x the elements must allocate
// about 4x the bytes (quadratic growth would give 16x).
func TestMergeLinearList(t *testing.T) {
	build := func(msgsN int) [][]byte {
		var groups [][]*structpb.Value
		for i := range msgsN {
			es := make([]*structpb.Value, 100)
			for j := range es {
				es[j] = str(fmt.Sprintf("%08d", i*100+j))
			}
			groups = append(groups, vals(list(es...)))
		}
		return chunkMsgs(groups...)
	}
	cost := func(msgs [][]byte) uint64 {
		return allocBytes(func() {
			if _, err := mergeAll(msgs); err != nil {
				t.Fatal(err)
			}
		})
	}
	small, large := build(100), build(400)
	cs, cl := cost(small), cost(large)
	ratio := float64(cl) / float64(cs)
	t.Logf("10,000 elements: %d bytes; 40,000 elements: %d bytes (ratio %.2f)", cs, cl, ratio)
	if ratio > 5.5 {
		t.Errorf("4x the elements allocated %.2f x the bytes, want about 4", ratio)
	}
}

// nestedList encodes a string wrapped in depth lists, built front to back
// so that deep values cost linear time.
func nestedList(depth int) []byte {
	inner := enc(str("x"))
	s := make([]int, depth+1) // size of the Value at each level
	l := make([]int, depth+1) // size of the ListValue at each level
	s[0] = len(inner)
	for k := 1; k <= depth; k++ {
		l[k] = 1 + protowire.SizeVarint(uint64(s[k-1])) + s[k-1]
		s[k] = 1 + protowire.SizeVarint(uint64(l[k])) + l[k]
	}
	out := make([]byte, 0, s[depth])
	for k := depth; k >= 1; k-- {
		out = protowire.AppendTag(out, 6, protowire.BytesType)
		out = protowire.AppendVarint(out, uint64(l[k]))
		out = protowire.AppendTag(out, 1, protowire.BytesType)
		out = protowire.AppendVarint(out, uint64(s[k-1]))
	}
	return append(out, inner...)
}

// TestMergeDeepNesting: the merge recurses per level of list nesting. A
// chunk nested far beyond any Spanner type must be an error; before the
// depth limit, 400,000 levels (a 2.4 MB message) overflowed a 64 MiB stack,
// a fatal error rather than a panic.
func TestMergeDeepNesting(t *testing.T) {
	defer debug.SetMaxStack(debug.SetMaxStack(64 << 20))
	chunkOf := func(v []byte, chunked bool) []byte {
		b := protowire.AppendTag(nil, 2, protowire.BytesType)
		b = protowire.AppendBytes(b, v)
		if chunked {
			b = protowire.AppendTag(b, 3, protowire.VarintType)
			b = protowire.AppendVarint(b, 1)
		}
		return b
	}
	for _, depth := range []int{100, 10001, 400000} {
		for _, side := range []string{"pending", "continuation"} {
			var msgs [][]byte
			if side == "pending" {
				msgs = [][]byte{chunkOf(nestedList(depth), true), chunkOf(enc(list()), false)}
			} else {
				msgs = [][]byte{chunkOf(enc(list()), true), chunkOf(nestedList(depth), false)}
			}
			got, err := mergeAll(msgs)
			if depth <= 100 {
				if err != nil || len(got) != 1 {
					t.Errorf("depth %d %s: %v", depth, side, err)
				}
				continue
			}
			if !errors.Is(err, decode.ErrMalformed) || status.Code(err) != codes.FailedPrecondition {
				t.Errorf("depth %d %s: err = %v, want a FailedPrecondition ErrMalformed", depth, side, err)
			}
		}
	}
}

// chunkStream cuts values into randomly chunked messages with the fake
// server's splitter (random breaks, chunk points in strings and nested
// lists, empty messages); md goes on the first message.
func chunkStream(values []*structpb.Value, r *rand.Rand, md *spannerpb.ResultSetMetadata) [][]byte {
	rs := &spannerpb.ResultSet{Metadata: md, Rows: []*structpb.ListValue{{Values: values}}}
	var out [][]byte
	for _, m := range fakespanner.Split(rs, fakespanner.SplitOptions{Random: true, Seed: r.Int64()}) {
		out = append(out, prs(m))
	}
	return out
}

// countChunked counts the messages with chunked_value set.
func countChunked(t testing.TB, msgs [][]byte) int {
	n := 0
	for _, b := range msgs {
		var m decode.Message
		if err := m.Scan(b); err != nil {
			t.Fatal(err)
		}
		if m.ChunkedValue {
			n++
		}
	}
	return n
}
