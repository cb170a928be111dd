package decode

import (
	"database/sql/driver"
	"encoding/base64"
	"encoding/binary"
	"math"
	"math/big"
	"time"
	"unsafe"

	"cloud.google.com/go/spanner"
)

// Column decoders for scalar types. Each is chosen once per column when a
// plan is built; NULL is handled here so the callers never branch on type.

// decodeFunc decodes one encoded google.protobuf.Value of a column.
type decodeFunc func(b []byte, a *arena) (driver.Value, error)

// valueFunc decodes one parsed value; onValue turns it into a decodeFunc.
type valueFunc func(v Value, a *arena) (driver.Value, error)

func onValue(f valueFunc) decodeFunc {
	return func(b []byte, a *arena) (driver.Value, error) {
		v, err := ParseValue(b)
		if err != nil {
			return nil, err
		}
		return f(v, a)
	}
}

// The hot column types read the bytes directly when the value is in the
// form every encoder writes (one string, number or bool field) and fall back
// to ParseValue for everything else: NULL, odd encodings and errors.

// stringPayload returns the payload of a value that is exactly one
// string_value field.
func stringPayload(b []byte) ([]byte, bool) {
	if len(b) < 2 || b[0] != fieldString<<3|2 {
		return nil, false
	}
	l, n := shortLen(b[1:])
	if n == 0 || 1+n+l != len(b) {
		return nil, false
	}
	return b[1+n:], true
}

func fastInt64(b []byte, a *arena) (driver.Value, error) {
	if s, ok := stringPayload(b); ok {
		if n, ok := parseDecimalInt64(s); ok {
			return a.int64(n), nil
		}
	}
	return onValue(decodeInt64)(b, a)
}

func fastFloat64(b []byte, a *arena) (driver.Value, error) {
	if len(b) == 9 && b[0] == fieldNumber<<3|1 {
		return a.float64(math.Float64frombits(binary.LittleEndian.Uint64(b[1:]))), nil
	}
	return onValue(decodeFloat64)(b, a)
}

func fastString(b []byte, a *arena) (driver.Value, error) {
	if s, ok := stringPayload(b); ok {
		return a.string(s), nil
	}
	return onValue(decodeString)(b, a)
}

func fastBool(b []byte, a *arena) (driver.Value, error) {
	if len(b) == 2 && b[0] == fieldBool<<3 && b[1] < 2 {
		return boolValue(b[1] == 1), nil
	}
	return onValue(decodeBool)(b, a)
}

func fastTimestamp(b []byte, a *arena) (driver.Value, error) {
	if s, ok := stringPayload(b); ok {
		if t, ok := timestampOf(s); ok {
			return a.time(t), nil
		}
	}
	return onValue(decodeTimestamp)(b, a)
}

func decodeBool(v Value, _ *arena) (driver.Value, error) {
	if v.Kind == KindNull {
		return nil, nil
	}
	b, err := parseBool(v)
	if err != nil {
		return nil, err
	}
	return boolValue(b), nil
}

func decodeInt64(v Value, a *arena) (driver.Value, error) {
	if v.Kind == KindNull {
		return nil, nil
	}
	n, err := parseInt64(v)
	if err != nil {
		return nil, err
	}
	return a.int64(n), nil
}

func decodeFloat64(v Value, a *arena) (driver.Value, error) {
	if v.Kind == KindNull {
		return nil, nil
	}
	f, err := parseFloat64(v)
	if err != nil {
		return nil, err
	}
	return a.float64(f), nil
}

func decodeFloat32(v Value, a *arena) (driver.Value, error) {
	if v.Kind == KindNull {
		return nil, nil
	}
	f, err := parseFloat32(v)
	if err != nil {
		return nil, err
	}
	return a.float32(f), nil
}

func decodeString(v Value, a *arena) (driver.Value, error) {
	if v.Kind == KindNull {
		return nil, nil
	}
	if v.Kind != KindString {
		return nil, badValue("a string", v)
	}
	return a.string(v.Bytes), nil
}

// decodeDate gives the date's "YYYY-MM-DD" text, as go-sql-spanner does
// (a string; in raw mode []byte aliasing the message, like STRING). The
// text is checked first, so a malformed date fails Next rather than Scan.
// civil.Date and spanner.NullDate scan the text (civil.Date is a
// sql.Scanner), *string takes it as it is.
func decodeDate(v Value, a *arena) (driver.Value, error) {
	if v.Kind == KindNull {
		return nil, nil
	}
	if _, err := parseDate(v); err != nil {
		return nil, err
	}
	return a.string(v.Bytes), nil
}

// fastDate is decodeDate for a value that is exactly one string field.
func fastDate(b []byte, a *arena) (driver.Value, error) {
	if s, ok := stringPayload(b); ok {
		if _, ok := parseDateBytes(s); ok {
			return a.string(s), nil
		}
	}
	return onValue(decodeDate)(b, a)
}

func decodeUUID(v Value, a *arena) (driver.Value, error) {
	if v.Kind == KindNull {
		return nil, nil
	}
	if _, err := parseUUID(v); err != nil {
		return nil, err
	}
	return a.string(v.Bytes), nil
}

