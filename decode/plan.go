package decode

import (
	"database/sql"
	"database/sql/driver"
	"fmt"
	"reflect"
	"time"

	"cloud.google.com/go/spanner"
	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"github.com/google/uuid"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
)

// Options select how values are represented. They are part of a plan's
// identity: the same metadata decoded with other options is another plan.
type Options struct {
	Raw             bool // STRING/BYTES alias the receive buffer; values valid until the next row
	NativeArrays    bool // decode_to_native_arrays: []int64 instead of []spanner.NullInt64
	NumericAsString bool // decode_numeric_to_string: NUMERIC as its decimal text
}

func (o Options) index() int {
	i := 0
	if o.Raw {
		i |= 1
	}
	if o.NativeArrays {
		i |= 2
	}
	if o.NumericAsString {
		i |= 4
	}
	return i
}

// Column describes one result column.
type Column struct {
	Name     string
	Type     *spannerpb.Type
	TypeName string       // GoogleSQL name, e.g. "ARRAY<INT64>"
	ScanType reflect.Type // a Go type that Scan can fill from this column, NULL included
}

type columnPlan struct {
	decode decodeFunc
	slab   slabKind
	// hot names the types whose usual encoding RowDecoder.DecodeNext
	// decodes in line, without calling decode.
	hot hotKind
}

// hotKind is a column type DecodeNext decodes in line.
type hotKind uint8

const (
	hotNone hotKind = iota
	hotInt64
	hotFloat64
	hotString
)

// Plan is the decode plan for one result shape: a decoder per column, chosen
// once. Plans are immutable and shared between queries and goroutines.
type Plan struct {
	Columns []Column
	Names   []string // column names, shared: callers must not modify
	cols    []columnPlan
	opts    Options
	layout  rowLayout
}

// rowLayout is what a row of the plan takes of its arena (see arena.reset):
// slots of a fixed size, and content bounded from the encoded values of the
// columns listed.
type rowLayout struct {
	slots int
	strs  []int // columns whose string payload is copied (safe mode)
	bytes []int // BYTES columns, decoded into the content
}

// Options returns the options the plan was built for.
func (p *Plan) Options() Options { return p.opts }

func buildPlan(rowType []byte, o Options) (*Plan, error) {
	planMisses.Add(1)
	var st spannerpb.StructType
	if err := proto.Unmarshal(rowType, &st); err != nil {
		return nil, &ProtocolError{What: "result metadata row_type", Err: err, Code: codes.Internal}
	}
	p := &Plan{opts: o}
	for i, f := range st.GetFields() {
		t := f.GetType()
		c := Column{Name: f.GetName(), Type: t, TypeName: TypeName(t)}
		cp, scan, err := columnPlanFor(t, o)
		if err != nil {
			return nil, &ColumnError{Index: i, Name: c.Name, Type: c.TypeName, Err: err}
		}
		c.ScanType = scan
		p.Columns = append(p.Columns, c)
		p.Names = append(p.Names, c.Name)
		p.cols = append(p.cols, cp)
		p.layout.add(i, cp.slab, o.Raw)
	}
	return p, nil
}

func (l *rowLayout) add(col int, k slabKind, raw bool) {
	switch k {
	case slabFixed8:
		l.slots += fixedSlot
	case slabTime:
		l.slots += timeSlot
	case slabString:
		if raw {
			l.slots += rawStringSlot // a header aliasing the receive buffer
		} else {
			l.slots += stringSlot
			l.strs = append(l.strs, col)
		}
	case slabBytes:
		l.slots += sliceSlot
		l.bytes = append(l.bytes, col)
	}
}

