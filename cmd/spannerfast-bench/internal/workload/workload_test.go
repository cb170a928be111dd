package workload

import (
	"bytes"
	"fmt"
	"math"
	"math/big"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"cloud.google.com/go/civil"
	"cloud.google.com/go/spanner"
	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"
)

// merge joins a chunked value with its continuation, following the rules
// of protocol.md.
func merge(a, b *structpb.Value) (*structpb.Value, error) {
	switch av := a.Kind.(type) {
	case *structpb.Value_StringValue:
		bv, ok := b.Kind.(*structpb.Value_StringValue)
		if !ok {
			return nil, fmt.Errorf("string chunk continued by %T", b.Kind)
		}
		return structpb.NewStringValue(av.StringValue + bv.StringValue), nil
	case *structpb.Value_ListValue:
		bv, ok := b.Kind.(*structpb.Value_ListValue)
		if !ok {
			return nil, fmt.Errorf("list chunk continued by %T", b.Kind)
		}
		l, r := av.ListValue.Values, bv.ListValue.Values
		if len(l) == 0 || len(r) == 0 {
			return structpb.NewListValue(&structpb.ListValue{Values: append(append([]*structpb.Value{}, l...), r...)}), nil
		}
		last := l[len(l)-1]
		out := append([]*structpb.Value{}, l[:len(l)-1]...)
		switch last.Kind.(type) {
		case *structpb.Value_StringValue, *structpb.Value_ListValue:
			m, err := merge(last, r[0])
			if err != nil {
				return nil, err
			}
			out = append(append(out, m), r[1:]...)
		default:
			out = append(append(out, last), r...)
		}
		return structpb.NewListValue(&structpb.ListValue{Values: out}), nil
	}
	return nil, fmt.Errorf("cannot merge %T", a.Kind)
}

// decodeAll parses the messages with the official protos and returns the
// merged values.
func decodeAll(t *testing.T, w *Workload, msgs []Message) (vals []*structpb.Value, counts []int) {
	t.Helper()
	chunked := false
	for i, m := range msgs {
		var prs spannerpb.PartialResultSet
		if err := proto.Unmarshal(m.Bytes(), &prs); err != nil {
			t.Fatalf("%s message %d: %v", w.Name, i, err)
		}
		if (i == 0) != (prs.Metadata != nil) {
			t.Fatalf("%s message %d: metadata present = %v", w.Name, i, prs.Metadata != nil)
		}
		if i == 0 && !proto.Equal(prs.Metadata, w.Metadata()) {
			t.Fatalf("%s: metadata differs", w.Name)
		}
		if !bytes.Equal(prs.ResumeToken, ResumeToken(i)) {
			t.Fatalf("%s message %d: resume token %x", w.Name, i, prs.ResumeToken)
		}
		if idx, err := TokenIndex(prs.ResumeToken); err != nil || idx != i {
			t.Fatalf("%s message %d: TokenIndex = %d, %v", w.Name, i, idx, err)
		}
		if prs.Last != (i == len(msgs)-1) {
			t.Fatalf("%s message %d: last = %v", w.Name, i, prs.Last)
		}
		if w.Chunked && prs.ChunkedValue != (i < len(msgs)-1) {
			t.Fatalf("%s message %d: chunked_value = %v", w.Name, i, prs.ChunkedValue)
		}
		if !w.Chunked && prs.ChunkedValue {
			t.Fatalf("%s message %d: unexpected chunked_value", w.Name, i)
		}
		v := prs.Values
		counts = append(counts, len(v))
		if chunked && len(v) > 0 {
			m, err := merge(vals[len(vals)-1], v[0])
			if err != nil {
				t.Fatalf("%s message %d: %v", w.Name, i, err)
			}
			vals[len(vals)-1] = m
			v = v[1:]
		}
		vals = append(vals, v...)
		chunked = prs.ChunkedValue
	}
	return vals, counts
}

func cellValue(c Cell) *structpb.Value {
	switch c.Wire {
	case WireNumber:
		return structpb.NewNumberValue(c.F)
	case WireBool:
		return structpb.NewBoolValue(c.B)
	case WireList:
		var l []*structpb.Value
		for _, s := range c.List {
			l = append(l, structpb.NewStringValue(s))
		}
		return structpb.NewListValue(&structpb.ListValue{Values: l})
	}
	return structpb.NewStringValue(c.S)
}

