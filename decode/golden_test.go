package decode_test

import (
	"bytes"
	"database/sql/driver"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/spannerfast/spannerfast/decode"
)

// Golden fixtures: testdata/NAME.bin holds a result stream as a sequence of
// varint-length-prefixed PartialResultSet messages, exactly as the server
// would send them; testdata/NAME.golden holds the rows decoded from it under
// several option sets. `go test ./decode -run Golden -update` rewrites both
// from the definitions below.

type fixture struct {
	name string
	msgs func() []*spannerpb.PartialResultSet
}

var goldenOptions = []decode.Options{
	{},
	{NativeArrays: true, NumericAsString: true},
}

var fixtures = []fixture{
	{"scalars", scalarFixture},
	{"arrays", arrayFixture},
	{"chunked", chunkedFixture},
	{"postgresql", postgresqlFixture},
}

// scalarFixture: every scalar type, one message, three rows: ordinary
// values, NULLs, and extremes.
func scalarFixture() []*spannerpb.PartialResultSet {
	cols := []*spannerpb.StructType_Field{
		fld("b", tBool), fld("i", tInt64), fld("f64", tFloat64), fld("f32", tFloat32),
		fld("ts", tTimestamp), fld("d", tDate), fld("s", tString), fld("by", tBytes),
		fld("n", tNumeric), fld("j", tJSON), fld("iv", tInterval), fld("u", tUUID),
		fld("p", tProto), fld("e", tEnum), fld("pgn", tPGNumeric),
	}
	rows := [][]*structpb.Value{
		{boolv(true), str("42"), num(3.25), num(-1.5), str("2024-02-29T12:34:56.789Z"), str("2024-02-29"),
			str("héllo"), str("AQID"), str("-123.456"), str(`{"a":[1,2],"b":null}`), str("P1Y2M3DT4H5M6.5S"),
			str(uuidA), str("CgNhYmM="), str("3"), str("1.5")},
		{null(), null(), null(), null(), null(), null(), null(), null(), null(), null(), null(), null(), null(), null(), null()},
		{boolv(false), str("-9223372036854775808"), str("-Infinity"), str("NaN"), str("0001-01-01T00:00:00Z"), str("9999-12-31"),
			str(""), str(""), str(maxNumeric), str(`"text"`), str("PT-0.000001S"),
			str("00000000-0000-0000-0000-000000000000"), str(""), str("0"), str(minNumeric)},
		{boolv(true), str("9223372036854775807"), num(math.Copysign(0, -1)), str("Infinity"), str("9999-12-31T23:59:59.999999999Z"), str("0001-01-01"),
			str("\x00\n\t"), str("/w=="), str("0.000000001"), str("[]"), str("P0Y"),
			str("ffffffff-ffff-ffff-ffff-ffffffffffff"), str("AA=="), str("-1"), str("0")},
	}
	var values []*structpb.Value
	for _, r := range rows {
		values = append(values, r...)
	}
	return []*spannerpb.PartialResultSet{{
		Metadata:    metadataOf(cols...),
		Values:      values,
		ResumeToken: []byte("token-1"),
		Stats:       &spannerpb.ResultSetStats{},
		Last:        true,
	}}
}

