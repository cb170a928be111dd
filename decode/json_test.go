package decode

import (
	"encoding/json"
	"reflect"
	"testing"
)

var jsonSeeds = []string{
	`{"a":1,"b":"xyz","c":true}`, `[]`, `{}`, `null`, `true`, `false`, `0`, `-0`, `1e3`, `-1.5E-7`,
	`{"a":[1,2,{"b":null}],"c":{"d":"é日本"}}`, ` { "a" : [ 1 , 2 ] } `, `"a\"b"`, `"\u00e9"`, `"bad \xff"`,
	`01`, `1.`, `.5`, `+1`, `1e`, `[1,]`, `{"a":1,}`, `{"a" 1}`, `[1 2]`, `tru`, `"x`, `{"a":1}x`, `1e400`,
	`{"a":1,"a":2}`, "\"tab\there\"", `[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]`,
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
