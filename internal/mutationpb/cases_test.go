package mutationpb

import (
	"errors"
	"math"
	"math/big"
	"time"

	"cloud.google.com/go/civil"
	"cloud.google.com/go/spanner"
	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"github.com/google/uuid"
	"google.golang.org/protobuf/types/known/structpb"
)

// namedValue is one Go value a user may write to a column.
type namedValue struct {
	name string
	v    any
}

type (
	myString string
	myInt64  int64
	myBool   bool
	// encoderValue implements spanner.Encoder.
	encoderValue struct{ s string }
	// failingEncoder implements spanner.Encoder and always fails.
	failingEncoder struct{}
)

func (e encoderValue) EncodeSpanner() (any, error) { return "enc:" + e.s, nil }
func (failingEncoder) EncodeSpanner() (any, error) { return nil, errors.New("encoder says no") }

func ptr[T any](v T) *T { return &v }

// values lists one or more values of every type the client knows, valid or
// not; the parity test decides with the official client which are accepted.
func values() []namedValue {
	ts := time.Date(2024, 2, 29, 13, 14, 15, 123456789, time.FixedZone("X", -7*3600))
	date := civil.Date{Year: 2024, Month: 2, Day: 29}
	u := uuid.MustParse("0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0")
	iv := spanner.Interval{Months: 14, Days: -3, Nanos: big.NewInt(-1_500_000_001)}
	rat := big.NewRat(-12345, 1000)
	msg := &spannerpb.Type{Code: spannerpb.TypeCode_ARRAY, ArrayElementType: &spannerpb.Type{Code: spannerpb.TypeCode_STRING}}
	enum := spannerpb.TypeCode_JSON
	return []namedValue{
		{"nil", nil},
		// BOOL
		{"bool", true}, {"bool_false", false}, {"*bool", ptr(true)}, {"*bool_nil", (*bool)(nil)},
		{"NullBool", spanner.NullBool{Bool: true, Valid: true}}, {"NullBool_null", spanner.NullBool{}},
		{"[]bool", []bool{true, false}}, {"[]bool_nil", []bool(nil)}, {"[]*bool", []*bool{ptr(false), nil}},
		{"[]NullBool", []spanner.NullBool{{Bool: true, Valid: true}, {}}},
		// INT64 and the other integer kinds
		{"int", int(-7)}, {"int64", int64(math.MinInt64)}, {"int64_max", int64(math.MaxInt64)},
		{"int32", int32(5)}, {"int16", int16(5)}, {"int8", int8(5)},
		{"uint", uint(5)}, {"uint64", uint64(math.MaxUint64)}, {"uint32", uint32(5)}, {"uint16", uint16(5)}, {"uint8", uint8(5)},
		{"*int64", ptr(int64(9))}, {"*int64_nil", (*int64)(nil)},
		{"NullInt64", spanner.NullInt64{Int64: 3, Valid: true}}, {"NullInt64_null", spanner.NullInt64{}},
		{"[]int", []int{1, -2}}, {"[]int64", []int64{3, math.MaxInt64}}, {"[]int32", []int32{1}},
		{"[]*int64", []*int64{ptr(int64(1)), nil}}, {"[]NullInt64", []spanner.NullInt64{{Int64: 1, Valid: true}, {}}},
		{"myInt64", myInt64(42)}, {"[]myInt64", []myInt64{1, 2}},
		// FLOAT32
		{"float32", float32(1.5)}, {"float32_nan", float32(math.NaN())}, {"float32_inf", float32(math.Inf(1))},
		{"float32_-inf", float32(math.Inf(-1))}, {"*float32", ptr(float32(2.25))}, {"*float32_nil", (*float32)(nil)},
		{"NullFloat32", spanner.NullFloat32{Float32: 0.5, Valid: true}}, {"NullFloat32_null", spanner.NullFloat32{}},
		{"[]float32", []float32{1, float32(math.NaN())}}, {"[]*float32", []*float32{nil, ptr(float32(3))}},
		{"[]NullFloat32", []spanner.NullFloat32{{}, {Float32: 1, Valid: true}}},
		// FLOAT64
		{"float64", 3.25}, {"float64_nan", math.NaN()}, {"float64_inf", math.Inf(1)}, {"float64_-inf", math.Inf(-1)},
		{"float64_-0", math.Copysign(0, -1)}, {"float64_max", math.MaxFloat64}, {"float64_tiny", math.SmallestNonzeroFloat64},
		{"*float64", ptr(1.0 / 3)}, {"*float64_nil", (*float64)(nil)},
		{"NullFloat64", spanner.NullFloat64{Float64: 1e300, Valid: true}}, {"NullFloat64_null", spanner.NullFloat64{}},
		{"[]float64", []float64{math.Inf(-1), 0.1}}, {"[]*float64", []*float64{nil, ptr(2.0)}},
		{"[]NullFloat64", []spanner.NullFloat64{{Float64: math.NaN(), Valid: true}, {}}},
		// NUMERIC and PG NUMERIC
		{"big.Rat", *rat}, {"*big.Rat", rat}, {"*big.Rat_nil", (*big.Rat)(nil)},
		{"NullNumeric", spanner.NullNumeric{Numeric: *big.NewRat(1, 3), Valid: true}}, {"NullNumeric_null", spanner.NullNumeric{}},
		{"[]big.Rat", []big.Rat{*big.NewRat(1, 2)}}, {"[]*big.Rat", []*big.Rat{rat, nil}},
		{"[]NullNumeric", []spanner.NullNumeric{{Numeric: *rat, Valid: true}, {}}},
		{"PGNumeric", spanner.PGNumeric{Numeric: "123.456", Valid: true}}, {"PGNumeric_nan", spanner.PGNumeric{Numeric: "NaN", Valid: true}},
		{"PGNumeric_null", spanner.PGNumeric{}}, {"[]PGNumeric", []spanner.PGNumeric{{Numeric: "1", Valid: true}, {}}},
		// STRING
		{"string", "héllo\x00"}, {"string_empty", ""}, {"*string", ptr("p")}, {"*string_nil", (*string)(nil)},
		{"NullString", spanner.NullString{StringVal: "n", Valid: true}}, {"NullString_null", spanner.NullString{}},
		{"[]string", []string{"a", ""}}, {"[]*string", []*string{nil, ptr("b")}},
		{"[]NullString", []spanner.NullString{{StringVal: "x", Valid: true}, {}}},
		{"myString", myString("mine")}, {"[]myString", []myString{"m"}}, {"myBool", myBool(true)},
		// BYTES
		{"[]byte", []byte{0, 1, 0xff}}, {"[]byte_empty", []byte{}}, {"[]byte_nil", []byte(nil)},
		{"[][]byte", [][]byte{{1}, nil}},
		// JSON and PG JSONB
		{"NullJSON", spanner.NullJSON{Value: map[string]any{"b": []any{1, "x", nil}, "a": 1.5}, Valid: true}},
		{"NullJSON_null", spanner.NullJSON{}}, {"NullJSON_string", spanner.NullJSON{Value: "s", Valid: true}},
		{"[]NullJSON", []spanner.NullJSON{{Value: []int{1}, Valid: true}, {}}},
		{"PGJsonB", spanner.PGJsonB{Value: map[string]any{"k": true}, Valid: true}}, {"PGJsonB_null", spanner.PGJsonB{}},
		{"[]PGJsonB", []spanner.PGJsonB{{Value: 1, Valid: true}, {}}},
		// DATE
		{"civil.Date", date}, {"*civil.Date", ptr(date)}, {"*civil.Date_nil", (*civil.Date)(nil)},
		{"NullDate", spanner.NullDate{Date: date, Valid: true}}, {"NullDate_null", spanner.NullDate{}},
		{"[]civil.Date", []civil.Date{date}}, {"[]*civil.Date", []*civil.Date{nil, &date}},
		{"[]NullDate", []spanner.NullDate{{Date: date, Valid: true}, {}}},
		// TIMESTAMP
		{"time.Time", ts}, {"time.Time_zero", time.Time{}}, {"*time.Time", ptr(ts)}, {"*time.Time_nil", (*time.Time)(nil)},
		{"CommitTimestamp", spanner.CommitTimestamp},
		{"NullTime", spanner.NullTime{Time: ts, Valid: true}}, {"NullTime_null", spanner.NullTime{}},
		{"NullTime_commit", spanner.NullTime{Time: spanner.CommitTimestamp, Valid: true}},
		{"[]time.Time", []time.Time{ts, spanner.CommitTimestamp}}, {"[]*time.Time", []*time.Time{nil, &ts}},
		{"[]NullTime", []spanner.NullTime{{Time: ts, Valid: true}, {}}},
		// UUID
		{"uuid.UUID", u}, {"*uuid.UUID", &u}, {"*uuid.UUID_nil", (*uuid.UUID)(nil)},
		{"NullUUID", spanner.NullUUID{UUID: u, Valid: true}}, {"NullUUID_null", spanner.NullUUID{}},
		{"uuid.NullUUID", uuid.NullUUID{UUID: u, Valid: true}},
		{"[]uuid.UUID", []uuid.UUID{u}}, {"[]*uuid.UUID", []*uuid.UUID{nil, &u}},
		{"[]NullUUID", []spanner.NullUUID{{UUID: u, Valid: true}, {}}},
		// INTERVAL
		{"Interval", iv}, {"*Interval", &iv}, {"*Interval_nil", (*spanner.Interval)(nil)},
		{"NullInterval", spanner.NullInterval{Interval: iv, Valid: true}}, {"NullInterval_null", spanner.NullInterval{}},
		{"[]Interval", []spanner.Interval{iv}}, {"[]*Interval", []*spanner.Interval{nil, &iv}},
		{"[]NullInterval", []spanner.NullInterval{{Interval: iv, Valid: true}, {}}},
		// PROTO and ENUM
		{"proto", msg}, {"proto_nil", (*spannerpb.Type)(nil)},
		{"NullProtoMessage", spanner.NullProtoMessage{ProtoMessageVal: msg, Valid: true}},
		{"NullProtoMessage_null", spanner.NullProtoMessage{}},
		{"[]proto", []*spannerpb.Type{msg, nil}},
		{"enum", enum}, {"*enum", &enum}, {"NullProtoEnum", spanner.NullProtoEnum{ProtoEnumVal: enum, Valid: true}},
		{"NullProtoEnum_null", spanner.NullProtoEnum{}}, {"[]enum", []spannerpb.TypeCode{enum, spannerpb.TypeCode_BOOL}},
		// GenericColumnValue, Encoder, structs
		{"GenericColumnValue", spanner.GenericColumnValue{
			Type:  &spannerpb.Type{Code: spannerpb.TypeCode_INT64},
			Value: structpb.NewStringValue("77"),
		}},
		{"Encoder", encoderValue{"e"}},
		{"struct", struct{ A int64 }{1}}, {"[]struct", []struct{ A int64 }{{1}}},
		// Values the client may reject.
		{"complex128", complex(1, 2)}, {"map", map[string]int{"a": 1}}, {"chan", make(chan int)},
		{"[]GenericColumnValue", []spanner.GenericColumnValue{}}, {"failingEncoder", failingEncoder{}},
		{"[]any", []any{1, "x"}},
	}
}

