package decode_test

import (
	"database/sql"
	"database/sql/driver"
	"math"
	"math/big"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"cloud.google.com/go/civil"
	"cloud.google.com/go/spanner"
	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"github.com/google/uuid"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/spannerfast/spannerfast/decode"
	"github.com/spannerfast/spannerfast/internal/randrs"
)

// valueCase is one wire value of one column type and the driver.Value that
// safe mode must produce for it. Raw mode must produce the same, except that
// STRING, UUID and NUMERIC-as-text are []byte.
type valueCase struct {
	name string
	typ  *spannerpb.Type
	in   *structpb.Value
	want driver.Value
	opts decode.Options // NativeArrays / NumericAsString; Raw is set by the test
}

func rat(s string) big.Rat {
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		panic("bad rat " + s)
	}
	return *r
}

func utc(y int, mo time.Month, d, h, mi, s, ns int) time.Time {
	return time.Date(y, mo, d, h, mi, s, ns, time.UTC)
}

func newRow(names []string, types []*spannerpb.Type, vals []*structpb.Value) spanner.Row {
	gv := make([]any, len(vals))
	for i := range vals {
		gv[i] = spanner.GenericColumnValue{Type: types[i], Value: vals[i]}
	}
	r, err := spanner.NewRow(names, gv)
	if err != nil {
		panic(err)
	}
	return *r
}

var structRowA = newRow([]string{"id", "name", "scores"},
	[]*spannerpb.Type{tInt64, tString, arrayOf(tFloat64)},
	[]*structpb.Value{str("7"), str("seven"), list(num(1.5), null(), str("NaN"))})

var structRowB = newRow([]string{"id", "name", "scores"},
	[]*spannerpb.Type{tInt64, tString, arrayOf(tFloat64)},
	[]*structpb.Value{null(), null(), null()})

const (
	maxNumeric = "99999999999999999999999999999.999999999"
	minNumeric = "-99999999999999999999999999999.999999999"
)