func TestEncodeRoundTrip(t *testing.T) {
	for _, w := range Catalog(0.01) {
		switch w.Name {
		case "narrow-chunked":
			w.Rows = 40_000 // several messages
		case "wide-chunked":
			w.Rows = 5_000
		case "narrow5m":
			continue // TestCyclic
		}
		t.Run(w.Name, func(t *testing.T) {
			msgs, err := w.Encode()
			if err != nil {
				t.Fatal(err)
			}
			total := 0
			for _, m := range msgs {
				total += m.Size()
			}
			if w.Chunked && total > 2*MessageTarget && len(msgs) < 2 {
				t.Fatalf("chunked workload of %d bytes has %d messages", total, len(msgs))
			}
			vals, counts := decodeAll(t, w, msgs)
			for i, m := range msgs[:len(msgs)-1] {
				// A message ends at about MessageTarget bytes or at
				// MaxValuesPerMessage values; cyclic blocks hold a fixed row
				// count, so their sizes vary a little; MessageRows ends
				// them at that many rows.
				full := m.Size() >= MessageTarget*95/100 || counts[i] > MaxValuesPerMessage-2*len(w.Columns) ||
					counts[i] == w.MessageRows*len(w.Columns)
				if !full || m.Size() > MessageTarget+64*1024 || counts[i] > MaxValuesPerMessage+len(w.Columns) {
					t.Fatalf("message %d has %d bytes, %d values", i, m.Size(), counts[i])
				}
			}
			if len(vals) != w.Rows*len(w.Columns) {
				t.Fatalf("got %d values, want %d", len(vals), w.Rows*len(w.Columns))
			}
			for i, v := range vals {
				r, c := i/len(w.Columns), i%len(w.Columns)
				if want := cellValue(w.Cell(r, c)); !proto.Equal(v, want) {
					t.Fatalf("row %d col %d: got %v want %v", r, c, v, want)
				}
			}
		})
	}
}

func TestCyclic(t *testing.T) {
	ws, err := Select("narrow5m", 0.05)
	if err != nil {
		t.Fatal(err)
	}
	w := ws[0]
	p := w.CyclePeriod()
	k := p / cycleMessages
	if w.Rows <= p || w.Rows%k == 0 {
		t.Fatalf("rows %d: want more than the period %d and a short last message", w.Rows, p)
	}
	if !reflect.DeepEqual(w.Cell(3, 1), w.Cell(p+3, 1)) {
		t.Fatal("rows do not repeat after the period")
	}
	msgs, err := w.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != (w.Rows+k-1)/k {
		t.Fatalf("%d messages for %d rows of %d", len(msgs), w.Rows, k)
	}
	if &msgs[1].Body[0] != &msgs[1+cycleMessages].Body[0] {
		t.Fatal("message bodies are not shared")
	}
	// Spot-check whole messages: the first, a repeated one and the last.
	for _, i := range []int{0, 1 + cycleMessages, len(msgs) - 1} {
		var prs spannerpb.PartialResultSet
		if err := proto.Unmarshal(msgs[i].Bytes(), &prs); err != nil {
			t.Fatalf("message %d: %v", i, err)
		}
		if (i == 0) != (prs.Metadata != nil) || prs.Last != (i == len(msgs)-1) || prs.ChunkedValue {
			t.Fatalf("message %d: metadata %v last %v chunked %v", i, prs.Metadata != nil, prs.Last, prs.ChunkedValue)
		}
		if idx, err := TokenIndex(prs.ResumeToken); err != nil || idx != i {
			t.Fatalf("message %d: token index %d, %v", i, idx, err)
		}
		want := min(k, w.Rows-i*k) * len(w.Columns)
		if len(prs.Values) != want {
			t.Fatalf("message %d: %d values, want %d", i, len(prs.Values), want)
		}
		for j, v := range prs.Values {
			r, c := i*k+j/len(w.Columns), j%len(w.Columns)
			if !proto.Equal(v, cellValue(w.Cell(r, c))) {
				t.Fatalf("message %d value %d (row %d col %d) differs", i, j, r, c)
			}
		}
	}
}

