package decode

import (
	"database/sql/driver"
	"fmt"
	"math/big"
	"reflect"
	"time"
	"unsafe"

	"cloud.google.com/go/civil"
	"cloud.google.com/go/spanner"
	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"github.com/google/uuid"
)

// ARRAY decoders. An array decodes into a freshly allocated slice in both
// modes: database/sql hands slices to Scan targets by reference, so they must
// never alias reused memory. A NULL array is a typed nil slice.

var nullJSON driver.Value = spanner.NullJSON{}

// elemFunc decodes one array element, NULL included.
type elemFunc[T any] func(Value) (T, error)

func arrayDecoder[T any](elem elemFunc[T]) valueFunc {
	alloc := arrayAllocator[T]()
	return func(v Value, _ *arena) (driver.Value, error) {
		if v.Kind == KindNull {
			return []T(nil), nil
		}
		if v.Kind != KindList {
			return nil, badValue("a list", v)
		}
		n, err := Count(v.Bytes)
		if err != nil {
			return nil, err
		}
		out, boxed := alloc(n)
		it := Elements(v.Bytes)
		for i := range out {
			b, _ := it.Next()
			ev, err := ParseValue(b)
			if err != nil {
				return nil, err
			}
			if out[i], err = elem(ev); err != nil {
				return nil, elementError(i, err)
			}
		}
		return boxed, nil
	}
}

// arrayAllocator returns the function that makes a fresh []T of n zero
// elements together with that slice as a driver.Value.
//
// A slice in an interface needs its header on the heap as well as its
// elements: two allocations. When T holds no pointers, both go into one
// pointer-free block, header first, exactly as the row slab keeps string
// and []byte headers (arena.go): the collector never needs to trace the
// header, whose pointer is into the block the interface keeps alive. An
// empty slice keeps the ordinary path, so no header ever points at the end
// of its block (which would be the start of another object).
func arrayAllocator[T any]() func(n int) ([]T, driver.Value) {
	plain := func(n int) ([]T, driver.Value) {
		out := make([]T, n)
		return out, out
	}
	if !pointerFree(reflect.TypeFor[T]()) {
		return plain
	}
	typ := typeWord([]T(nil))
	size := int(reflect.TypeFor[T]().Size())
	return func(n int) ([]T, driver.Value) {
		if n == 0 || size == 0 {
			return plain(n)
		}
		block := slabWords(sliceSlot + n*size)
		p := unsafe.Pointer(&block[sliceSlot])
		*(*sliceWords)(unsafe.Pointer(&block[0])) = sliceWords{uintptr(p), n, n}
		return unsafe.Slice((*T)(p), n), box(typ, unsafe.Pointer(&block[0]))
	}
}

// pointerFree reports whether values of t contain no pointers, so that
// they may live in memory the collector does not scan.
func pointerFree(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128:
		return true
	case reflect.Array:
		return t.Len() == 0 || pointerFree(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if !pointerFree(t.Field(i).Type) {
				return false
			}
		}
		return true
	}
	return false
}

// elementError says which element failed. A NullElementError carries its
// index itself, so that it stays the error's typed cause.
func elementError(i int, err error) error {
	if ne, ok := err.(*NullElementError); ok {
		ne.Index = i
		return ne
	}
	return fmt.Errorf("element %d: %w", i, err)
}

// nullable lifts a parser of non-NULL values into an element decoder whose
// NULL is the zero value of a spanner.Null* type.
func nullable[T, N any](parse func(Value) (T, error), wrap func(T) N) elemFunc[N] {
	return func(v Value) (N, error) {
		var zero N
		if v.Kind == KindNull {
			return zero, nil
		}
		x, err := parse(v)
		if err != nil {
			return zero, err
		}
		return wrap(x), nil
	}
}

// native is the element decoder for decode_to_native_arrays: a NULL element
// has no Go value, so it is an error.
func native[T any](parse func(Value) (T, error)) elemFunc[T] {
	return func(v Value) (T, error) {
		if v.Kind == KindNull {
			var zero T
			return zero, &NullElementError{ElemType: fmt.Sprintf("%T", zero)}
		}
		return parse(v)
	}
}