var scalarCases = []valueCase{
	{name: "bool true", typ: tBool, in: boolv(true), want: true},
	{name: "bool false", typ: tBool, in: boolv(false), want: false},
	{name: "bool null", typ: tBool, in: null(), want: nil},

	{name: "int64 zero", typ: tInt64, in: str("0"), want: int64(0)},
	{name: "int64 negative", typ: tInt64, in: str("-42"), want: int64(-42)},
	{name: "int64 max", typ: tInt64, in: str("9223372036854775807"), want: int64(math.MaxInt64)},
	{name: "int64 min", typ: tInt64, in: str("-9223372036854775808"), want: int64(math.MinInt64)},
	{name: "int64 leading zeros", typ: tInt64, in: str("00000000000000000042"), want: int64(42)},
	{name: "int64 null", typ: tInt64, in: null(), want: nil},

	{name: "float64", typ: tFloat64, in: num(1.5), want: 1.5},
	{name: "float64 negative zero", typ: tFloat64, in: num(math.Copysign(0, -1)), want: math.Copysign(0, -1)},
	{name: "float64 max", typ: tFloat64, in: num(math.MaxFloat64), want: math.MaxFloat64},
	{name: "float64 smallest", typ: tFloat64, in: num(math.SmallestNonzeroFloat64), want: math.SmallestNonzeroFloat64},
	{name: "float64 NaN text", typ: tFloat64, in: str("NaN"), want: math.NaN()},
	{name: "float64 NaN number", typ: tFloat64, in: num(math.NaN()), want: math.NaN()},
	{name: "float64 Infinity", typ: tFloat64, in: str("Infinity"), want: math.Inf(1)},
	{name: "float64 -Infinity", typ: tFloat64, in: str("-Infinity"), want: math.Inf(-1)},
	{name: "float64 null", typ: tFloat64, in: null(), want: nil},

	{name: "float32", typ: tFloat32, in: num(1.25), want: float32(1.25)},
	{name: "float32 negative zero", typ: tFloat32, in: num(math.Copysign(0, -1)), want: float32(math.Copysign(0, -1))},
	{name: "float32 max", typ: tFloat32, in: num(math.MaxFloat32), want: float32(math.MaxFloat32)},
	{name: "float32 NaN", typ: tFloat32, in: str("NaN"), want: float32(math.NaN())},
	{name: "float32 Infinity", typ: tFloat32, in: str("Infinity"), want: float32(math.Inf(1))},
	{name: "float32 -Infinity", typ: tFloat32, in: str("-Infinity"), want: float32(math.Inf(-1))},
	{name: "float32 null", typ: tFloat32, in: null(), want: nil},

	{name: "string", typ: tString, in: str("héllo, 世界"), want: "héllo, 世界"},
	{name: "string empty", typ: tString, in: str(""), want: ""},
	{name: "string control", typ: tString, in: str("a\x00b\nc"), want: "a\x00b\nc"},
	{name: "string long", typ: tString, in: str(strings.Repeat("xyz", 5000)), want: strings.Repeat("xyz", 5000)},
	{name: "string null", typ: tString, in: null(), want: nil},

	{name: "bytes", typ: tBytes, in: str("AQID"), want: []byte{1, 2, 3}},
	{name: "bytes padded", typ: tBytes, in: str("AQI="), want: []byte{1, 2}},
	{name: "bytes padded twice", typ: tBytes, in: str("AQ=="), want: []byte{1}},
	{name: "bytes empty", typ: tBytes, in: str(""), want: []byte{}},
	{name: "bytes all values", typ: tBytes, in: str("AP+A/w=="), want: []byte{0, 0xff, 0x80, 0xff}},
	{name: "bytes null", typ: tBytes, in: null(), want: []byte(nil)},

	{name: "timestamp epoch", typ: tTimestamp, in: str("1970-01-01T00:00:00Z"), want: utc(1970, 1, 1, 0, 0, 0, 0)},
	{name: "timestamp year 0001", typ: tTimestamp, in: str("0001-01-01T00:00:00Z"), want: utc(1, 1, 1, 0, 0, 0, 0)},
	{name: "timestamp year 9999", typ: tTimestamp, in: str("9999-12-31T23:59:59.999999999Z"), want: utc(9999, 12, 31, 23, 59, 59, 999999999)},
	{name: "timestamp leap day", typ: tTimestamp, in: str("2024-02-29T12:34:56Z"), want: utc(2024, 2, 29, 12, 34, 56, 0)},
	{name: "timestamp leap day 2000", typ: tTimestamp, in: str("2000-02-29T00:00:00Z"), want: utc(2000, 2, 29, 0, 0, 0, 0)},
	{name: "timestamp before epoch", typ: tTimestamp, in: str("1969-12-31T23:59:59.5Z"), want: utc(1969, 12, 31, 23, 59, 59, 500000000)},
	{name: "timestamp null", typ: tTimestamp, in: null(), want: nil},

	// DATE is its text, as go-sql-spanner returns it (checked first).
	{name: "date", typ: tDate, in: str("2023-06-15"), want: "2023-06-15"},
	{name: "date year 0001", typ: tDate, in: str("0001-01-01"), want: "0001-01-01"},
	{name: "date year 9999", typ: tDate, in: str("9999-12-31"), want: "9999-12-31"},
	{name: "date leap day", typ: tDate, in: str("2024-02-29"), want: "2024-02-29"},
	{name: "date leap day 2000", typ: tDate, in: str("2000-02-29"), want: "2000-02-29"},
	{name: "date null", typ: tDate, in: null(), want: nil},

	{name: "uuid", typ: tUUID, in: str("0b6f7d46-9c4e-4f0e-8c59-2a4f3c1d9e77"), want: "0b6f7d46-9c4e-4f0e-8c59-2a4f3c1d9e77"},
	{name: "uuid null", typ: tUUID, in: null(), want: nil},

	{name: "numeric integer", typ: tNumeric, in: str("123"), want: rat("123")},
	{name: "numeric fraction", typ: tNumeric, in: str("-1.5"), want: rat("-3/2")},
	{name: "numeric zero", typ: tNumeric, in: str("0"), want: rat("0")},
	{name: "numeric tiny", typ: tNumeric, in: str("0.000000001"), want: rat("1/1000000000")},
	{name: "numeric max", typ: tNumeric, in: str(maxNumeric), want: rat(maxNumeric)},
	{name: "numeric min", typ: tNumeric, in: str(minNumeric), want: rat(minNumeric)},
	{name: "numeric null", typ: tNumeric, in: null(), want: nil},
	{name: "pg numeric", typ: tPGNumeric, in: str("2.25"), want: "2.25"},
	{name: "pg numeric NaN", typ: tPGNumeric, in: str("NaN"), want: "NaN"},
	{name: "pg numeric null", typ: tPGNumeric, in: null(), want: nil},

	{name: "numeric as string", typ: tNumeric, in: str(maxNumeric), want: maxNumeric, opts: decode.Options{NumericAsString: true}},
	{name: "numeric as string min", typ: tNumeric, in: str(minNumeric), want: minNumeric, opts: decode.Options{NumericAsString: true}},
	{name: "numeric as string null", typ: tNumeric, in: null(), want: nil, opts: decode.Options{NumericAsString: true}},
	{name: "pg numeric NaN as string", typ: tPGNumeric, in: str("NaN"), want: "NaN", opts: decode.Options{NumericAsString: true}},

	{name: "json object", typ: tJSON, in: str(`{"a":1,"b":[true,null,"x"]}`), want: spanner.NullJSON{Value: map[string]any{"a": 1.0, "b": []any{true, nil, "x"}}, Valid: true}},
	{name: "json literal null", typ: tJSON, in: str(`null`), want: spanner.NullJSON{Value: nil, Valid: true}},
	{name: "json string", typ: tJSON, in: str(`"s"`), want: spanner.NullJSON{Value: "s", Valid: true}},
	{name: "json null", typ: tJSON, in: null(), want: spanner.NullJSON{}},
	{name: "pg jsonb", typ: tPGJSONB, in: str(`[1]`), want: spanner.PGJsonB{Value: []any{1.0}, Valid: true}},
	{name: "pg jsonb null", typ: tPGJSONB, in: null(), want: spanner.PGJsonB{}},

	{name: "interval", typ: tInterval, in: str("P1Y2M3DT4H5M6.5S"), want: spanner.Interval{Months: 14, Days: 3, Nanos: big.NewInt(14706500000000)}},
	{name: "interval negative", typ: tInterval, in: str("P-1Y-2M"), want: spanner.Interval{Months: -14, Nanos: big.NewInt(0)}},
	{name: "interval micros", typ: tInterval, in: str("PT-4H-5M-6.000001S"), want: spanner.Interval{Nanos: big.NewInt(-14706000001000)}},
	{name: "interval zero", typ: tInterval, in: str("P0Y"), want: spanner.Interval{Nanos: big.NewInt(0)}},
	{name: "interval null", typ: tInterval, in: null(), want: nil},

	{name: "enum", typ: tEnum, in: str("3"), want: int64(3)},
	{name: "enum null", typ: tEnum, in: null(), want: nil},
	{name: "proto", typ: tProto, in: str("CgNhYmM="), want: []byte("\n\x03abc")},
	{name: "proto null", typ: tProto, in: null(), want: []byte(nil)},

	{name: "struct", typ: tStruct, in: list(str("7"), str("seven"), list(num(1.5), null(), str("NaN"))), want: spanner.NullRow{Row: structRowA, Valid: true}},
	{name: "struct null fields", typ: tStruct, in: list(null(), null(), null()), want: spanner.NullRow{Row: structRowB, Valid: true}},
	{name: "struct null", typ: tStruct, in: null(), want: nil},
}