// decodeBytes decodes base64 into the row's slab. NULL is []byte(nil), as
// go-sql-spanner returns it.
func decodeBytes(v Value, a *arena) (driver.Value, error) {
	if v.Kind == KindNull {
		return []byte(nil), nil
	}
	if v.Kind != KindString {
		return nil, badValue("a base64 string", v)
	}
	buf := a.bytesBuffer(base64.StdEncoding.DecodedLen(len(v.Bytes)))
	n, err := base64.StdEncoding.Decode(buf, v.Bytes)
	if err != nil {
		return nil, badValue("standard base64", v)
	}
	return a.bytesHeader(buf[:n]), nil
}

var timeType = typeWord(time.Time{})

// decodeTimestamp stores the time.Time in the slab. That is sound only
// because the value is UTC, whose location pointer is nil: the slab holds no
// pointer the collector would need to see.
func decodeTimestamp(v Value, a *arena) (driver.Value, error) {
	if v.Kind == KindNull {
		return nil, nil
	}
	t, err := parseTimestamp(v)
	if err != nil {
		return nil, err
	}
	return a.time(t), nil
}

func (a *arena) time(t time.Time) driver.Value {
	// A UTC time.Time has a nil location, so its words are copied as
	// plain words (see stringWords).
	p := a.take(timeSlot)
	*(*[timeBytes]byte)(p) = *(*[timeBytes]byte)(unsafe.Pointer(&t))
	return box(timeType, p)
}

func decodeNumeric(v Value, _ *arena) (driver.Value, error) {
	if v.Kind == KindNull {
		return nil, nil
	}
	r, err := parseNumeric(v)
	if err != nil {
		return nil, err
	}
	// The value is a big.Rat (not a pointer), as go-sql-spanner returns
	// it; boxing r itself saves copying it into a second allocation.
	return box(ratType, unsafe.Pointer(r)), nil
}

var ratType = typeWord(big.Rat{})

func decodeNumericString(v Value, a *arena) (driver.Value, error) {
	if v.Kind == KindNull {
		return nil, nil
	}
	if err := checkNumericText(v); err != nil {
		return nil, err
	}
	return a.string(v.Bytes), nil
}

// jsonColumn is a JSON column's value and the first block of its
// document's memory in one allocation: the boxed NullJSON (PGJsonB for
// PG_JSONB, the same size), its numbers and short strings. Only J holds
// typed pointers; the block holds plain words (see jsonParser). B is the
// block: one of three sizes, each filling a size class with J (64, 128 and
// 256 bytes), chosen by the document's length.
type jsonColumn[J spanner.NullJSON | spanner.PGJsonB, B any] struct {
	j   J
	blk B
}

// jsonBlockFor is the first block a document of n bytes is given: twice its
// length covers the numbers, strings and headers of typical JSON (as
// jsonParser.take assumes); a larger document continues in blocks of its
// own.
func jsonBlockFor(n int) int {
	switch {
	case 2*n <= 5*8:
		return 5
	case 2*n <= 13*8:
		return 13
	}
	return 29
}

var (
	nullJSONType = typeWord(spanner.NullJSON{})
	pgJSONBType  = typeWord(spanner.PGJsonB{})
)

func decodeJSON(v Value, _ *arena) (driver.Value, error) {
	if v.Kind == KindNull {
		return nullJSON, nil
	}
	return decodeJSONAs[spanner.NullJSON](v)
}

// decodePGJSONB is decodeJSON for a PG_JSONB column: go-sql-spanner's
// spanner.PGJsonB (NULL is PGJsonB{}), in the same allocations.
func decodePGJSONB(v Value, _ *arena) (driver.Value, error) {
	if v.Kind == KindNull {
		return nullPGJSONB, nil
	}
	return decodeJSONAs[spanner.PGJsonB](v)
}

var nullPGJSONB driver.Value = spanner.PGJsonB{}

func decodeJSONAs[J spanner.NullJSON | spanner.PGJsonB](v Value) (driver.Value, error) {
	if v.Kind != KindString {
		_, err := parseJSONIn(v, nil)
		return nil, err
	}
	switch jsonBlockFor(len(v.Bytes)) {
	case 5:
		return parseJSONInto(new(jsonColumn[J, [5]uint64]), v)
	case 13:
		return parseJSONInto(new(jsonColumn[J, [13]uint64]), v)
	}
	return parseJSONInto(new(jsonColumn[J, [29]uint64]), v)
}

func parseJSONInto[J spanner.NullJSON | spanner.PGJsonB, B any](c *jsonColumn[J, B], v Value) (driver.Value, error) {
	blk := unsafe.Slice((*byte)(unsafe.Pointer(&c.blk)), unsafe.Sizeof(c.blk))
	j, err := parseJSONIn(v, blk)
	if err != nil {
		return nil, err
	}
	typ := nullJSONType
	switch p := any(&c.j).(type) {
	case *spanner.NullJSON:
		*p = j
	case *spanner.PGJsonB:
		*p = spanner.PGJsonB{Value: j.Value, Valid: j.Valid}
		typ = pgJSONBType
	}
	return box(typ, unsafe.Pointer(&c.j)), nil
}

func decodeInterval(v Value, _ *arena) (driver.Value, error) {
	if v.Kind == KindNull {
		return nil, nil
	}
	iv, err := parseInterval(v)
	if err != nil {
		return nil, err
	}
	return iv, nil
}