// bytesElem keeps a NULL BYTES element as nil, as go-sql-spanner does.
func bytesElem(v Value) ([]byte, error) {
	if v.Kind == KindNull {
		return nil, nil
	}
	return parseBytes(v)
}

// isPG reports a PostgreSQL-dialect NUMERIC or JSONB type, which
// go-sql-spanner returns as spanner.PGNumeric / spanner.PGJsonB.
func isPG(t *spannerpb.Type) bool {
	a := t.GetTypeAnnotation()
	return a == spannerpb.TypeAnnotationCode_PG_NUMERIC || a == spannerpb.TypeAnnotationCode_PG_JSONB
}

// parsePGJSONB decodes a PG_JSONB value; NULL is PGJsonB{}.
func parsePGJSONB(v Value) (spanner.PGJsonB, error) {
	if v.Kind == KindNull {
		return spanner.PGJsonB{}, nil
	}
	j, err := parseJSON(v)
	return spanner.PGJsonB{Value: j.Value, Valid: j.Valid}, err
}

func numericNull(r *big.Rat) spanner.NullNumeric {
	return spanner.NullNumeric{Numeric: *r, Valid: true}
}

// arrayDecoderFor returns the decoder of ARRAY<elem>, or nil when the element
// type is not supported.
func arrayDecoderFor(elem *spannerpb.Type, o Options) valueFunc {
	code := elem.GetCode()
	if o.NativeArrays {
		switch code {
		case codeBool:
			return arrayDecoder(native(parseBool))
		case codeInt64, codeEnum:
			return arrayDecoder(native(parseInt64))
		case codeFloat64:
			return arrayDecoder(native(parseFloat64))
		case codeFloat32:
			return arrayDecoder(native(parseFloat32))
		case codeString:
			return arrayDecoder(native(parseString))
		case codeDate:
			return arrayDecoder(native(parseDate))
		case codeTimestamp:
			return arrayDecoder(native(parseTimestamp))
		case codeUUID:
			return arrayDecoder(native(parseUUID))
		}
	}
	switch code {
	case codeBool:
		return arrayDecoder(nullable(parseBool, func(b bool) spanner.NullBool { return spanner.NullBool{Bool: b, Valid: true} }))
	case codeInt64, codeEnum:
		return int64ArrayDecoder(arrayDecoder(nullable(parseInt64, func(n int64) spanner.NullInt64 { return spanner.NullInt64{Int64: n, Valid: true} })))
	case codeFloat64:
		return arrayDecoder(nullable(parseFloat64, func(f float64) spanner.NullFloat64 { return spanner.NullFloat64{Float64: f, Valid: true} }))
	case codeFloat32:
		return arrayDecoder(nullable(parseFloat32, func(f float32) spanner.NullFloat32 { return spanner.NullFloat32{Float32: f, Valid: true} }))
	case codeString:
		return stringArrayDecoder(arrayDecoder(nullable(parseString, func(s string) spanner.NullString { return spanner.NullString{StringVal: s, Valid: true} })))
	case codeDate:
		return arrayDecoder(nullable(parseDate, func(d civil.Date) spanner.NullDate { return spanner.NullDate{Date: d, Valid: true} }))
	case codeTimestamp:
		return arrayDecoder(nullable(parseTimestamp, func(t time.Time) spanner.NullTime { return spanner.NullTime{Time: t, Valid: true} }))
	case codeNumeric:
		// go-sql-spanner applies neither decode_to_native_arrays nor
		// decode_numeric_to_string to NUMERIC arrays.
		if isPG(elem) {
			return arrayDecoder(nullable(parseNumericString, func(s string) spanner.PGNumeric { return spanner.PGNumeric{Numeric: s, Valid: true} }))
		}
		return arrayDecoder(nullable(parseNumeric, numericNull))
	case codeJSON:
		if isPG(elem) {
			return arrayDecoder(parsePGJSONB)
		}
		return arrayDecoder(func(v Value) (spanner.NullJSON, error) {
			if v.Kind == KindNull {
				return spanner.NullJSON{}, nil
			}
			return parseJSON(v)
		})
	case codeUUID:
		return arrayDecoder(nullable(parseUUID, func(u uuid.UUID) spanner.NullUUID { return spanner.NullUUID{UUID: u, Valid: true} }))
	case codeBytes, codeProto:
		return arrayDecoder(elemFunc[[]byte](bytesElem))
	case codeInterval:
		return arrayDecoder(nullable(parseInterval, func(iv spanner.Interval) spanner.NullInterval {
			return spanner.NullInterval{Interval: iv, Valid: true}
		}))
	case codeStruct:
		return arrayDecoder(structElem(elem.GetStructType()))
	}
	return nil
}