// timestampFractionCases covers 0 to 9 fraction digits.
var timestampFractionCases = func() []valueCase {
	var cs []valueCase
	const digits = "123456789"
	for n := 0; n <= 9; n++ {
		s := "2023-06-15T10:20:30"
		ns := 0
		if n > 0 {
			s += "." + digits[:n]
			ns, _ = strconv.Atoi(digits[:n])
			for range 9 - n {
				ns *= 10
			}
		}
		cs = append(cs, valueCase{
			name: "timestamp " + strconv.Itoa(n) + " fraction digits",
			typ:  tTimestamp, in: str(s + "Z"), want: utc(2023, 6, 15, 10, 20, 30, ns),
		})
	}
	return cs
}()

func nb(b bool) spanner.NullBool         { return spanner.NullBool{Bool: b, Valid: true} }
func ni(n int64) spanner.NullInt64       { return spanner.NullInt64{Int64: n, Valid: true} }
func nf(f float64) spanner.NullFloat64   { return spanner.NullFloat64{Float64: f, Valid: true} }
func nf32(f float32) spanner.NullFloat32 { return spanner.NullFloat32{Float32: f, Valid: true} }
func ns(s string) spanner.NullString     { return spanner.NullString{StringVal: s, Valid: true} }
func nd(y int, m time.Month, d int) spanner.NullDate {
	return spanner.NullDate{Date: civil.Date{Year: y, Month: m, Day: d}, Valid: true}
}
func nt(t time.Time) spanner.NullTime { return spanner.NullTime{Time: t, Valid: true} }
func nn(s string) spanner.NullNumeric { return spanner.NullNumeric{Numeric: rat(s), Valid: true} }
func nu(s string) spanner.NullUUID    { return spanner.NullUUID{UUID: uuid.MustParse(s), Valid: true} }
func nj(v any) spanner.NullJSON       { return spanner.NullJSON{Value: v, Valid: true} }
func nv(iv spanner.Interval) spanner.NullInterval {
	return spanner.NullInterval{Interval: iv, Valid: true}
}

const uuidA = "0b6f7d46-9c4e-4f0e-8c59-2a4f3c1d9e77"

var native = decode.Options{NativeArrays: true}

