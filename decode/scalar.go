package decode

import (
	"database/sql/driver"
	"encoding/base64"
	"time"
	"unsafe"
)

// Column decoders for scalar types. Each is chosen once per column when a
// plan is built; NULL is handled here so the callers never branch on type.

type decodeFunc func(v Value, a *arena) (driver.Value, error)

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

// decodeDate keeps DATE as its "YYYY-MM-DD" text, as go-sql-spanner does;
// civil.Date and spanner.NullDate scan it.
func decodeDate(v Value, a *arena) (driver.Value, error) {
	if v.Kind == KindNull {
		return nil, nil
	}
	if _, err := parseDate(v); err != nil {
		return nil, err
	}
	return a.string(v.Bytes), nil
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
	p := a.take(timeSize)
	*(*time.Time)(p) = t
	return box(timeType, p), nil
}

const timeSize = int(unsafe.Sizeof(time.Time{}))

func decodeNumeric(v Value, _ *arena) (driver.Value, error) {
	if v.Kind == KindNull {
		return nil, nil
	}
	r, err := parseNumeric(v)
	if err != nil {
		return nil, err
	}
	return *r, nil
}

func decodeNumericString(v Value, a *arena) (driver.Value, error) {
	if v.Kind == KindNull {
		return nil, nil
	}
	if _, err := parseNumericString(v); err != nil {
		return nil, err
	}
	return a.string(v.Bytes), nil
}

func decodeJSON(v Value, _ *arena) (driver.Value, error) {
	if v.Kind == KindNull {
		return nullJSON, nil
	}
	j, err := parseJSON(v)
	if err != nil {
		return nil, err
	}
	return j, nil
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