// int64ArrayDecoder decodes ARRAY<INT64>, the commonest array, without a
// function call per element when the list is in the form every encoder
// writes (see listElem) and every element is a plain decimal string or
// NULL; anything else goes to the general decoder, which also reports
// malformed input.
func int64ArrayDecoder(general valueFunc) valueFunc {
	alloc := arrayAllocator[spanner.NullInt64]()
	return func(v Value, a *arena) (driver.Value, error) {
		if v.Kind != KindList {
			return general(v, a)
		}
		n := 0
		for rest := v.Bytes; len(rest) > 0; n++ {
			var ok bool
			if _, rest, ok = listElem(rest); !ok {
				return general(v, a)
			}
		}
		out, boxed := alloc(n)
		rest := v.Bytes
		for i := range out {
			var e []byte
			e, rest, _ = listElem(rest)
			if s, ok := stringPayload(e); ok {
				if x, ok := parseDecimalInt64(s); ok {
					out[i] = spanner.NullInt64{Int64: x, Valid: true}
					continue
				}
			} else if isNullValue(e) {
				continue
			}
			return general(v, a)
		}
		return boxed, nil
	}
}

// isNullValue reports an encoded Value that is exactly a NULL.
func isNullValue(e []byte) bool { return len(e) == 2 && e[0] == fieldNull<<3 && e[1] == 0 }

// stringArrayDecoder decodes ARRAY<STRING> with the bytes of all its
// elements copied into one block, instead of one allocation per element,
// when the list is in the form encoders write (see listElem) and every
// element is a string or NULL; anything else goes to the general decoder.
// The block holds no pointers; the elements' strings point into it and
// keep it alive.
func stringArrayDecoder(general valueFunc) valueFunc {
	return func(v Value, a *arena) (driver.Value, error) {
		if v.Kind != KindList {
			return general(v, a)
		}
		n, size := 0, 0
		for rest := v.Bytes; len(rest) > 0; n++ {
			e, r, ok := listElem(rest)
			if !ok {
				return general(v, a)
			}
			rest = r
			if s, ok := stringPayload(e); ok {
				size += len(s)
			} else if !isNullValue(e) {
				return general(v, a)
			}
		}
		out := make([]spanner.NullString, n)
		block := make([]byte, 0, size)
		rest := v.Bytes
		for i := range out {
			var e []byte
			e, rest, _ = listElem(rest)
			s, ok := stringPayload(e)
			if !ok {
				continue // NULL
			}
			str := ""
			if len(s) > 0 { // an empty string must not point at the block's end
				at := len(block)
				block = append(block, s...)
				str = unsafe.String(&block[at], len(s))
			}
			out[i] = spanner.NullString{StringVal: str, Valid: true}
		}
		return out, nil
	}
}

// listElem splits the first element off an encoded ListValue when it is a
// values field shorter than 128 bytes, as encoders write small elements. It
// works on values, not an iterator in memory, so that walking a list stores
// no pointers (and runs no write barriers).
func listElem(l []byte) (elem, rest []byte, ok bool) {
	if len(l) < 2 || l[0] != fieldListValues<<3|2 || l[1] >= 0x80 || int(l[1]) > len(l)-2 {
		return nil, nil, false
	}
	end := 2 + int(l[1])
	return l[2:end], l[end:], true
}