var arrayCases = []valueCase{
	{name: "array bool", typ: arrayOf(tBool), in: list(boolv(true), null(), boolv(false)), want: []spanner.NullBool{nb(true), {}, nb(false)}},
	{name: "array int64", typ: arrayOf(tInt64), in: list(str("1"), null(), str("-9223372036854775808")), want: []spanner.NullInt64{ni(1), {}, ni(math.MinInt64)}},
	{name: "array float64", typ: arrayOf(tFloat64), in: list(num(1.5), null(), str("NaN"), str("-Infinity"), num(math.Copysign(0, -1))), want: []spanner.NullFloat64{nf(1.5), {}, nf(math.NaN()), nf(math.Inf(-1)), nf(math.Copysign(0, -1))}},
	{name: "array float32", typ: arrayOf(tFloat32), in: list(num(0.5), null(), str("Infinity")), want: []spanner.NullFloat32{nf32(0.5), {}, nf32(float32(math.Inf(1)))}},
	{name: "array string", typ: arrayOf(tString), in: list(str("a"), null(), str("")), want: []spanner.NullString{ns("a"), {}, ns("")}},
	{name: "array bytes", typ: arrayOf(tBytes), in: list(str("AQID"), null(), str("")), want: [][]byte{{1, 2, 3}, nil, {}}},
	{name: "array date", typ: arrayOf(tDate), in: list(str("2024-02-29"), null(), str("0001-01-01")), want: []spanner.NullDate{nd(2024, 2, 29), {}, nd(1, 1, 1)}},
	{name: "array timestamp", typ: arrayOf(tTimestamp), in: list(str("9999-12-31T23:59:59.999999999Z"), null()), want: []spanner.NullTime{nt(utc(9999, 12, 31, 23, 59, 59, 999999999)), {}}},
	{name: "array numeric", typ: arrayOf(tNumeric), in: list(str(maxNumeric), null(), str("-0.5")), want: []spanner.NullNumeric{nn(maxNumeric), {}, nn("-1/2")}},
	{name: "array numeric as string", typ: arrayOf(tNumeric), in: list(str("1.5"), null()), want: []spanner.NullNumeric{nn("3/2"), {}}, opts: decode.Options{NumericAsString: true}},
	{name: "array pg numeric", typ: arrayOf(tPGNumeric), in: list(str("1.5"), null(), str("NaN")), want: []spanner.PGNumeric{{Numeric: "1.5", Valid: true}, {}, {Numeric: "NaN", Valid: true}}},
	{name: "array pg jsonb", typ: arrayOf(tPGJSONB), in: list(str(`{"k":1}`), null()), want: []spanner.PGJsonB{{Value: map[string]any{"k": 1.0}, Valid: true}, {}}},
	{name: "array json", typ: arrayOf(tJSON), in: list(str(`{"k":"v"}`), null(), str("null")), want: []spanner.NullJSON{nj(map[string]any{"k": "v"}), {}, nj(nil)}},
	{name: "array uuid", typ: arrayOf(tUUID), in: list(str(uuidA), null()), want: []spanner.NullUUID{nu(uuidA), {}}},
	{name: "array interval", typ: arrayOf(tInterval), in: list(str("P1D"), null()), want: []spanner.NullInterval{nv(spanner.Interval{Days: 1, Nanos: big.NewInt(0)}), {}}},
	{name: "array enum", typ: arrayOf(tEnum), in: list(str("2"), null()), want: []spanner.NullInt64{ni(2), {}}},
	{name: "array proto", typ: arrayOf(tProto), in: list(str("CgNhYmM="), null()), want: [][]byte{[]byte("\n\x03abc"), nil}},
	{name: "array struct", typ: arrayOf(tStruct), in: list(list(str("7"), str("seven"), list(num(1.5), null(), str("NaN"))), null(), list(null(), null(), null())),
		want: []spanner.NullRow{{Row: structRowA, Valid: true}, {}, {Row: structRowB, Valid: true}}},

	{name: "array int64 empty", typ: arrayOf(tInt64), in: list(), want: []spanner.NullInt64{}},
	{name: "array string empty", typ: arrayOf(tString), in: list(), want: []spanner.NullString{}},
	{name: "array bytes empty", typ: arrayOf(tBytes), in: list(), want: [][]byte{}},
	{name: "array struct empty", typ: arrayOf(tStruct), in: list(), want: []spanner.NullRow{}},

	{name: "array bool null", typ: arrayOf(tBool), in: null(), want: []spanner.NullBool(nil)},
	{name: "array int64 null", typ: arrayOf(tInt64), in: null(), want: []spanner.NullInt64(nil)},
	{name: "array float64 null", typ: arrayOf(tFloat64), in: null(), want: []spanner.NullFloat64(nil)},
	{name: "array float32 null", typ: arrayOf(tFloat32), in: null(), want: []spanner.NullFloat32(nil)},
	{name: "array string null", typ: arrayOf(tString), in: null(), want: []spanner.NullString(nil)},
	{name: "array bytes null", typ: arrayOf(tBytes), in: null(), want: [][]byte(nil)},
	{name: "array date null", typ: arrayOf(tDate), in: null(), want: []spanner.NullDate(nil)},
	{name: "array timestamp null", typ: arrayOf(tTimestamp), in: null(), want: []spanner.NullTime(nil)},
	{name: "array numeric null", typ: arrayOf(tNumeric), in: null(), want: []spanner.NullNumeric(nil)},
	{name: "array json null", typ: arrayOf(tJSON), in: null(), want: []spanner.NullJSON(nil)},
	{name: "array uuid null", typ: arrayOf(tUUID), in: null(), want: []spanner.NullUUID(nil)},
	{name: "array interval null", typ: arrayOf(tInterval), in: null(), want: []spanner.NullInterval(nil)},
	{name: "array struct null", typ: arrayOf(tStruct), in: null(), want: []spanner.NullRow(nil)},

	{name: "native bool", typ: arrayOf(tBool), in: list(boolv(true), boolv(false)), want: []bool{true, false}, opts: native},
	{name: "native int64", typ: arrayOf(tInt64), in: list(str("1"), str("9223372036854775807")), want: []int64{1, math.MaxInt64}, opts: native},
	{name: "native enum", typ: arrayOf(tEnum), in: list(str("1")), want: []int64{1}, opts: native},
	{name: "native float64", typ: arrayOf(tFloat64), in: list(num(2.5), str("NaN")), want: []float64{2.5, math.NaN()}, opts: native},
	{name: "native float32", typ: arrayOf(tFloat32), in: list(num(2.5), str("-Infinity")), want: []float32{2.5, float32(math.Inf(-1))}, opts: native},
	{name: "native string", typ: arrayOf(tString), in: list(str("a"), str("")), want: []string{"a", ""}, opts: native},
	{name: "native date", typ: arrayOf(tDate), in: list(str("2024-02-29")), want: []civil.Date{{Year: 2024, Month: 2, Day: 29}}, opts: native},
	{name: "native timestamp", typ: arrayOf(tTimestamp), in: list(str("0001-01-01T00:00:00Z")), want: []time.Time{utc(1, 1, 1, 0, 0, 0, 0)}, opts: native},
	// go-sql-spanner has no native form of NUMERIC arrays: NULL elements stay.
	{name: "native numeric", typ: arrayOf(tNumeric), in: list(str("1.25"), null()), want: []spanner.NullNumeric{nn("5/4"), {}}, opts: native},
	{name: "native numeric as string", typ: arrayOf(tNumeric), in: list(str("1.25")), want: []spanner.NullNumeric{nn("5/4")}, opts: decode.Options{NativeArrays: true, NumericAsString: true}},
	{name: "native pg numeric", typ: arrayOf(tPGNumeric), in: list(null()), want: []spanner.PGNumeric{{}}, opts: native},
	{name: "native uuid", typ: arrayOf(tUUID), in: list(str(uuidA)), want: []uuid.UUID{uuid.MustParse(uuidA)}, opts: native},
	{name: "native uuid null", typ: arrayOf(tUUID), in: null(), want: []uuid.UUID(nil), opts: native},
	{name: "native date null", typ: arrayOf(tDate), in: null(), want: []civil.Date(nil), opts: native},
	{name: "native proto", typ: arrayOf(tProto), in: list(str("CgNhYmM="), null()), want: [][]byte{[]byte("\n\x03abc"), nil}, opts: native},
	{name: "native enum null", typ: arrayOf(tEnum), in: null(), want: []int64(nil), opts: native},
	{name: "native interval stays nullable", typ: arrayOf(tInterval), in: list(null()), want: []spanner.NullInterval{{}}, opts: native},
	{name: "native struct stays nullable", typ: arrayOf(tStruct), in: list(null()), want: []spanner.NullRow{{}}, opts: native},
	{name: "native bytes keeps nil", typ: arrayOf(tBytes), in: list(str("AQID"), null()), want: [][]byte{{1, 2, 3}, nil}, opts: native},
	{name: "native json stays nullable", typ: arrayOf(tJSON), in: list(null()), want: []spanner.NullJSON{{}}, opts: native},
	{name: "native int64 empty", typ: arrayOf(tInt64), in: list(), want: []int64{}, opts: native},
	{name: "native int64 null", typ: arrayOf(tInt64), in: null(), want: []int64(nil), opts: native},
	{name: "native string null", typ: arrayOf(tString), in: null(), want: []string(nil), opts: native},
}

