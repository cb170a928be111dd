package decode

import (
	"encoding/binary"
	"math"

	"google.golang.org/protobuf/encoding/protowire"
)

// Kind is which member of google.protobuf.Value's oneof a wire value holds.
type Kind uint8

// The kinds of a google.protobuf.Value. KindUnset is a Value with no member set,
// which Spanner never sends for a column value.
const (
	KindUnset Kind = iota
	KindNull
	KindNumber
	KindString
	KindBool
	KindStruct
	KindList
)

var kindNames = [...]string{"unset", "null", "number", "string", "bool", "struct", "list"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "unknown"
}

// Value fields of google.protobuf.Value.
const (
	fieldNull       = 1
	fieldNumber     = 2
	fieldString     = 3
	fieldBool       = 4
	fieldStruct     = 5
	fieldList       = 6
	fieldListValues = 1
)

// Value is one parsed google.protobuf.Value. Bytes aliases the encoded message:
// the string payload for KindString and the encoded ListValue for KindList.
type Value struct {
	Kind  Kind
	Bool  bool
	Num   float64
	Bytes []byte
}

// ParseValue reads an encoded google.protobuf.Value. Unknown fields are
// skipped; when the oneof appears more than once the last member wins, as in
// protobuf's own decoding.
func ParseValue(b []byte) (Value, error) {
	// Fast paths for a value that is exactly one field, as every encoder
	// writes it: a short string, a number, a null or a bool. The general loop
	// below gives the same answers, only slower.
	if len(b) >= 2 {
		switch b[0] {
		case fieldString<<3 | 2:
			if n := int(b[1]); n < 0x80 && n == len(b)-2 {
				return Value{Kind: KindString, Bytes: b[2:]}, nil
			}
		case fieldNumber<<3 | 1:
			if len(b) == 9 {
				return Value{Kind: KindNumber, Num: math.Float64frombits(binary.LittleEndian.Uint64(b[1:]))}, nil
			}
		case fieldNull << 3:
			if len(b) == 2 && b[1] < 0x80 {
				return Value{Kind: KindNull}, nil
			}
		case fieldBool << 3:
			if len(b) == 2 && b[1] < 0x80 {
				return Value{Kind: KindBool, Bool: b[1] != 0}, nil
			}
		}
	}
	return parseValueSlow(b)
}

func parseValueSlow(b []byte) (Value, error) {
	var v Value
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return v, wireError("value tag", n)
		}
		b = b[n:]
		switch {
		case num == fieldNull && typ == protowire.VarintType:
			_, n = protowire.ConsumeVarint(b)
			v = Value{Kind: KindNull}
		case num == fieldNumber && typ == protowire.Fixed64Type:
			var bits uint64
			bits, n = protowire.ConsumeFixed64(b)
			v = Value{Kind: KindNumber, Num: math.Float64frombits(bits)}
		case num == fieldString && typ == protowire.BytesType:
			var s []byte
			s, n = protowire.ConsumeBytes(b)
			v = Value{Kind: KindString, Bytes: s}
		case num == fieldBool && typ == protowire.VarintType:
			var x uint64
			x, n = protowire.ConsumeVarint(b)
			v = Value{Kind: KindBool, Bool: x != 0}
		case num == fieldStruct && typ == protowire.BytesType:
			var s []byte
			s, n = protowire.ConsumeBytes(b)
			v = Value{Kind: KindStruct, Bytes: s}
		case num == fieldList && typ == protowire.BytesType:
			var s []byte
			s, n = protowire.ConsumeBytes(b)
			v = Value{Kind: KindList, Bytes: s}
		default:
			n = protowire.ConsumeFieldValue(num, typ, b)
		}
		if n < 0 {
			return v, wireError("value field", n)
		}
		b = b[n:]
	}
	return v, nil
}

// ListIter walks the elements of an encoded ListValue without allocating.
type ListIter struct {
	rest []byte
	err  error
}

// Elements starts iterating the encoded ListValue l.
func Elements(l []byte) ListIter { return ListIter{rest: l} }

// Next returns the next element's encoded Value; ok is false at the end or on
// malformed input (see Err).
func (it *ListIter) Next() (elem []byte, ok bool) {
	for len(it.rest) > 0 {
		num, typ, n := protowire.ConsumeTag(it.rest)
		if n < 0 {
			it.fail(wireError("list tag", n))
			return nil, false
		}
		it.rest = it.rest[n:]
		if num == fieldListValues && typ == protowire.BytesType {
			e, n := protowire.ConsumeBytes(it.rest)
			if n < 0 {
				it.fail(wireError("list element", n))
				return nil, false
			}
			it.rest = it.rest[n:]
			return e, true
		}
		n = protowire.ConsumeFieldValue(num, typ, it.rest)
		if n < 0 {
			it.fail(wireError("list field", n))
			return nil, false
		}
		it.rest = it.rest[n:]
	}
	return nil, false
}

func (it *ListIter) fail(err error) { it.err, it.rest = err, nil }

// Err reports malformed input met by Next.
func (it *ListIter) Err() error { return it.err }

// Count returns the number of elements in an encoded ListValue.
func Count(l []byte) (int, error) {
	it := Elements(l)
	n := 0
	for _, ok := it.Next(); ok; _, ok = it.Next() {
		n++
	}
	return n, it.Err()
}