// arrayFixture: arrays of every type, STRUCT and ARRAY<STRUCT>, over two
// messages with a row cut between them.
func arrayFixture() []*spannerpb.PartialResultSet {
	cols := []*spannerpb.StructType_Field{fld("id", tInt64)}
	for _, t := range scalarTypes {
		cols = append(cols, fld("a_"+strings.ToLower(t.GetCode().String()), arrayOf(t)))
	}
	cols = append(cols, fld("st", tStruct), fld("ast", arrayOf(tStruct)))
	elems := map[spannerpb.TypeCode][]*structpb.Value{
		spannerpb.TypeCode_BOOL:      {boolv(true), null(), boolv(false)},
		spannerpb.TypeCode_INT64:     {str("1"), null(), str("-9223372036854775808")},
		spannerpb.TypeCode_FLOAT64:   {num(0.5), null(), str("NaN"), str("-Infinity")},
		spannerpb.TypeCode_FLOAT32:   {num(0.25), null(), str("Infinity")},
		spannerpb.TypeCode_TIMESTAMP: {str("2000-02-29T00:00:00.5Z"), null()},
		spannerpb.TypeCode_DATE:      {str("2000-02-29"), null()},
		spannerpb.TypeCode_STRING:    {str("a"), null(), str("")},
		spannerpb.TypeCode_BYTES:     {str("AQID"), null(), str("")},
		spannerpb.TypeCode_NUMERIC:   {str("1.5"), null()},
		spannerpb.TypeCode_JSON:      {str(`{"k":true}`), null()},
		spannerpb.TypeCode_INTERVAL:  {str("P1D"), null()},
		spannerpb.TypeCode_UUID:      {str(uuidA), null()},
		spannerpb.TypeCode_PROTO:     {str("CgNhYmM="), null()},
		spannerpb.TypeCode_ENUM:      {str("2"), null()},
	}
	noNulls := func(vs []*structpb.Value) []*structpb.Value {
		var out []*structpb.Value
		for _, v := range vs {
			if _, isNull := v.GetKind().(*structpb.Value_NullValue); !isNull {
				out = append(out, v)
			}
		}
		return out
	}
	// Rows: no NULL elements; NULL and empty arrays; NULL elements (last,
	// so that NativeArrays decodes two rows before its error).
	structA := list(str("7"), str("seven"), list(num(1.5), null()))
	var row1, row2, row3 []*structpb.Value
	row1 = append(row1, str("3"))
	row2 = append(row2, str("1"))
	row3 = append(row3, str("2"))
	for _, t := range scalarTypes {
		row1 = append(row1, list(elems[t.GetCode()]...))
		row2 = append(row2, list(noNulls(elems[t.GetCode()])...))
		if t.GetCode()%2 == 0 {
			row3 = append(row3, null())
		} else {
			row3 = append(row3, list())
		}
	}
	row1 = append(row1, structA, list(structA, null(), list(null(), null(), null())))
	row2 = append(row2, null(), list())
	row3 = append(row3, list(null(), null(), list()), null())
	all := append(append(append([]*structpb.Value(nil), row2...), row3...), row1...)
	cut := len(row2) + 5 // inside the second row
	return []*spannerpb.PartialResultSet{
		{Metadata: metadataOf(cols...), Values: all[:cut], ResumeToken: []byte("t1")},
		{Values: all[cut:], ResumeToken: []byte("t2"), Last: true},
	}
}