// pgCases: the types a PostgreSQL-dialect database annotates, as
// go-sql-spanner returns them. PG_NUMERIC is its text (NaN included)
// whatever decode_numeric_to_string says, PG_JSONB is spanner.PGJsonB
// (NULL too), PG_OID is INT64; arrays are []spanner.PGNumeric,
// []spanner.PGJsonB (neither has a native form) and INT64's.
var pgCases = []valueCase{
	{name: "pg numeric big", typ: tPGNumeric, in: str("-123456789012345678901234567890.123456789"), want: "-123456789012345678901234567890.123456789"},
	{name: "pg numeric NaN native", typ: tPGNumeric, in: str("NaN"), want: "NaN", opts: native},
	{name: "pg jsonb object", typ: tPGJSONB, in: str(`{"a":[1,"x",null],"b":true}`), want: spanner.PGJsonB{Value: map[string]any{"a": []any{1.0, "x", nil}, "b": true}, Valid: true}},
	{name: "pg jsonb long", typ: tPGJSONB, in: str(`{"active":true,"id":98765,"name":"abcdefgh","tags":["one","two","three"],"score":12.5}`), want: spanner.PGJsonB{Value: map[string]any{"active": true, "id": 98765.0, "name": "abcdefgh", "tags": []any{"one", "two", "three"}, "score": 12.5}, Valid: true}},
	{name: "pg jsonb json null", typ: tPGJSONB, in: str(`null`), want: spanner.PGJsonB{Value: nil, Valid: true}},
	{name: "pg oid", typ: tPGOID, in: str("4294967295"), want: int64(4294967295)},
	{name: "pg oid null", typ: tPGOID, in: null(), want: nil},
	{name: "array pg oid", typ: arrayOf(tPGOID), in: list(str("16"), null()), want: []spanner.NullInt64{{Int64: 16, Valid: true}, {}}},
	{name: "native pg oid", typ: arrayOf(tPGOID), in: list(str("16"), str("23")), want: []int64{16, 23}, opts: native},
	{name: "array pg numeric null", typ: arrayOf(tPGNumeric), in: null(), want: []spanner.PGNumeric(nil)},
	{name: "array pg numeric as string", typ: arrayOf(tPGNumeric), in: list(str("NaN")), want: []spanner.PGNumeric{{Numeric: "NaN", Valid: true}}, opts: decode.Options{NumericAsString: true}},
	{name: "array pg jsonb null", typ: arrayOf(tPGJSONB), in: null(), want: []spanner.PGJsonB(nil)},
	{name: "native pg jsonb stays PGJsonB", typ: arrayOf(tPGJSONB), in: list(str(`"s"`), null()), want: []spanner.PGJsonB{{Value: "s", Valid: true}, {}}, opts: native},
}

func allValueCases() []valueCase {
	cs := append([]valueCase(nil), scalarCases...)
	cs = append(cs, pgCases...)
	cs = append(cs, timestampFractionCases...)
	return append(cs, arrayCases...)
}