// TestWireForms checks the text forms against protocol.md and the Go values.
func TestWireForms(t *testing.T) {
	ws, err := Select("wide", 0.01)
	if err != nil {
		t.Fatal(err)
	}
	w := ws[0]
	for r := 0; r < 200; r++ {
		for col, c := range w.Columns {
			cell, gv := w.Cell(r, col), w.GoValue(r, col)
			switch c.Kind {
			case Int64:
				v, err := strconv.ParseInt(cell.S, 10, 64)
				if err != nil || v != gv.(int64) {
					t.Fatalf("INT64 %q: %v", cell.S, err)
				}
			case Float64:
				if cell.Wire != WireNumber || math.IsNaN(cell.F) || cell.F != gv.(float64) {
					t.Fatalf("FLOAT64 %v", cell)
				}
			case Timestamp:
				ts, err := time.Parse(time.RFC3339Nano, cell.S)
				if err != nil || cell.S[len(cell.S)-1] != 'Z' || !ts.Equal(gv.(time.Time)) {
					t.Fatalf("TIMESTAMP %q: %v", cell.S, err)
				}
			case Date:
				d, err := civil.ParseDate(cell.S)
				if err != nil || d != gv.(civil.Date) || len(cell.S) != 10 {
					t.Fatalf("DATE %q: %v", cell.S, err)
				}
			case Numeric:
				var want big.Rat
				if _, ok := want.SetString(cell.S); !ok {
					t.Fatalf("NUMERIC %q", cell.S)
				}
				got := gv.(big.Rat)
				if got.Cmp(&want) != 0 {
					t.Fatalf("NUMERIC %q", cell.S)
				}
			case JSON:
				if !gv.(spanner.NullJSON).Valid {
					t.Fatalf("JSON %q", cell.S)
				}
			case Bytes:
				if len(cell.S) != 32 || len(gv.([]byte)) != 24 {
					t.Fatalf("BYTES %q", cell.S)
				}
			case ArrayInt64:
				if len(cell.List) != 4 || len(gv.([]spanner.NullInt64)) != 4 {
					t.Fatalf("ARRAY %v", cell.List)
				}
			case String:
				if len(cell.S) != c.Len || gv.(string) != cell.S {
					t.Fatalf("STRING %q", cell.S)
				}
			}
		}
	}
}

func TestSelect(t *testing.T) {
	if _, err := Select("narrow,nope", 1); err == nil {
		t.Fatal("unknown workload accepted")
	}
	ws, err := Select("point, narrow", 1)
	if err != nil || len(ws) != 2 || ws[0].Name != "narrow" {
		t.Fatalf("Select = %v, %v", ws, err)
	}
	all, _ := Select("", 1)
	for _, w := range all {
		if w.Hidden {
			t.Fatal("hidden workload selected by default")
		}
	}
	reads, _ := Select(GroupReads, 1)
	writes, _ := Select(" writes ", 1)
	if len(reads)+len(writes) != len(all) || len(reads) == 0 || len(writes) == 0 {
		t.Fatalf("%d reads + %d writes, %d in all", len(reads), len(writes), len(all))
	}
	for _, w := range writes {
		if !w.Op.Write() || (w.Op == OpApply || w.Op == OpCopyFrom) == (w.SQL != "") || w.Statements < 1 && w.Op != OpTxRead {
			t.Errorf("write workload %s: op %v, SQL %q, %d statements", w.Name, w.Op, w.SQL, w.Statements)
		}
	}
	both, err := Select("reads,insert", 1)
	if err != nil || len(both) != len(reads)+1 {
		t.Errorf("reads,insert: %d workloads, %v", len(both), err)
	}
}

// TestPreloadKeys: the Preload parents are keyed 1 to PreloadParents and
// each run of PreloadChildren children carries its parent's key, so GORM
// attaches every child; the children's SQL is GORM's with the keys bound.
func TestPreloadKeys(t *testing.T) {
	ws, err := Select("gorm-preload-parents,gorm-preload-children", 1)
	if err != nil || len(ws) != 2 {
		t.Fatalf("Select: %v, %v", ws, err)
	}
	parents, children := ws[0], ws[1]
	for r := 0; r < parents.Rows; r++ {
		if got := parents.GoValue(r, 0); got != int64(r+1) {
			t.Fatalf("parent %d: id %v", r, got)
		}
	}
	for r := 0; r < children.Rows; r++ {
		if id, fk := children.GoValue(r, 0), children.GoValue(r, 1); id != int64(r+1) || fk != int64(r/PreloadChildren+1) {
			t.Fatalf("child %d: id %v, singer_id %v", r, id, fk)
		}
	}
	if !strings.HasSuffix(children.SQL, "IN (1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47,48,49,50,51,52,53,54,55,56,57,58,59,60,61,62,63,64,65,66,67,68,69,70,71,72,73,74,75,76,77,78,79,80,81,82,83,84,85,86,87,88,89,90,91,92,93,94,95,96,97,98,99,100)") {
		t.Fatalf("children SQL %q", children.SQL)
	}
}
