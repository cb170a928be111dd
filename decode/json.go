package decode

import (
	"encoding/json"
	"strconv"
	"unicode/utf8"
	"unsafe"
)

// unmarshalJSON is json.Unmarshal into an `any` with a faster path for the
// JSON Spanner sends: compact objects, arrays, numbers, literals and strings
// without escapes. Anything else (escapes, invalid UTF-8, control
// characters, very deep nesting, malformed input) goes to encoding/json, so
// the result, or the error, is always exactly encoding/json's.
func unmarshalJSON(b []byte) (any, error) { return unmarshalJSONIn(b, nil) }

// unmarshalJSONIn is unmarshalJSON with blk (pointer-free memory, possibly
// empty) as the document's first block.
func unmarshalJSONIn(b, blk []byte) (any, error) {
	p := jsonParser{b: b, blk: blk}
	if v, ok := p.value(0); ok {
		p.space()
		if p.i == len(p.b) {
			return v, nil
		}
	}
	var v any
	err := json.Unmarshal(b, &v)
	return v, err
}

type jsonParser struct {
	b []byte
	i int
	// blk is pointer-free memory holding the document's numbers, string
	// bytes and the headers of its string values, carved off in order
	// (see take): a handful of allocations per document instead of one or
	// two per number and string. The interfaces and map keys that point
	// into a block keep it alive. A header inside a block is a plain word
	// the collector does not see, so it only ever points into its own
	// block: a string value's header and bytes are taken together.
	blk []byte
	off int
}

// jsonBlockMax bounds a block, and so what one retained value can pin.
const jsonBlockMax = 4096

// take returns n (a multiple of 8, > 0) bytes of block memory. The first
// block is sized from the document (twice its length covers the numbers,
// strings and headers of typical JSON); later ones double.
func (p *jsonParser) take(n int) unsafe.Pointer {
	if len(p.blk)-p.off < n {
		size := 2 * len(p.blk)
		if size == 0 {
			size = 2 * len(p.b)
		}
		p.blk, p.off = slabWords(max(n, min(size, jsonBlockMax))), 0
	}
	ptr := unsafe.Pointer(&p.blk[p.off])
	p.off += n
	return ptr
}

// str copies s into block memory; a string of one byte or none costs
// nothing as a Go string.
func (p *jsonParser) str(s []byte) string {
	if len(s) <= 1 {
		return string(s)
	}
	ptr := p.take(roundUp8(len(s)))
	copy(unsafe.Slice((*byte)(ptr), len(s)), s)
	return unsafe.String((*byte)(ptr), len(s))
}

// boxString makes the interface of a string value: its header, stored as
// plain words (see stringWords), then its bytes, in one piece of a block.
func (p *jsonParser) boxString(b []byte) any {
	var data unsafe.Pointer
	if len(b) > 1 {
		hdr := p.take(stringSlot + roundUp8(len(b)))
		data = unsafe.Add(hdr, stringSlot)
		copy(unsafe.Slice((*byte)(data), len(b)), b)
		*(*stringWords)(hdr) = stringWords{uintptr(data), len(b)}
		return box(stringType, hdr)
	}
	s := string(b) // static for one byte or none: nothing to keep alive
	hdr := p.take(stringSlot)
	*(*stringWords)(hdr) = stringWords{uintptr(unsafe.Pointer(unsafe.StringData(s))), len(s)}
	return box(stringType, hdr)
}

func (p *jsonParser) boxFloat(f float64) any {
	ptr := p.take(fixedSlot)
	*(*float64)(ptr) = f
	return box(float64Type, ptr)
}

const jsonMaxDepth = 100

func (p *jsonParser) space() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *jsonParser) value(depth int) (any, bool) {
	p.space()
	if p.i >= len(p.b) || depth > jsonMaxDepth {
		return nil, false
	}
	switch c := p.b[p.i]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		s, ok := p.string()
		if !ok {
			return nil, false
		}
		return p.boxString(s), true
	case c == 't':
		return true, p.literal("true")
	case c == 'f':
		return false, p.literal("false")
	case c == 'n':
		return nil, p.literal("null")
	default:
		return p.number()
	}
}