// rawForm is the raw-mode counterpart of a safe-mode value: string-like
// columns come back as []byte aliasing the message.
func rawForm(t *spannerpb.Type, o decode.Options, v driver.Value) driver.Value {
	s, ok := v.(string)
	if !ok {
		return v
	}
	switch t.GetCode() {
	case spannerpb.TypeCode_STRING, spannerpb.TypeCode_UUID, spannerpb.TypeCode_DATE:
		return []byte(s)
	case spannerpb.TypeCode_NUMERIC:
		if o.NumericAsString || t.GetTypeAnnotation() == spannerpb.TypeAnnotationCode_PG_NUMERIC {
			return []byte(s)
		}
	}
	return v
}

func TestDecodeValues(t *testing.T) {
	for _, c := range allValueCases() {
		t.Run(c.name, func(t *testing.T) {
			in := enc(c.in)
			var scanned [2]string // canon of the ScanType values, safe and raw
			for i, raw := range []bool{false, true} {
				o := c.opts
				o.Raw = raw
				got, err := decodeOne(t, o, c.typ, in)
				if err != nil {
					t.Fatalf("raw=%v: %v", raw, err)
				}
				want := c.want
				if raw {
					want = rawForm(c.typ, o, want)
				}
				if g, w := canon(got), canon(want); g != w {
					t.Errorf("raw=%v:\n got %s\nwant %s", raw, g, w)
				}
				// database/sql must be able to scan the value into the
				// column's ScanType, with the same result in both modes.
				sv, err := scanAsScanType(t, o, c.typ, in)
				if err != nil {
					t.Errorf("raw=%v: Scan into ScanType: %v", raw, err)
				}
				scanned[i] = canon(sv)
			}
			if scanned[0] != scanned[1] && !sameUUID(scanned[0], scanned[1]) {
				t.Errorf("ScanType results differ:\nsafe %s\n raw %s", scanned[0], scanned[1])
			}
		})
	}
}

// sameUUID accepts the two UUID ScanTypes (spanner.NullUUID in safe mode,
// uuid.NullUUID in raw mode) holding the same value.
func sameUUID(safe, raw string) bool {
	return strings.HasPrefix(safe, "spanner.NullUUID{") &&
		strings.TrimPrefix(safe, "spanner.") == strings.TrimPrefix(raw, "uuid.")
}