var (
	scanNullBool    = reflect.TypeFor[sql.NullBool]()
	scanNullInt64   = reflect.TypeFor[sql.NullInt64]()
	scanNullFloat64 = reflect.TypeFor[sql.NullFloat64]()
	scanNullFloat32 = reflect.TypeFor[sql.Null[float32]]()
	scanNullString  = reflect.TypeFor[sql.NullString]()
	scanNullTime    = reflect.TypeFor[sql.NullTime]()
	scanBytes       = reflect.TypeFor[[]byte]()
	scanNullNumeric = reflect.TypeFor[spanner.NullNumeric]()
	scanNullJSON    = reflect.TypeFor[spanner.NullJSON]()
	scanNullUUID    = reflect.TypeFor[spanner.NullUUID]()
	scanPGJSONB     = reflect.TypeFor[spanner.PGJsonB]()
	// spanner.NullUUID.Scan rejects []byte; uuid.NullUUID takes the raw-mode
	// value.
	scanRawUUID = reflect.TypeFor[uuid.NullUUID]()
	// spanner.NullInterval.Scan takes only a string and database/sql cannot
	// store a NULL (nil) into a struct, so INTERVAL and STRUCT columns report
	// pointers: nil for NULL, else a pointer to the decoded value.
	scanInterval = reflect.TypeFor[*spanner.Interval]()
	scanNullRow  = reflect.TypeFor[*spanner.NullRow]()
)

func columnPlanFor(t *spannerpb.Type, o Options) (columnPlan, reflect.Type, error) {
	switch t.GetCode() {
	case codeBool:
		return columnPlan{decode: fastBool}, scanNullBool, nil
	case codeInt64, codeEnum:
		return columnPlan{decode: fastInt64, slab: slabFixed8, hot: hotInt64}, scanNullInt64, nil
	case codeFloat64:
		return columnPlan{decode: fastFloat64, slab: slabFixed8, hot: hotFloat64}, scanNullFloat64, nil
	case codeFloat32:
		return columnPlan{decode: onValue(decodeFloat32), slab: slabFixed8}, scanNullFloat32, nil
	case codeString:
		return columnPlan{decode: fastString, slab: slabString, hot: hotString}, scanNullString, nil
	case codeBytes, codeProto:
		return columnPlan{decode: onValue(decodeBytes), slab: slabBytes}, scanBytes, nil
	case codeTimestamp:
		return columnPlan{decode: fastTimestamp, slab: slabTime}, scanNullTime, nil
	case codeDate:
		// Next gives the text (go-sql-spanner's string), so the scan type
		// is the nullable string; civil.Date and spanner.NullDate scan the
		// text as well, in both modes.
		return columnPlan{decode: fastDate, slab: slabString}, scanNullString, nil
	case codeUUID:
		if o.Raw {
			return columnPlan{decode: onValue(decodeUUID), slab: slabString}, scanRawUUID, nil
		}
		return columnPlan{decode: onValue(decodeUUID), slab: slabString}, scanNullUUID, nil
	case codeNumeric:
		// PG_NUMERIC is its text in go-sql-spanner (spanner.PGNumeric's
		// string), whatever decode_numeric_to_string says; NaN included.
		if o.NumericAsString || isPG(t) {
			return columnPlan{decode: onValue(decodeNumericString), slab: slabString}, scanNullString, nil
		}
		return columnPlan{decode: onValue(decodeNumeric)}, scanNullNumeric, nil
	case codeJSON:
		if isPG(t) {
			return columnPlan{decode: onValue(decodePGJSONB)}, scanPGJSONB, nil
		}
		return columnPlan{decode: onValue(decodeJSON)}, scanNullJSON, nil
	case codeInterval:
		return columnPlan{decode: onValue(decodeInterval)}, scanInterval, nil
	case codeStruct:
		return columnPlan{decode: onValue(structDecoder(t.GetStructType()))}, scanNullRow, nil
	case codeArray:
		elem := t.GetArrayElementType()
		if d := arrayDecoderFor(elem, o); d != nil {
			var probe driver.Value
			probe, _ = d(Value{Kind: KindNull}, nil)
			return columnPlan{decode: onValue(d)}, reflect.TypeOf(probe), nil
		}
		return columnPlan{}, nil, &UnsupportedTypeError{Code: elem.GetCode(), Type: TypeName(t)}
	}
	return columnPlan{}, nil, &UnsupportedTypeError{Code: t.GetCode(), Type: TypeName(t)}
}