// postgresqlFixture: a PostgreSQL-dialect table's columns as Spanner types
// them (bigint, numeric, jsonb, oid, timestamptz, date, bytea, varchar and
// arrays of each), over two messages with a PG_NUMERIC and a PG_JSONB value
// chunked between them. Rows: values (NaN among them; NULL elements only
// where no native array form exists, so that NativeArrays decodes every
// row), NULLs, extremes.
func postgresqlFixture() []*spannerpb.PartialResultSet {
	cols := []*spannerpb.StructType_Field{
		fld("id", tInt64), fld("n", tPGNumeric), fld("j", tPGJSONB), fld("o", tPGOID),
		fld("ts", tTimestamp), fld("d", tDate), fld("b", tBytes), fld("s", tString),
		fld("an", arrayOf(tPGNumeric)), fld("aj", arrayOf(tPGJSONB)), fld("ao", arrayOf(tPGOID)),
		fld("ats", arrayOf(tTimestamp)), fld("ad", arrayOf(tDate)), fld("ab", arrayOf(tBytes)), fld("ai", arrayOf(tInt64)),
	}
	row1 := vals(str("1"), str("123456789.000000001"), str(`{"k":[1,"two",null],"b":false}`), str("16"),
		str("2024-02-29T12:34:56.789123Z"), str("2024-02-29"), str("3q2+7w=="), str("é"),
		list(str("1.5"), null(), str("NaN")), list(str(`{"k":1}`), null(), str(`"s"`)), list(str("23"), str("24")),
		list(str("2000-01-01T00:00:00Z")), list(str("2000-02-29")), list(str("AQID"), null()), list(str("7")))
	row2 := vals(str("2"), null(), null(), null(), null(), null(), null(), null(), null(), null(), null(), null(), null(), null(), null())
	row3 := vals(str("3"), str("NaN"), str(`null`), str("4294967295"),
		str("0001-01-01T00:00:00Z"), str("9999-12-31"), str(""), str(""),
		list(str("1.5")), list(str("[]")), list(str("0")),
		list(str("9999-12-31T23:59:59.999999999Z")), list(str("0001-01-01")), list(str("")), list(str("-9223372036854775808")))
	all := append(append(append([]*structpb.Value(nil), row1...), row2...), row3...)
	// Row 3's PG_NUMERIC "NaN" and PG_JSONB "null" are each cut in two.
	at := len(row1) + len(row2) + 1
	first := append(append([]*structpb.Value(nil), all[:at]...), str("Na"))
	return []*spannerpb.PartialResultSet{
		{Metadata: metadataOf(cols...), Values: first, ChunkedValue: true, ResumeToken: []byte("t1")},
		{Values: vals(str("N"), str("nu")), ChunkedValue: true},
		{Values: append(vals(str("ll")), all[at+2:]...), ResumeToken: []byte("t3"), Last: true},
	}
}

// chunkedFixture: STRING, BYTES, ARRAY<STRING>, ARRAY<STRUCT> and JSON
// values chunked across ten messages. The rows are:
//
//	1, "The quick brown fox", bytes 0x00..0x29, ["alpha", "beta", NULL, "gamma"],
//	   [{1, "one", [1.5]}, NULL, {2, "two", [0.5, 2]}], {"nested":{"k":[1,2,3]}}
//	2, "second row Kiss", b"", [], [], null
//	3, "", NULL, [""], [], NULL
func chunkedFixture() []*spannerpb.PartialResultSet {
	cols := []*spannerpb.StructType_Field{
		fld("id", tInt64), fld("s", tString), fld("by", tBytes), fld("as", arrayOf(tString)),
		fld("ast", arrayOf(tStruct)), fld("j", tJSON),
	}
	return []*spannerpb.PartialResultSet{
		{Metadata: metadataOf(cols...), Values: vals(str("1"), str("The quick brown ")), ChunkedValue: true},
		{Values: vals(str("fox"), str("AAECAwQFBgcICQoLDA0ODxAR")), ChunkedValue: true},
		{Values: vals(str("EhMUFRYXGBkaGxwdHh8gISIjJCUmJygp"), list(str("alpha"), str("be"))), ChunkedValue: true},
		{Values: vals(list(str("ta"), null(), str("gamma")), list(list(str("1"), str("o")))), ChunkedValue: true, ResumeToken: []byte("t4")},
		{Values: vals(list(list(str("ne"), list(num(1.5))), null(), list(str("2"), str("two"), list(num(0.5))))), ChunkedValue: true},
		{Values: vals(list(list(list(num(2)))), str(`{"nested":{"k":[1,`)), ChunkedValue: true},
		{Values: vals(str(`2,3]}}`), str("2"), str("second row ")), ChunkedValue: true},
		{Values: vals(str("Kiss"), str(""), list(), list(), str("nu")), ChunkedValue: true},
		{Values: vals(str("ll"), str("3"), str(""), null(), list(str(""))), ChunkedValue: true},
		{Values: vals(list(str("")), list(), null()), ResumeToken: []byte("t10"), Last: true},
	}
}

func frameStream(msgs []*spannerpb.PartialResultSet) []byte {
	var out []byte
	for _, m := range msgs {
		out = protowire.AppendBytes(out, prs(m))
	}
	return out
}