// TestScanTargets scans through database/sql into the destinations users of
// go-sql-spanner write, in both modes.
func TestScanTargets(t *testing.T) {
	type target struct {
		name string
		typ  *spannerpb.Type
		in   *structpb.Value
		dest func() any
		want string // canon of the dereferenced destination
		opts decode.Options
		// safeOnly: raw mode hands STRING over as []byte, which
		// spanner.NullString.Scan does not accept (a raw-mode limitation).
		safeOnly bool
	}
	targets := []target{
		{"date into *any", tDate, str("9999-12-31"), func() any { return new(any) }, "", decode.Options{}, false},
		{"string into *string", tString, str("héllo"), func() any { return new(string) }, canon("héllo"), decode.Options{}, false},
		{"string into *sql.NullString", tString, str("x"), func() any { return new(sql.NullString) }, canon(sql.NullString{String: "x", Valid: true}), decode.Options{}, false},
		{"string into *[]byte", tString, str("x"), func() any { return new([]byte) }, canon([]byte("x")), decode.Options{}, false},
		{"string into *spanner.NullString", tString, str("x"), func() any { return new(spanner.NullString) }, canon(ns("x")), decode.Options{}, true},
		{"null string into *sql.NullString", tString, null(), func() any { return new(sql.NullString) }, canon(sql.NullString{}), decode.Options{}, false},
		{"date into *civil.Date", tDate, str("2024-02-29"), func() any { return new(civil.Date) }, canon(civil.Date{Year: 2024, Month: 2, Day: 29}), decode.Options{}, false},
		{"date into *spanner.NullDate", tDate, str("0001-01-01"), func() any { return new(spanner.NullDate) }, canon(nd(1, 1, 1)), decode.Options{}, false},
		{"date into *string", tDate, str("2024-02-29"), func() any { return new(string) }, canon("2024-02-29"), decode.Options{}, false},
		{"date into *sql.NullString", tDate, str("2024-02-29"), func() any { return new(sql.NullString) }, canon(sql.NullString{String: "2024-02-29", Valid: true}), decode.Options{}, false},
		{"date into **civil.Date", tDate, str("2024-02-29"), func() any { return new(*civil.Date) }, canon(&civil.Date{Year: 2024, Month: 2, Day: 29}), decode.Options{}, false},
		{"null date into **civil.Date", tDate, null(), func() any { p := &civil.Date{Year: 1}; return &p }, canon((*civil.Date)(nil)), decode.Options{}, false},
		{"null date into *spanner.NullDate", tDate, null(), func() any { return &spanner.NullDate{Valid: true} }, canon(spanner.NullDate{}), decode.Options{}, false},
		{"uuid into *uuid.UUID", tUUID, str(uuidA), func() any { return new(uuid.UUID) }, canon(uuid.MustParse(uuidA)), decode.Options{}, false},
		{"uuid into *string", tUUID, str(uuidA), func() any { return new(string) }, canon(uuidA), decode.Options{}, false},
		{"numeric into *spanner.NullNumeric", tNumeric, str("1.5"), func() any { return new(spanner.NullNumeric) }, canon(nn("3/2")), decode.Options{}, false},
		{"numeric into *big.Rat", tNumeric, str("1.5"), func() any { return new(big.Rat) }, canon(rat("3/2")), decode.Options{}, false},
		{"numeric text into *string", tNumeric, str("1.5"), func() any { return new(string) }, canon("1.5"), decode.Options{NumericAsString: true}, false},
		{"int64 into *int64", tInt64, str("-7"), func() any { return new(int64) }, canon(int64(-7)), decode.Options{}, false},
		{"int64 into *spanner.NullInt64", tInt64, str("-7"), func() any { return new(spanner.NullInt64) }, canon(ni(-7)), decode.Options{}, false},
		{"int64 into *string", tInt64, str("-7"), func() any { return new(string) }, canon("-7"), decode.Options{}, false},
		{"float64 into *float64", tFloat64, str("Infinity"), func() any { return new(float64) }, canon(math.Inf(1)), decode.Options{}, false},
		{"float32 into *float32", tFloat32, num(0.5), func() any { return new(float32) }, canon(float32(0.5)), decode.Options{}, false},
		{"timestamp into *time.Time", tTimestamp, str("2024-02-29T01:02:03.123Z"), func() any { return new(time.Time) }, canon(utc(2024, 2, 29, 1, 2, 3, 123000000)), decode.Options{}, false},
		{"timestamp into *spanner.NullTime", tTimestamp, str("2024-02-29T01:02:03Z"), func() any { return new(spanner.NullTime) }, canon(nt(utc(2024, 2, 29, 1, 2, 3, 0))), decode.Options{}, false},
		{"bytes into *[]byte", tBytes, str("AQID"), func() any { return new([]byte) }, canon([]byte{1, 2, 3}), decode.Options{}, false},
		{"null bytes into *[]byte", tBytes, null(), func() any { return new([]byte) }, canon([]byte(nil)), decode.Options{}, false},
		{"bool into *bool", tBool, boolv(true), func() any { return new(bool) }, canon(true), decode.Options{}, false},
		{"json into *spanner.NullJSON", tJSON, str(`{"a":[1]}`), func() any { return new(spanner.NullJSON) }, canon(nj(map[string]any{"a": []any{1.0}})), decode.Options{}, false},
		{"interval into *spanner.Interval", tInterval, str("P1D"), func() any { return new(spanner.Interval) }, canon(spanner.Interval{Days: 1, Nanos: big.NewInt(0)}), decode.Options{}, false},
		{"array into *[]spanner.NullInt64", arrayOf(tInt64), list(str("1"), null()), func() any { return new([]spanner.NullInt64) }, canon([]spanner.NullInt64{ni(1), {}}), decode.Options{}, false},
		{"native array into *[]int64", arrayOf(tInt64), list(str("1")), func() any { return new([]int64) }, canon([]int64{1}), native, false},
		{"any", tString, str("x"), func() any { return new(any) }, "", decode.Options{}, false},
	}
	for _, tt := range targets {
		t.Run(tt.name, func(t *testing.T) {
			for _, raw := range []bool{false, true} {
				if raw && tt.safeOnly {
					continue
				}
				o := tt.opts
				o.Raw = raw
				p := mustPlan(t, o, fld("c", tt.typ))
				d := decode.NewRowDecoder(p, false)
				in := enc(tt.in)
				dest := tt.dest()
				if err := sqlScan(1, func(dv []driver.Value) error { return d.Decode([][]byte{in}, dv) }, dest); err != nil {
					t.Fatalf("raw=%v: %v", raw, err)
				}
				got := canon(reflect.ValueOf(dest).Elem().Interface())
				want := tt.want
				if tt.name == "any" {
					// *any gets a copy of what the driver returned.
					want = canon(any("x"))
					if raw {
						want = canon(any([]byte("x")))
					}
				}
				if tt.name == "date into *any" {
					// go-sql-spanner's value: the text (raw: a copy of the bytes).
					want = canon(any("9999-12-31"))
					if raw {
						want = canon(any([]byte("9999-12-31")))
					}
				}
				if got != want {
					t.Errorf("raw=%v:\n got %s\nwant %s", raw, got, want)
				}
			}
		})
	}
}

// TestTimestampIsUTC checks that timestamps carry the UTC location, which
// the raw-mode slab relies on (its location pointer is nil).
func TestTimestampIsUTC(t *testing.T) {
	for _, raw := range []bool{false, true} {
		v, err := decodeOne(t, decode.Options{Raw: raw}, tTimestamp, enc(str("2024-02-29T12:00:00Z")))
		if err != nil {
			t.Fatal(err)
		}
		tm := v.(time.Time)
		if tm.Location() != time.UTC {
			t.Errorf("raw=%v: location %v, want UTC", raw, tm.Location())
		}
		if !tm.Equal(time.Date(2024, 2, 29, 12, 0, 0, 0, time.UTC)) {
			t.Errorf("raw=%v: got %v", raw, tm)
		}
	}
}

