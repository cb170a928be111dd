package decode

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"runtime"
	"strconv"
	"testing"
)

var jsonSeeds = []string{
	`{"a":1,"b":"xyz","c":true}`, `[]`, `{}`, `null`, `true`, `false`, `0`, `-0`, `1e3`, `-1.5E-7`,
	`{"a":[1,2,{"b":null}],"c":{"d":"é日本"}}`, ` { "a" : [ 1 , 2 ] } `, `"a\"b"`, `"\u00e9"`, `"bad \xff"`,
	`01`, `1.`, `.5`, `+1`, `1e`, `[1,]`, `{"a":1,}`, `{"a" 1}`, `[1 2]`, `tru`, `"x`, `{"a":1}x`, `1e400`,
	`{"a":1,"a":2}`, "\"tab\there\"", `[1]`, `[1,"b",null,[]]`, `[1,2,3,4,5]`, `[[1,[2,3,4,5,6]],[],[[]],{"a":[7,8,9,10]}]`,
	`{"active":true,"id":98765,"name":"abcdefgh","tags":["one","two","three"],"score":12.5}`, `[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]`,
}

// FuzzUnmarshalJSON checks the fast JSON path against encoding/json: the
// same value or, for bad input, an error from both.
func FuzzUnmarshalJSON(f *testing.F) {
	for _, s := range jsonSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := unmarshalJSON(b)
		var want any
		wantErr := json.Unmarshal(b, &want)
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("%q: error %v, encoding/json %v", b, err, wantErr)
		}
		if err == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: got %#v, encoding/json %#v", b, got, want)
		}
	})
}

func TestUnmarshalJSONFastPathAllocs(t *testing.T) {
	b := []byte(`{"a":1,"b":"xyz","c":true}`)
	fast := testing.AllocsPerRun(100, func() { unmarshalJSON(b) })
	slow := testing.AllocsPerRun(100, func() { var v any; json.Unmarshal(b, &v) })
	if fast >= slow {
		t.Fatalf("fast path allocates %v, encoding/json %v", fast, slow)
	}
}

// TestUnmarshalJSONSharesMemory: the numbers and strings of a document
// share block memory, so a document of many scalars costs a few
// allocations beyond its maps and slices, and values stay intact after
// the collector runs.
func TestUnmarshalJSONSharesMemory(t *testing.T) {
	scalars := []byte(`[1.5,2,3,"four","five",6,"seven",8,9,"ten",11,12]`)
	nulls := []byte(`[null,null,null,null,null,null,null,null,null,null,null,null]`)
	a := testing.AllocsPerRun(100, func() { _, _ = unmarshalJSON(scalars) })
	base := testing.AllocsPerRun(100, func() { _, _ = unmarshalJSON(nulls) })
	if a-base > 2 {
		t.Errorf("12 scalars: %v allocations beyond the array's own %v, want at most 2", a-base, base)
	}
	var kept []any
	for i := range 200 {
		doc := []byte(fmt.Sprintf(`{"key%d":"value %d","n":%d,"list":["x%d",%d.5,{"deep key":"deep %d"}]}`, i, i, i, i, i, i))
		v, err := unmarshalJSON(doc)
		if err != nil {
			t.Fatal(err)
		}
		kept = append(kept, v)
	}
	runtime.GC()
	for range 1000 {
		_ = make([]byte, 64)
	}
	runtime.GC()
	for i, v := range kept {
		var want any
		doc := fmt.Sprintf(`{"key%d":"value %d","n":%d,"list":["x%d",%d.5,{"deep key":"deep %d"}]}`, i, i, i, i, i, i)
		if err := json.Unmarshal([]byte(doc), &want); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(v, want) {
			t.Fatalf("document %d: %#v, want %#v", i, v, want)
		}
	}
}

// TestSmallJSONInt: integers take the fast path with ParseFloat's exact
// result, the sign of zero included; anything else declines.
func TestSmallJSONInt(t *testing.T) {
	for _, s := range []string{"0", "-0", "1", "-1", "42", "999999999999999", "-999999999999999", "123456789012345"} {
		got, ok := smallJSONInt([]byte(s))
		want, _ := strconv.ParseFloat(s, 64)
		if !ok || got != want || math.Signbit(got) != math.Signbit(want) {
			t.Errorf("%q: %v, %v; ParseFloat %v", s, got, ok, want)
		}
	}
	for _, s := range []string{"1.5", "1e3", "-2E-1", "1234567890123456", "-1234567890123456"} {
		if _, ok := smallJSONInt([]byte(s)); ok {
			t.Errorf("%q took the fast path", s)
		}
	}
}

// TestUnmarshalJSONStringOutlivesBlocks: a string value whose bytes would
// end one block and whose header would start the next must still be whole
// after the collector frees everything but the value itself.
func TestUnmarshalJSONStringOutlivesBlocks(t *testing.T) {
	var kept []any
	for i := range 2000 {
		v, err := unmarshalJSON([]byte(fmt.Sprintf(`"%02d"`, i%100)))
		if err != nil {
			t.Fatal(err)
		}
		kept = append(kept, v)
	}
	for range 3 {
		runtime.GC()
		var junk [][]byte
		for range 20000 {
			b := make([]byte, 8+len(junk)%16)
			for j := range b {
				b[j] = 0xAA
			}
			junk = append(junk, b)
		}
	}
	for i, v := range kept {
		if want := fmt.Sprintf("%02d", i%100); v != want {
			t.Fatalf("document %d: %q, want %q", i, v, want)
		}
	}
}