func readStream(b []byte) ([][]byte, error) {
	var msgs [][]byte
	for len(b) > 0 {
		m, n := protowire.ConsumeBytes(b)
		if n < 0 {
			return nil, protowire.ParseError(n)
		}
		msgs = append(msgs, m)
		b = b[n:]
	}
	return msgs, nil
}

// renderStream decodes msgs under o and renders every row as text.
func renderStream(msgs [][]byte, o decode.Options) string {
	var b strings.Builder
	fmt.Fprintf(&b, "== options %+v\n", o)
	n := 0
	err := decodeStream(msgs, o, func(p *decode.Plan, row []driver.Value) error {
		fmt.Fprintf(&b, "row %d\n", n)
		for i, c := range p.Columns {
			v := row[i]
			if o.Raw {
				v = safeForm(v)
			}
			fmt.Fprintf(&b, "  %s %s: %s\n", c.Name, c.TypeName, canon(v))
		}
		n++
		return nil
	})
	if err != nil {
		var ce *decode.ColumnError
		if errors.As(err, &ce) {
			fmt.Fprintf(&b, "error in column %d %q: %v\n", ce.Index, ce.Name, err)
		} else {
			fmt.Fprintf(&b, "error: %v\n", err)
		}
	}
	fmt.Fprintf(&b, "%d rows\n", n)
	return b.String()
}

// safeForm is the inverse of rawForm: raw-mode []byte for string-like
// columns back to string. (BYTES columns are []byte in both modes; the test
// compares raw output only for fixtures whose BYTES render the same.)
func safeForm(v driver.Value) driver.Value {
	if b, ok := v.([]byte); ok && b != nil {
		return string(b)
	}
	return v
}

func TestGolden(t *testing.T) {
	for _, fx := range fixtures {
		t.Run(fx.name, func(t *testing.T) {
			binPath := filepath.Join("testdata", fx.name+".bin")
			goldenPath := filepath.Join("testdata", fx.name+".golden")
			if *update {
				if err := os.MkdirAll("testdata", 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(binPath, frameStream(fx.msgs()), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			bin, err := os.ReadFile(binPath)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			msgs, err := readStream(bin)
			if err != nil {
				t.Fatalf("%s: %v", binPath, err)
			}
			var got strings.Builder
			fmt.Fprintf(&got, "# %s: %d PartialResultSet messages, %d bytes\n", binPath, len(msgs), len(bin))
			for _, o := range goldenOptions {
				got.WriteString(renderStream(msgs, o))
			}
			if *update {
				if err := os.WriteFile(goldenPath, []byte(got.String()), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(goldenPath)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if got.String() != string(want) {
				t.Errorf("decoded rows differ from %s (run with -update after checking):\n%s", goldenPath, lineDiff(string(want), got.String()))
			}
			// Raw mode yields the same values once string-like []byte are
			// turned back into strings; BYTES columns are []byte in both.
			for _, o := range goldenOptions {
				safe := renderStream(msgs, o)
				ro := o
				ro.Raw = true
				raw := strings.Replace(renderStream(msgs, ro), fmt.Sprintf("== options %+v", ro), fmt.Sprintf("== options %+v", o), 1)
				if d := lineDiff(normalizeBytes(safe), normalizeBytes(raw)); d != "" {
					t.Errorf("raw mode differs from safe mode under %+v:\n%s", o, d)
				}
			}
		})
	}
}

// normalizeBytes maps []byte renderings of BYTES columns to strings so that
// safe and raw output compare equal (safeForm turns every non-nil []byte
// into a string in raw output).
func normalizeBytes(s string) string {
	var out []string
	for _, line := range strings.Split(s, "\n") {
		if i := strings.Index(line, ": []uint8(\""); i >= 0 {
			line = line[:i] + ": string(" + line[i+len(": []uint8("):]
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}

// lineDiff lists the lines that differ between two texts.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b bytes.Buffer
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			fmt.Fprintf(&b, "line %d:\n  want %s\n   got %s\n", i+1, wl, gl)
		}
	}
	return b.String()
}