const (
	codeBool      = spannerpb.TypeCode_BOOL
	codeInt64     = spannerpb.TypeCode_INT64
	codeFloat64   = spannerpb.TypeCode_FLOAT64
	codeFloat32   = spannerpb.TypeCode_FLOAT32
	codeTimestamp = spannerpb.TypeCode_TIMESTAMP
	codeDate      = spannerpb.TypeCode_DATE
	codeString    = spannerpb.TypeCode_STRING
	codeBytes     = spannerpb.TypeCode_BYTES
	codeArray     = spannerpb.TypeCode_ARRAY
	codeStruct    = spannerpb.TypeCode_STRUCT
	codeNumeric   = spannerpb.TypeCode_NUMERIC
	codeJSON      = spannerpb.TypeCode_JSON
	codeProto     = spannerpb.TypeCode_PROTO
	codeEnum      = spannerpb.TypeCode_ENUM
	codeInterval  = spannerpb.TypeCode_INTERVAL
	codeUUID      = spannerpb.TypeCode_UUID
)

// Metadata is a ResultSetMetadata scanned in place.
type Metadata struct {
	RowType       []byte    // encoded StructType
	TransactionID []byte    // id of a transaction begun inline, if any
	ReadTimestamp time.Time // the transaction's read timestamp, if returned
}

// ParseMetadata scans an encoded ResultSetMetadata.
func ParseMetadata(b []byte) (Metadata, error) {
	var md Metadata
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return md, wireError("metadata tag", n)
		}
		b = b[n:]
		if typ != protowire.BytesType {
			n = protowire.ConsumeFieldValue(num, typ, b)
			if n < 0 {
				return md, wireError("metadata field", n)
			}
			b = b[n:]
			continue
		}
		field, n := protowire.ConsumeBytes(b)
		if n < 0 {
			return md, wireError("metadata field", n)
		}
		b = b[n:]
		switch num {
		case 1:
			md.RowType = field
		case 2:
			var err error
			if md.TransactionID, md.ReadTimestamp, err = parseTransaction(field); err != nil {
				return md, err
			}
		}
	}
	return md, nil
}

// parseTransaction takes id (field 1) and read_timestamp (field 2) of an
// encoded Transaction.
func parseTransaction(b []byte) (id []byte, readTS time.Time, err error) {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return nil, time.Time{}, wireError("transaction tag", n)
		}
		b = b[n:]
		if typ == protowire.BytesType && (num == 1 || num == 2) {
			field, n := protowire.ConsumeBytes(b)
			if n < 0 {
				return nil, time.Time{}, wireError("transaction field", n)
			}
			b = b[n:]
			if num == 1 {
				id = field
			} else if readTS, err = parseTimestampMessage(field); err != nil {
				return nil, time.Time{}, err
			}
			continue
		}
		n = protowire.ConsumeFieldValue(num, typ, b)
		if n < 0 {
			return nil, time.Time{}, wireError("transaction field", n)
		}
		b = b[n:]
	}
	return id, readTS, nil
}

// parseTimestampMessage decodes a google.protobuf.Timestamp.
func parseTimestampMessage(b []byte) (time.Time, error) {
	var secs, nanos int64
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return time.Time{}, wireError("timestamp tag", n)
		}
		b = b[n:]
		if typ == protowire.VarintType && (num == 1 || num == 2) {
			v, n := protowire.ConsumeVarint(b)
			if n < 0 {
				return time.Time{}, wireError("timestamp field", n)
			}
			b = b[n:]
			if num == 1 {
				secs = int64(v)
			} else {
				nanos = int64(int32(v))
			}
			continue
		}
		n = protowire.ConsumeFieldValue(num, typ, b)
		if n < 0 {
			return time.Time{}, wireError("timestamp field", n)
		}
		b = b[n:]
	}
	if nanos < 0 || nanos > 999_999_999 {
		return time.Time{}, &ProtocolError{What: "read timestamp", Err: fmt.Errorf("nanos %d out of range", nanos), Code: codes.Internal}
	}
	return time.Unix(secs, nanos).UTC(), nil
}