func (p *jsonParser) literal(lit string) bool {
	if len(p.b)-p.i < len(lit) || string(p.b[p.i:p.i+len(lit)]) != lit {
		return false
	}
	p.i += len(lit)
	return true
}

func (p *jsonParser) object(depth int) (any, bool) {
	p.i++ // {
	// Spanner's JSON objects are mostly small; a hint of 8 sizes the map for
	// them in one allocation instead of growing it key by key.
	m := make(map[string]any, 8)
	p.space()
	if p.i < len(p.b) && p.b[p.i] == '}' {
		p.i++
		return m, true
	}
	for {
		p.space()
		if p.i >= len(p.b) || p.b[p.i] != '"' {
			return nil, false
		}
		kb, ok := p.string()
		if !ok {
			return nil, false
		}
		k := p.str(kb)
		p.space()
		if p.i >= len(p.b) || p.b[p.i] != ':' {
			return nil, false
		}
		p.i++
		v, ok := p.value(depth + 1)
		if !ok {
			return nil, false
		}
		m[k] = v
		if end, ok := p.separator('}'); !ok {
			return nil, false
		} else if end {
			return m, true
		}
	}
}

// jsonArray is a JSON array's slice header, boxed in place, and room for
// its first elements: most arrays in a document are short, and this way
// one of up to four elements is one allocation (a longer one grows by
// append).
type jsonArray struct {
	s     []any
	first [4]any
}

var anySliceType = typeWord([]any(nil))

func (p *jsonParser) array(depth int) (any, bool) {
	p.i++ // [
	var (
		arr *jsonArray
		a   []any
	)
	p.space()
	if p.i < len(p.b) && p.b[p.i] == ']' {
		p.i++
		return []any{}, true
	}
	for {
		v, ok := p.value(depth + 1)
		if !ok {
			return nil, false
		}
		if arr == nil {
			arr = new(jsonArray)
			a = arr.first[:0:len(arr.first)]
		}
		a = append(a, v)
		if end, ok := p.separator(']'); !ok {
			return nil, false
		} else if end {
			arr.s = a
			return box(anySliceType, unsafe.Pointer(&arr.s)), true
		}
	}
}

// separator reads what follows an object member or array element: a comma
// (end false) or the closing bracket (end true); anything else is not ok.
func (p *jsonParser) separator(closer byte) (end, ok bool) {
	p.space()
	if p.i >= len(p.b) {
		return false, false
	}
	switch p.b[p.i] {
	case ',':
		p.i++
		return false, true
	case closer:
		p.i++
		return true, true
	}
	return false, false
}

// string reads a string with no escapes and valid UTF-8.
func (p *jsonParser) string() ([]byte, bool) {
	start := p.i + 1
	ascii := true
	for j := start; j < len(p.b); j++ {
		switch c := p.b[j]; {
		case c == '"':
			s := p.b[start:j]
			if !ascii && !utf8.Valid(s) {
				return nil, false
			}
			p.i = j + 1
			return s, true
		case c == '\\' || c < 0x20:
			return nil, false
		case c >= 0x80:
			ascii = false
		}
	}
	return nil, false
}

// number reads a JSON number: -?(0|[1-9]d*)(.d+)?([eE][+-]?d+)?
func (p *jsonParser) number() (any, bool) {
	b, i := p.b, p.i
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	default:
		return nil, false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			return nil, false
		}
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			return nil, false
		}
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	}
	f, ok := smallJSONInt(b[p.i:i])
	if !ok {
		var err error
		if f, err = strconv.ParseFloat(view(b[p.i:i]), 64); err != nil {
			return nil, false
		}
	}
	p.i = i
	return p.boxFloat(f), true
}

// smallJSONInt converts a JSON integer of at most 15 digits, which a
// float64 holds exactly, as strconv.ParseFloat would (-0 included) but
// without its general algorithm. s is a well-formed JSON number.
func smallJSONInt(s []byte) (float64, bool) {
	neg := s[0] == '-'
	if neg {
		s = s[1:]
	}
	if len(s) > 15 {
		return 0, false
	}
	var n int64
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, false // a fraction or an exponent
		}
		n = n*10 + int64(c-'0')
	}
	f := float64(n)
	if neg {
		f = -f
	}
	return f, true
}
