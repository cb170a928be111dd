package randrs

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"regexp"
	"strconv"
	"testing"
	"time"
	"unicode/utf8"

	"cloud.google.com/go/spanner"
	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/spannerfast/spannerfast/decode"
)

var (
	reTimestamp = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,9})?Z$`)
	reDate      = regexp.MustCompile(`^\d{4}-\d\d-\d\d$`)
	reNumeric   = regexp.MustCompile(`^-?(0|[1-9]\d{0,28})(\.\d{0,8}[1-9])?$`)
	reUUID      = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)
)

// stats counts interesting cases seen while checking values.
type stats struct {
	codes       map[string]int
	nullElems   int
	emptyArrays int
	nan, inf    int
	negZero     int
	arrStruct   int
	longStrings int
	emptyString int
	fracDigits  map[int]bool
}

// check verifies that v is in Spanner's wire form for t.
func check(t *spannerpb.Type, v *structpb.Value, st *stats, inArray bool) error {
	if _, ok := v.GetKind().(*structpb.Value_NullValue); ok {
		if inArray {
			st.nullElems++
		}
		return nil
	}
	st.codes[t.GetCode().String()]++
	_, isStr := v.GetKind().(*structpb.Value_StringValue)
	s := v.GetStringValue()
	needStr := func() error {
		if !isStr {
			return fmt.Errorf("%s value %v is not a string_value", decode.TypeName(t), v)
		}
		return nil
	}
	switch t.GetCode() {
	case spannerpb.TypeCode_BOOL:
		if _, ok := v.GetKind().(*structpb.Value_BoolValue); !ok {
			return fmt.Errorf("BOOL value %v", v)
		}
	case spannerpb.TypeCode_INT64, spannerpb.TypeCode_ENUM:
		if err := needStr(); err != nil {
			return err
		}
		if _, err := strconv.ParseInt(s, 10, 64); err != nil {
			return err
		}
		if t.GetCode() == spannerpb.TypeCode_ENUM && t.GetProtoTypeFqn() == "" {
			return fmt.Errorf("ENUM without fqn")
		}
	case spannerpb.TypeCode_FLOAT64, spannerpb.TypeCode_FLOAT32:
		switch k := v.GetKind().(type) {
		case *structpb.Value_NumberValue:
			f := k.NumberValue
			if math.IsNaN(f) || math.IsInf(f, 0) {
				return fmt.Errorf("non-finite number_value %v", f)
			}
			if t.GetCode() == spannerpb.TypeCode_FLOAT32 && float64(float32(f)) != f {
				return fmt.Errorf("FLOAT32 value %v not representable", f)
			}
			if f == 0 && math.Signbit(f) {
				st.negZero++
			}
		case *structpb.Value_StringValue:
			switch k.StringValue {
			case "NaN":
				st.nan++
			case "Infinity", "-Infinity":
				st.inf++
			default:
				return fmt.Errorf("float string %q", k.StringValue)
			}
		default:
			return fmt.Errorf("float value %v", v)
		}
	case spannerpb.TypeCode_STRING:
		if err := needStr(); err != nil {
			return err
		}
		if !utf8.ValidString(s) {
			return fmt.Errorf("invalid UTF-8 %q", s)
		}
		if len(s) > 100 {
			st.longStrings++
		}
		if s == "" {
			st.emptyString++
		}
	case spannerpb.TypeCode_BYTES, spannerpb.TypeCode_PROTO:
		if err := needStr(); err != nil {
			return err
		}
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			return err
		}
		if base64.StdEncoding.EncodeToString(b) != s {
			return fmt.Errorf("non-canonical base64 %q", s)
		}
		if t.GetCode() == spannerpb.TypeCode_PROTO && t.GetProtoTypeFqn() == "" {
			return fmt.Errorf("PROTO without fqn")
		}
	case spannerpb.TypeCode_TIMESTAMP:
		if err := needStr(); err != nil {
			return err
		}
		if !reTimestamp.MatchString(s) {
			return fmt.Errorf("timestamp %q", s)
		}
		ts, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			return err
		}
		if ts.Year() < 1 || ts.Year() > 9999 {
			return fmt.Errorf("timestamp year %q", s)
		}
		if i := bytes.IndexByte([]byte(s), '.'); i >= 0 {
			st.fracDigits[len(s)-i-2] = true
		} else {
			st.fracDigits[0] = true
		}
	case spannerpb.TypeCode_DATE:
		if err := needStr(); err != nil {
			return err
		}
		if !reDate.MatchString(s) {
			return fmt.Errorf("date %q", s)
		}
		if _, err := time.Parse("2006-01-02", s); err != nil {
			return err
		}
		if s[:4] == "0000" {
			return fmt.Errorf("date year 0: %q", s)
		}
	case spannerpb.TypeCode_NUMERIC:
		if err := needStr(); err != nil {
			return err
		}
		if !reNumeric.MatchString(s) || s == "-0" {
			return fmt.Errorf("numeric %q", s)
		}
	case spannerpb.TypeCode_JSON:
		if err := needStr(); err != nil {
			return err
		}
		if !json.Valid([]byte(s)) {
			return fmt.Errorf("invalid JSON %q", s)
		}
		var c bytes.Buffer
		if err := json.Compact(&c, []byte(s)); err != nil || c.String() != s {
			return fmt.Errorf("JSON not compact: %q", s)
		}
	case spannerpb.TypeCode_UUID:
		if err := needStr(); err != nil {
			return err
		}
		if !reUUID.MatchString(s) {
			return fmt.Errorf("uuid %q", s)
		}
	case spannerpb.TypeCode_INTERVAL:
		if err := needStr(); err != nil {
			return err
		}
		iv, err := spanner.ParseInterval(s)
		if err != nil {
			return err
		}
		// The official client renders the same canonical text.
		if got := iv.String(); got != s {
			return fmt.Errorf("interval %q re-renders as %q", s, got)
		}
	case spannerpb.TypeCode_ARRAY:
		lv, ok := v.GetKind().(*structpb.Value_ListValue)
		if !ok {
			return fmt.Errorf("ARRAY value %v", v)
		}
		if len(lv.ListValue.GetValues()) == 0 {
			st.emptyArrays++
		}
		if t.GetArrayElementType().GetCode() == spannerpb.TypeCode_STRUCT {
			st.arrStruct++
		}
		for _, e := range lv.ListValue.GetValues() {
			if err := check(t.GetArrayElementType(), e, st, true); err != nil {
				return fmt.Errorf("%s element: %w", decode.TypeName(t), err)
			}
		}
	case spannerpb.TypeCode_STRUCT:
		lv, ok := v.GetKind().(*structpb.Value_ListValue)
		if !ok {
			return fmt.Errorf("STRUCT value %v", v)
		}
		fs := t.GetStructType().GetFields()
		if len(lv.ListValue.GetValues()) != len(fs) {
			return fmt.Errorf("STRUCT with %d fields has %d values", len(fs), len(lv.ListValue.GetValues()))
		}
		for i, e := range lv.ListValue.GetValues() {
			if err := check(fs[i].GetType(), e, st, false); err != nil {
				return fmt.Errorf("%s field %d: %w", decode.TypeName(t), i, err)
			}
		}
	default:
		return fmt.Errorf("unexpected type %v", t)
	}
	return nil
}

func checkRS(t *testing.T, rs *spannerpb.ResultSet, st *stats, topStructs bool) {
	t.Helper()
	fields := rs.GetMetadata().GetRowType().GetFields()
	if len(fields) == 0 {
		t.Fatalf("no columns")
	}
	for _, f := range fields {
		if f.GetType().GetCode() == spannerpb.TypeCode_STRUCT && !topStructs {
			t.Fatalf("top-level STRUCT column without TopLevelStructs")
		}
		if f.GetType().GetCode() == spannerpb.TypeCode_ARRAY &&
			f.GetType().GetArrayElementType().GetCode() == spannerpb.TypeCode_ARRAY {
			t.Fatalf("ARRAY<ARRAY> generated")
		}
	}
	for ri, row := range rs.GetRows() {
		if len(row.GetValues()) != len(fields) {
			t.Fatalf("row %d has %d values, want %d", ri, len(row.GetValues()), len(fields))
		}
		for ci, v := range row.GetValues() {
			if err := check(fields[ci].GetType(), v, st, false); err != nil {
				t.Fatalf("row %d col %d (%s): %v", ri, ci, decode.TypeName(fields[ci].GetType()), err)
			}
		}
	}
}

func newStats() *stats {
	return &stats{codes: map[string]int{}, fracDigits: map[int]bool{}}
}

func TestWireForms(t *testing.T) {
	st := newStats()
	for seed := uint64(0); seed < 400; seed++ {
		r := rand.New(rand.NewPCG(seed, 1))
		rs := ResultSet(r, Options{})
		checkRS(t, rs, st, false)
		// Must be marshalable (valid UTF-8 everywhere).
		if _, err := proto.Marshal(rs); err != nil {
			t.Fatalf("seed %d: marshal: %v", seed, err)
		}
	}
	for _, c := range append(append([]spannerpb.TypeCode{}, ScalarCodes...), spannerpb.TypeCode_ARRAY, spannerpb.TypeCode_STRUCT) {
		if st.codes[c.String()] == 0 {
			t.Errorf("type %v never generated", c)
		}
	}
	for name, n := range map[string]int{
		"NULL array elements": st.nullElems, "empty arrays": st.emptyArrays,
		"NaN": st.nan, "Infinity": st.inf, "-0": st.negZero, "ARRAY<STRUCT>": st.arrStruct,
		"long strings": st.longStrings, "empty strings": st.emptyString,
	} {
		if n == 0 {
			t.Errorf("%s never generated", name)
		}
	}
	for d := 0; d <= 9; d++ {
		if !st.fracDigits[d] {
			t.Errorf("timestamp with %d fraction digits never generated", d)
		}
	}
}

func TestDeterministic(t *testing.T) {
	a := ResultSet(rand.New(rand.NewPCG(7, 7)), Options{})
	b := ResultSet(rand.New(rand.NewPCG(7, 7)), Options{})
	if !proto.Equal(a, b) {
		t.Fatal("same seed gave different result sets")
	}
}

func TestOptions(t *testing.T) {
	st := newStats()
	for seed := uint64(0); seed < 50; seed++ {
		r := rand.New(rand.NewPCG(seed, 2))
		rs := ResultSet(r, Options{
			Types:    []spannerpb.TypeCode{spannerpb.TypeCode_INT64, spannerpb.TypeCode_STRING},
			MinRows:  3,
			MaxRows:  5,
			NullRate: -1,
		})
		checkRS(t, rs, st, false)
		if n := len(rs.Rows); n < 3 || n > 5 {
			t.Fatalf("rows = %d", n)
		}
		for _, f := range rs.Metadata.RowType.Fields {
			if c := f.Type.Code; c != spannerpb.TypeCode_INT64 && c != spannerpb.TypeCode_STRING {
				t.Fatalf("type %v not allowed", c)
			}
		}
		for _, row := range rs.Rows {
			for _, v := range row.Values {
				if _, ok := v.Kind.(*structpb.Value_NullValue); ok {
					t.Fatal("NULL with NullRate < 0")
				}
			}
		}
	}

	// Fixed columns and column counts.
	cols := []*spannerpb.Type{{Code: spannerpb.TypeCode_BOOL}, {Code: spannerpb.TypeCode_ARRAY, ArrayElementType: &spannerpb.Type{Code: spannerpb.TypeCode_DATE}}}
	rs := ResultSet(rand.New(rand.NewPCG(1, 1)), Options{Columns: cols, MinRows: 10, MaxRows: 10})
	if len(rs.Rows) != 10 || len(rs.Metadata.RowType.Fields) != 2 {
		t.Fatalf("got %d rows, %d cols", len(rs.Rows), len(rs.Metadata.RowType.Fields))
	}
	checkRS(t, rs, st, false)
	rs = ResultSet(rand.New(rand.NewPCG(1, 1)), Options{MinColumns: 9, MaxColumns: 9})
	if len(rs.Metadata.RowType.Fields) != 9 {
		t.Fatalf("got %d cols", len(rs.Metadata.RowType.Fields))
	}

	// Top-level structs on request.
	seen := false
	for seed := uint64(0); seed < 200 && !seen; seed++ {
		rs := ResultSet(rand.New(rand.NewPCG(seed, 3)), Options{TopLevelStructs: true})
		checkRS(t, rs, st, true)
		for _, f := range rs.Metadata.RowType.Fields {
			seen = seen || f.Type.Code == spannerpb.TypeCode_STRUCT
		}
	}
	if !seen {
		t.Error("TopLevelStructs never produced a STRUCT column")
	}

	// Only ARRAY listed: arrays of any scalar, plus scalars.
	for seed := uint64(0); seed < 30; seed++ {
		rs := ResultSet(rand.New(rand.NewPCG(seed, 4)), Options{Types: []spannerpb.TypeCode{spannerpb.TypeCode_ARRAY}})
		checkRS(t, rs, st, false)
		for _, f := range rs.Metadata.RowType.Fields {
			if decode.TypeName(f.Type) == "" || f.Type.GetArrayElementType().GetCode() == spannerpb.TypeCode_STRUCT {
				t.Fatalf("unexpected %s", decode.TypeName(f.Type))
			}
		}
	}
}

func TestValueAndType(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	st := newStats()
	for i := 0; i < 200; i++ {
		typ := Type(r, Options{})
		if err := check(typ, Value(r, typ, Options{}), st, false); err != nil {
			t.Fatalf("%s: %v", decode.TypeName(typ), err)
		}
	}
	// Unknown type codes yield NULL rather than a panic.
	v := Value(r, &spannerpb.Type{Code: 99}, Options{NullRate: -1})
	if _, ok := v.Kind.(*structpb.Value_NullValue); !ok {
		t.Fatalf("unknown code gave %v", v)
	}
}

func TestFormatInterval(t *testing.T) {
	for _, c := range []struct {
		months, days int64
		neg          bool
		secs         uint64
		frac         uint32
		want         string
	}{
		{0, 0, false, 0, 0, "P0Y"},
		{14, 3, false, 4*3600 + 5*60 + 6, 5e8, "P1Y2M3DT4H5M6.500S"},
		{-14, -3, true, 4*3600 + 5*60 + 6, 1000, "P-1Y-2M-3DT-4H-5M-6.000001S"},
		{0, 0, true, 0, 1, "PT-0.000000001S"},
		{12, 0, false, 60, 0, "P1YT1M"},
	} {
		got := formatInterval(c.months, c.days, c.neg, c.secs, c.frac)
		if got != c.want {
			t.Errorf("formatInterval = %q, want %q", got, c.want)
		}
		iv, err := spanner.ParseInterval(got)
		if err != nil {
			t.Errorf("official parser rejects %q: %v", got, err)
		} else if iv.String() != got {
			t.Errorf("official client renders %q as %q", got, iv.String())
		}
	}
}

func BenchmarkResultSet(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	for b.Loop() {
		ResultSet(r, Options{MinRows: 100, MaxRows: 100})
	}
}
