package randrs

import (
	"math/rand/v2"
	"strconv"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/protobuf/types/known/structpb"
)

// Options controls the shape of generated result sets. The zero value is
// usable: every type, 0 to 8 rows, 1 to 6 columns.
type Options struct {
	// Types lists the type codes that may appear. Empty means all of them.
	// Scalar codes (BOOL, INT64, ...) enable that scalar. ARRAY enables
	// arrays of the enabled scalars (and of STRUCT when STRUCT is enabled).
	// STRUCT enables ARRAY<STRUCT<...>> (when ARRAY is enabled), struct
	// fields of STRUCT type, and top-level STRUCT with TopLevelStructs.
	// When only ARRAY and/or STRUCT are listed, all scalars are enabled as
	// element and field types.
	Types []spannerpb.TypeCode

	// Columns, when non-empty, fixes the column types (names stay random).
	Columns []*spannerpb.Type

	// MinRows and MaxRows bound the row count (inclusive). Both zero means
	// 0 to 8 rows. MaxRows below MinRows is treated as MinRows.
	MinRows, MaxRows int
	// MinColumns and MaxColumns bound the column count when Columns is
	// empty. Both zero means 1 to 6. A count below 1 is raised to 1.
	MinColumns, MaxColumns int

	// NullRate is the probability that a value (column value, array
	// element or struct field) is NULL. Zero means 0.15; negative means no
	// NULLs at all.
	NullRate float64
	// MaxArrayLen bounds array lengths. Zero means 6.
	MaxArrayLen int
	// MaxStringLen bounds the length in characters of ordinary STRING
	// values and the byte length of BYTES/PROTO values. Zero means 24.
	MaxStringLen int
	// LongStringLen is the maximum length of the occasional long STRING or
	// BYTES value (about one in 16). Zero means 3000; negative disables long
	// values.
	LongStringLen int
	// MaxStructFields bounds the field count of STRUCT types. Zero means 4.
	MaxStructFields int
	// MaxDepth bounds the nesting of ARRAY/STRUCT inside STRUCT fields.
	// Zero means 2.
	MaxDepth int
	// TopLevelStructs allows STRUCT columns. Cloud Spanner never returns
	// them (it rejects such queries), so they are off by default.
	TopLevelStructs bool
}

func (o Options) withDefaults() Options {
	if o.MinRows == 0 && o.MaxRows == 0 {
		o.MaxRows = 8
	}
	if o.MinRows < 0 {
		o.MinRows = 0
	}
	if o.MaxRows < o.MinRows {
		o.MaxRows = o.MinRows
	}
	if o.MinColumns == 0 && o.MaxColumns == 0 {
		o.MinColumns, o.MaxColumns = 1, 6
	}
	if o.MinColumns < 1 {
		o.MinColumns = 1
	}
	if o.MaxColumns < o.MinColumns {
		o.MaxColumns = o.MinColumns
	}
	if o.NullRate == 0 {
		o.NullRate = 0.15
	}
	if o.MaxArrayLen <= 0 {
		o.MaxArrayLen = 6
	}
	if o.MaxStringLen <= 0 {
		o.MaxStringLen = 24
	}
	if o.LongStringLen == 0 {
		o.LongStringLen = 3000
	}
	if o.MaxStructFields <= 0 {
		o.MaxStructFields = 4
	}
	if o.MaxDepth <= 0 {
		o.MaxDepth = 2
	}
	return o
}

// ScalarCodes lists every scalar type code the generator knows, in a fixed
// order.
var ScalarCodes = []spannerpb.TypeCode{
	spannerpb.TypeCode_BOOL,
	spannerpb.TypeCode_INT64,
	spannerpb.TypeCode_FLOAT32,
	spannerpb.TypeCode_FLOAT64,
	spannerpb.TypeCode_STRING,
	spannerpb.TypeCode_BYTES,
	spannerpb.TypeCode_TIMESTAMP,
	spannerpb.TypeCode_DATE,
	spannerpb.TypeCode_NUMERIC,
	spannerpb.TypeCode_JSON,
	spannerpb.TypeCode_UUID,
	spannerpb.TypeCode_INTERVAL,
	spannerpb.TypeCode_ENUM,
	spannerpb.TypeCode_PROTO,
}

type allowed struct {
	scalars []spannerpb.TypeCode
	array   bool
	strct   bool
}

func (o Options) allowed() allowed {
	if len(o.Types) == 0 {
		return allowed{scalars: ScalarCodes, array: true, strct: true}
	}
	var a allowed
	for _, c := range o.Types {
		switch c {
		case spannerpb.TypeCode_ARRAY:
			a.array = true
		case spannerpb.TypeCode_STRUCT:
			a.strct = true
		default:
			for _, k := range ScalarCodes {
				if k == c {
					a.scalars = append(a.scalars, c)
					break
				}
			}
		}
	}
	if len(a.scalars) == 0 {
		a.scalars = ScalarCodes
	}
	return a
}

