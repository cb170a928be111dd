package params

import (
	"database/sql/driver"
	"testing"

	"cloud.google.com/go/spanner"
	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"
)

// TestPostgreSQLLiterals: on a PostgreSQL database a GenericColumnValue
// typed BOOL or ARRAY whose value is PostgreSQL's text of it is sent as
// the bool or list it means, as go-sql-spanner sends it; text that is not
// such a literal is sent as it is; GoogleSQL (Convert) sends it as it is.
func TestPostgreSQLLiterals(t *testing.T) {
	typ := func(c spannerpb.TypeCode) *spannerpb.Type { return &spannerpb.Type{Code: c} }
	array := func(c spannerpb.TypeCode) *spannerpb.Type {
		return &spannerpb.Type{Code: spannerpb.TypeCode_ARRAY, ArrayElementType: typ(c)}
	}
	for _, c := range []struct {
		typ  *spannerpb.Type
		text string
		want string // the value sent, as JSON; "" for the text unchanged
	}{
		// Booleans: every prefix of true/false/yes/no, on/off, 1/0.
		{typ(spannerpb.TypeCode_BOOL), "t", "true"},
		{typ(spannerpb.TypeCode_BOOL), "TrUe", "true"},
		{typ(spannerpb.TypeCode_BOOL), "  yes  ", "true"},
		{typ(spannerpb.TypeCode_BOOL), "y", "true"},
		{typ(spannerpb.TypeCode_BOOL), "ON", "true"},
		{typ(spannerpb.TypeCode_BOOL), "1", "true"},
		{typ(spannerpb.TypeCode_BOOL), "fals", "false"},
		{typ(spannerpb.TypeCode_BOOL), "n", "false"},
		{typ(spannerpb.TypeCode_BOOL), "No", "false"},
		{typ(spannerpb.TypeCode_BOOL), "of", "false"},
		{typ(spannerpb.TypeCode_BOOL), "off", "false"},
		{typ(spannerpb.TypeCode_BOOL), "0", "false"},
		{typ(spannerpb.TypeCode_BOOL), "o", ""}, // on or off?
		{typ(spannerpb.TypeCode_BOOL), "", ""},
		{typ(spannerpb.TypeCode_BOOL), "true_", ""},
		{typ(spannerpb.TypeCode_BOOL), "yess", ""},
		{typ(spannerpb.TypeCode_INT64), "1", ""}, // only BOOL and ARRAY
		// Arrays.
		{array(spannerpb.TypeCode_INT64), "{1, 2, 3}", `["1","2","3"]`},
		{array(spannerpb.TypeCode_INT64), " { } ", `[]`},
		{array(spannerpb.TypeCode_INT64), "{1,NULL, null }", `["1",null,null]`},
		{array(spannerpb.TypeCode_STRING), `{"foo" ,  "bar"}`, `["foo","bar"]`},
		{array(spannerpb.TypeCode_STRING), "{\n  \"foo\"\r\n,\n  \"bar\"\n}", `["foo","bar"]`},
		{array(spannerpb.TypeCode_STRING), `{"foo", "NULL", NULL}`, `["foo","NULL",null]`},
		{array(spannerpb.TypeCode_STRING), `{foo\,bar,baz}`, `["foo,bar","baz"]`},
		{array(spannerpb.TypeCode_STRING), `{foo\ bar, a b ,"x\"y", " sp "}`, `["foo bar","a b","x\"y"," sp "]`},
		{array(spannerpb.TypeCode_STRING), `{"{a}", ""}`, `["{a}",""]`},
		{array(spannerpb.TypeCode_BOOL), "{t, f, NULL, yes}", `[true,false,null,true]`},
		{array(spannerpb.TypeCode_BOOL), "{true, maybe, false}", ""},
		{array(spannerpb.TypeCode_FLOAT64), `{1.5, " 1.25 ", Infinity, -inf, NaN, +INF}`, `[1.5,1.25,"Infinity","-Infinity","NaN","Infinity"]`},
		{array(spannerpb.TypeCode_FLOAT32), `{-0.5, NULL}`, `[-0.5,null]`},
		{array(spannerpb.TypeCode_FLOAT64), `{1.2, abc, 3.4}`, ""},
		{array(spannerpb.TypeCode_NUMERIC), `{1.5, NaN}`, `["1.5","NaN"]`},
		// Not array literals: sent as text.
		{array(spannerpb.TypeCode_STRING), `{"foo"bar}`, ""},
		{array(spannerpb.TypeCode_STRING), `{"foo}`, ""},
		{array(spannerpb.TypeCode_STRING), `{"foo\"}`, ""},
		{array(spannerpb.TypeCode_STRING), `{foo\}`, ""},
		{array(spannerpb.TypeCode_STRING), `[1, 2, 3]`, ""},
		{array(spannerpb.TypeCode_STRING), `not an array`, ""},
		{array(spannerpb.TypeCode_STRING), `{1, 2, 3`, ""},
		{array(spannerpb.TypeCode_STRING), `1, 2, 3}`, ""},
		{array(spannerpb.TypeCode_STRING), `{1, 2,}`, ""},
		{array(spannerpb.TypeCode_STRING), `{1,,3}`, ""},
		{array(spannerpb.TypeCode_STRING), `{,1}`, ""},
		{array(spannerpb.TypeCode_STRING), `{{1},{2}}`, ""},
		{array(spannerpb.TypeCode_STRING), `{`, ""},
	} {
		in := spanner.GenericColumnValue{Type: c.typ, Value: structpb.NewStringValue(c.text)}
		want := in.Value
		if c.want != "" {
			want = new(structpb.Value)
			if err := protojson.Unmarshal([]byte(c.want), want); err != nil {
				t.Fatal(err)
			}
		}
		for _, named := range []bool{false, true} {
			nv := driver.NamedValue{Ordinal: 1, Value: in}
			if named {
				nv.Value = SpannerNamedArg{NameInQuery: "x", Value: in}
			}
			if err := ConvertPostgreSQL(&nv); err != nil {
				t.Fatalf("%v %q: %v", c.typ, c.text, err)
			}
			got := nv.Value.(*encodedParam)
			if !proto.Equal(got.value, want) || !proto.Equal(got.typ, c.typ) {
				t.Errorf("%v %q (SpannerNamedArg %v): sent %v %v, want %v", c.typ.GetCode(), c.text, named, got.value, got.typ, want)
			}
		}
		nv := driver.NamedValue{Ordinal: 1, Value: in}
		if err := Convert(&nv); err != nil {
			t.Fatal(err)
		}
		if got := nv.Value.(*encodedParam); !proto.Equal(got.value, in.Value) {
			t.Errorf("GoogleSQL %v %q: sent %v, want the text", c.typ.GetCode(), c.text, got.value)
		}
	}
}