// singer is used with the *Struct constructors.
type singer struct {
	ID      int64   `spanner:"SingerId"`
	Name    string  `spanner:"Name"`
	Nick    *string `spanner:"Nick"`
	Score   spanner.NullFloat64
	Born    civil.Date
	Skipped string `spanner:"-"`
}

// namedMutations is one batch for Apply.
type namedMutations struct {
	name string
	ms   []*spanner.Mutation
}

func must(m *spanner.Mutation, err error) *spanner.Mutation {
	if err != nil {
		panic(err)
	}
	return m
}

// mutationKinds covers every constructor, key set shape and key part type.
// Maps have a single entry so that column order is the same every run (the
// golden file needs that).
func mutationKinds() []namedMutations {
	cols := []string{"Id", "Name", "Score"}
	vals := []any{int64(1), "one", 1.5}
	s := singer{ID: 7, Name: "Ann", Score: spanner.NullFloat64{Float64: 9.5, Valid: true}, Born: civil.Date{Year: 1990, Month: 1, Day: 2}}
	ts := time.Date(2020, 1, 1, 0, 0, 0, 1, time.UTC)
	one := func(m *spanner.Mutation) []*spanner.Mutation { return []*spanner.Mutation{m} }
	wrapped, err := spanner.WrapMutation(&spannerpb.Mutation{Operation: &spannerpb.Mutation_Insert{Insert: &spannerpb.Mutation_Write{
		Table: "W", Columns: []string{"A"}, Values: []*structpb.ListValue{{Values: []*structpb.Value{structpb.NewStringValue("1")}}, {Values: []*structpb.Value{structpb.NewStringValue("2")}}},
	}}})
	if err != nil {
		panic(err)
	}
	return []namedMutations{
		{"Insert", one(spanner.Insert("T", cols, vals))},
		{"Update", one(spanner.Update("T", cols, vals))},
		{"InsertOrUpdate", one(spanner.InsertOrUpdate("T", cols, vals))},
		{"Replace", one(spanner.Replace("T", cols, vals))},
		{"Insert_no_columns", one(spanner.Insert("T", nil, nil))},
		{"InsertMap", one(spanner.InsertMap("T", map[string]any{"Name": "m"}))},
		{"UpdateMap", one(spanner.UpdateMap("T", map[string]any{"Id": 2}))},
		{"InsertOrUpdateMap", one(spanner.InsertOrUpdateMap("T", map[string]any{"Score": nil}))},
		{"ReplaceMap", one(spanner.ReplaceMap("T", map[string]any{"Name": spanner.NullString{}}))},
		{"InsertStruct", one(must(spanner.InsertStruct("Singers", s)))},
		{"UpdateStruct", one(must(spanner.UpdateStruct("Singers", &s)))},
		{"InsertOrUpdateStruct", one(must(spanner.InsertOrUpdateStruct("Singers", s)))},
		{"ReplaceStruct", one(must(spanner.ReplaceStruct("Singers", s)))},
		{"Delete_key", one(spanner.Delete("T", spanner.Key{1}))},
		{"Delete_composite_key", one(spanner.Delete("T", spanner.Key{"a", int64(2), true}))},
		{"Delete_empty_key", one(spanner.Delete("T", spanner.Key{}))},
		{"Delete_keys", one(spanner.Delete("T", spanner.KeySetFromKeys(spanner.Key{1}, spanner.Key{2})))},
		{"Delete_all", one(spanner.Delete("T", spanner.AllKeys()))},
		{"Delete_nil_keyset", one(spanner.Delete("T", nil))},
		{"Delete_range_closed_open", one(spanner.Delete("T", spanner.KeyRange{Start: spanner.Key{1}, End: spanner.Key{5}, Kind: spanner.ClosedOpen}))},
		{"Delete_range_closed_closed", one(spanner.Delete("T", spanner.KeyRange{Start: spanner.Key{"a"}, End: spanner.Key{"z"}, Kind: spanner.ClosedClosed}))},
		{"Delete_range_open_closed", one(spanner.Delete("T", spanner.KeyRange{Start: spanner.Key{1, "x"}, End: spanner.Key{2}, Kind: spanner.OpenClosed}))},
		{"Delete_range_open_open", one(spanner.Delete("T", spanner.KeyRange{Start: spanner.Key{}, End: spanner.Key{}, Kind: spanner.OpenOpen}))},
		{"Delete_union", one(spanner.Delete("T", spanner.KeySets(spanner.Key{1}, spanner.KeyRange{Start: spanner.Key{3}, End: spanner.Key{4}}, spanner.AllKeys())))},
		{"Delete_empty_union", one(spanner.Delete("T", spanner.KeySets()))},
		{"Delete_key_parts", one(spanner.Delete("T", spanner.Key{
			int(1), int8(2), int16(3), int32(4), uint8(5), uint16(6), uint32(7), int64(8), 9.5, float32(10.5),
			spanner.NullInt64{}, spanner.NullFloat64{Float64: 1, Valid: true}, spanner.NullFloat32{}, false, spanner.NullBool{},
			[]byte("b"), "s", spanner.NullString{StringVal: "n", Valid: true}, ts, civil.Date{Year: 2000, Month: 1, Day: 1},
			spanner.NullTime{}, spanner.NullDate{}, *big.NewRat(3, 2), spanner.NullNumeric{},
			spannerpb.TypeCode_STRING, uuid.Nil, uuid.NullUUID{}, spanner.NullUUID{}, encoderValue{"k"},
		}))},
		{"Send", one(spanner.Send("Q", spanner.Key{"k", 1}, "payload"))},
		{"Send_delivery_time", one(spanner.Send("Q", spanner.Key{"k"}, spanner.NullJSON{Value: 1, Valid: true}, spanner.WithDeliveryTime(ts)))},
		{"Send_nil_payload", one(spanner.Send("Q", spanner.Key{2}, nil))},
		{"Ack", one(spanner.Ack("Q", spanner.Key{"k"}))},
		{"Ack_ignore_not_found", one(spanner.Ack("Q", spanner.Key{"k"}, spanner.WithIgnoreNotFound(true)))},
		{"WrapMutation", one(wrapped)},
		{"Mixed", []*spanner.Mutation{
			spanner.Insert("A", cols, vals), spanner.Delete("B", spanner.Key{1}), spanner.Update("C", cols, vals),
			spanner.Insert("D", cols[:1], vals[:1]), wrapped,
		}},
		{"Inserts_only", []*spanner.Mutation{spanner.Insert("A", cols, vals), wrapped, spanner.Insert("B", nil, nil)}},
		{"Empty", nil},
	}
}

// invalidKeys are key parts or payloads the client rejects.
func invalidMutations() []namedMutations {
	one := func(m *spanner.Mutation) []*spanner.Mutation { return []*spanner.Mutation{m} }
	return []namedMutations{
		{"Delete_uint64_key", one(spanner.Delete("T", spanner.Key{uint64(1)}))},
		{"Delete_range_bad_key", one(spanner.Delete("T", spanner.KeyRange{Start: spanner.Key{struct{}{}}, End: spanner.Key{1}}))},
		{"Send_bad_key", one(spanner.Send("Q", spanner.Key{complex(1, 1)}, "p"))},
		{"Send_bad_payload", one(spanner.Send("Q", spanner.Key{"k"}, make(chan int)))},
		{"Ack_bad_key", one(spanner.Ack("Q", spanner.Key{map[int]int{}}))},
		{"Delete_null_enum_key", one(spanner.Delete("T", spanner.Key{spanner.NullProtoEnum{}}))},
	}
}