// TestTimestampAgainstTimeParse compares the hand-written parser with
// time.Parse over every day of several years and many times of day.
func TestTimestampAgainstTimeParse(t *testing.T) {
	p := mustPlan(t, decode.Options{}, fld("ts", tTimestamp))
	d := decode.NewRowDecoder(p, false)
	dest := make([]driver.Value, 1)
	check := func(s string) {
		want, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			t.Fatalf("time.Parse(%q): %v", s, err)
		}
		if err := d.Decode([][]byte{enc(str(s))}, dest); err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		if got := dest[0].(time.Time); !got.Equal(want) {
			t.Fatalf("%q: got %v, want %v", s, got, want)
		}
	}
	for _, year := range []int{1, 4, 99, 100, 1582, 1600, 1899, 1900, 1969, 1970, 1999, 2000, 2001, 2024, 2100, 2400, 9999} {
		start := time.Date(year, 1, 1, 0, 0, 0, 0, time.UTC)
		for day := start; day.Year() == year; day = day.AddDate(0, 0, 1) {
			tm := day.Add(time.Duration(day.YearDay()*4%1440) * time.Minute).Add(time.Duration(day.YearDay()) * 1234567)
			check(tm.Format("2006-01-02T15:04:05.999999999Z"))
		}
	}
	check("9999-12-31T23:59:59.999999999Z")
	check("0001-01-01T00:00:00.000000001Z")
}

// TestRandomResultSets decodes random result sets of every type (from
// internal/randrs, in Spanner's exact wire forms) in safe and raw mode: no
// errors, the same values in both modes, and every value scans into its
// column's ScanType through database/sql.
func TestRandomResultSets(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for iter := range 150 {
		rs := randrs.ResultSet(r, randrs.Options{TopLevelStructs: true, MaxColumns: 10})
		rt := mustMarshal(rs.GetMetadata().GetRowType())
		for _, base := range []decode.Options{{}, {NumericAsString: true}} {
			var planes [2]*decode.Plan
			var decs [2]*decode.RowDecoder
			for i, raw := range []bool{false, true} {
				o := base
				o.Raw = raw
				p, err := decode.PlanFor(rt, o)
				if err != nil {
					t.Fatalf("iteration %d: %v", iter, err)
				}
				planes[i], decs[i] = p, decode.NewRowDecoder(p, raw)
			}
			n := len(planes[0].Columns)
			for ri, row := range rs.GetRows() {
				encoded := make([][]byte, n)
				for j, v := range row.GetValues() {
					encoded[j] = enc(v)
				}
				var rendered [2][]string
				for i := range decs {
					dest := make([]driver.Value, n)
					if err := decs[i].Decode(encoded, dest); err != nil {
						t.Fatalf("iteration %d row %d raw=%v: %v", iter, ri, i == 1, err)
					}
					for j, v := range dest {
						if i == 1 {
							v = rawToSafe(planes[1].Columns[j].Type, planes[1].Options(), v)
						}
						rendered[i] = append(rendered[i], canon(v))
					}
					// Scan every column into its ScanType.
					dests := make([]any, n)
					for j, c := range planes[i].Columns {
						dests[j] = reflect.New(c.ScanType).Interface()
					}
					err := sqlScan(n, func(dv []driver.Value) error { return decs[i].Decode(encoded, dv) }, dests...)
					if err != nil {
						t.Fatalf("iteration %d row %d raw=%v: Scan into ScanTypes: %v", iter, ri, i == 1, err)
					}
				}
				for j := range rendered[0] {
					if rendered[0][j] != rendered[1][j] {
						t.Fatalf("iteration %d row %d column %d (%s): safe %s, raw %s", iter, ri, j,
							planes[0].Columns[j].TypeName, rendered[0][j], rendered[1][j])
					}
				}
			}
		}
	}
}

// TestDateIntoString: DATE is its "YYYY-MM-DD" text, as go-sql-spanner
// returns it since April 2025, so code scanning it into a *string works
// after switching drivers, in both modes; civil.Date and spanner.NullDate
// parse that text in their Scan. A NULL into *string fails as database/sql
// fails it for any driver.
func TestDateIntoString(t *testing.T) {
	for _, raw := range []bool{false, true} {
		p := mustPlan(t, decode.Options{Raw: raw}, fld("d", tDate))
		d := decode.NewRowDecoder(p, false)
		in := enc(str("2024-02-29"))
		var s string
		if err := sqlScan(1, func(dv []driver.Value) error { return d.Decode([][]byte{in}, dv) }, &s); err != nil || s != "2024-02-29" {
			t.Errorf("raw=%v: DATE into *string: %q, %v; want 2024-02-29", raw, s, err)
		}
		var cd civil.Date
		var nd spanner.NullDate
		if err := sqlScan(1, func(dv []driver.Value) error { return d.Decode([][]byte{in}, dv) }, &cd); err != nil || cd != (civil.Date{Year: 2024, Month: 2, Day: 29}) {
			t.Errorf("raw=%v: DATE into *civil.Date: %v, %v", raw, cd, err)
		}
		if err := sqlScan(1, func(dv []driver.Value) error { return d.Decode([][]byte{in}, dv) }, &nd); err != nil || nd != (spanner.NullDate{Date: civil.Date{Year: 2024, Month: 2, Day: 29}, Valid: true}) {
			t.Errorf("raw=%v: DATE into *spanner.NullDate: %v, %v", raw, nd, err)
		}
		nul := enc(null())
		err := sqlScan(1, func(dv []driver.Value) error { return d.Decode([][]byte{nul}, dv) }, &s)
		if err == nil || !strings.Contains(err.Error(), "converting NULL to string") {
			t.Errorf("raw=%v: NULL DATE into *string: %v, want database/sql's NULL conversion error", raw, err)
		}
		if p.Columns[0].ScanType != reflect.TypeFor[sql.NullString]() {
			t.Errorf("raw=%v: ScanType %v, want sql.NullString (Next gives the text)", raw, p.Columns[0].ScanType)
		}
	}
}