// Proto and enum type names used for PROTO and ENUM values.
var (
	protoFQNs = []string{"examples.music.SingerInfo", "spannerfast.test.Blob", "a.B"}
	enumFQNs  = []string{"examples.music.Genre", "spannerfast.test.Color"}
)

// ResultSet returns a random result set: metadata with the row type and
// rows of random values matching it. It never sets stats.
func ResultSet(r *rand.Rand, opts Options) *spannerpb.ResultSet {
	o := opts.withDefaults()
	var cols []*spannerpb.Type
	if len(o.Columns) > 0 {
		cols = o.Columns
	} else {
		n := o.MinColumns + r.IntN(o.MaxColumns-o.MinColumns+1)
		cols = make([]*spannerpb.Type, n)
		for i := range cols {
			cols[i] = topType(r, o)
		}
	}
	fields := make([]*spannerpb.StructType_Field, len(cols))
	for i, t := range cols {
		fields[i] = &spannerpb.StructType_Field{Name: fieldName(r, i), Type: t}
	}
	nrows := o.MinRows + r.IntN(o.MaxRows-o.MinRows+1)
	rows := make([]*structpb.ListValue, nrows)
	for i := range rows {
		vals := make([]*structpb.Value, len(cols))
		for j, t := range cols {
			vals[j] = value(r, t, o)
		}
		rows[i] = &structpb.ListValue{Values: vals}
	}
	return &spannerpb.ResultSet{
		Metadata: &spannerpb.ResultSetMetadata{RowType: &spannerpb.StructType{Fields: fields}},
		Rows:     rows,
	}
}

// Type returns a random column type allowed by opts.
func Type(r *rand.Rand, opts Options) *spannerpb.Type {
	return topType(r, opts.withDefaults())
}

// Value returns a random value of type t (NULL with probability
// opts.NullRate), in Spanner's wire form.
func Value(r *rand.Rand, t *spannerpb.Type, opts Options) *structpb.Value {
	return value(r, t, opts.withDefaults())
}

func topType(r *rand.Rand, o Options) *spannerpb.Type {
	a := o.allowed()
	k := r.IntN(10)
	switch {
	case k < 2 && a.array:
		return arrayType(r, o, a, 0)
	case k == 2 && a.strct && o.TopLevelStructs:
		return structType(r, o, a, 1)
	default:
		return scalarType(r, a)
	}
}

func scalarType(r *rand.Rand, a allowed) *spannerpb.Type {
	c := a.scalars[r.IntN(len(a.scalars))]
	t := &spannerpb.Type{Code: c}
	switch c {
	case spannerpb.TypeCode_PROTO:
		t.ProtoTypeFqn = protoFQNs[r.IntN(len(protoFQNs))]
	case spannerpb.TypeCode_ENUM:
		t.ProtoTypeFqn = enumFQNs[r.IntN(len(enumFQNs))]
	}
	return t
}

// arrayType returns ARRAY<scalar> or, when structs are allowed,
// sometimes ARRAY<STRUCT<...>>. depth is the current struct nesting.
func arrayType(r *rand.Rand, o Options, a allowed, depth int) *spannerpb.Type {
	var elem *spannerpb.Type
	if a.strct && depth < o.MaxDepth && r.IntN(3) == 0 {
		elem = structType(r, o, a, depth+1)
	} else {
		elem = scalarType(r, a)
	}
	return &spannerpb.Type{Code: spannerpb.TypeCode_ARRAY, ArrayElementType: elem}
}

func structType(r *rand.Rand, o Options, a allowed, depth int) *spannerpb.Type {
	n := 1 + r.IntN(o.MaxStructFields)
	if r.IntN(20) == 0 {
		n = 0 // STRUCT<> is legal
	}
	fields := make([]*spannerpb.StructType_Field, n)
	for i := range fields {
		var t *spannerpb.Type
		k := r.IntN(8)
		switch {
		case k == 0 && a.array && depth < o.MaxDepth:
			t = arrayType(r, o, a, depth)
		case k == 1 && depth < o.MaxDepth:
			t = structType(r, o, a, depth+1)
		default:
			t = scalarType(r, a)
		}
		fields[i] = &spannerpb.StructType_Field{Name: fieldName(r, i), Type: t}
	}
	return &spannerpb.Type{Code: spannerpb.TypeCode_STRUCT, StructType: &spannerpb.StructType{Fields: fields}}
}

// fieldName returns a column or field name; sometimes empty (anonymous
// columns such as SELECT 1) and sometimes a repeat of a common name.
func fieldName(r *rand.Rand, i int) string {
	switch r.IntN(12) {
	case 0:
		return ""
	case 1:
		return "dup"
	case 2:
		return "Ünïcode_" + strconv.Itoa(i)
	default:
		return "c" + strconv.Itoa(i)
	}
}
