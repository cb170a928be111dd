package decode

import (
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

// unmarshalJSON is json.Unmarshal into an `any` with a faster path for the
// JSON Spanner sends: compact objects, arrays, numbers, literals and strings
// without escapes. Anything else (escapes, invalid UTF-8, control
// characters, very deep nesting, malformed input) goes to encoding/json, so
// the result, or the error, is always exactly encoding/json's.
func unmarshalJSON(b []byte) (any, error) {
	p := jsonParser{b: b}
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
		return s, ok
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
		k, ok := p.string()
		if !ok {
			return nil, false
		}
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

func (p *jsonParser) array(depth int) (any, bool) {
	p.i++ // [
	a := []any{}
	p.space()
	if p.i < len(p.b) && p.b[p.i] == ']' {
		p.i++
		return a, true
	}
	for {
		v, ok := p.value(depth + 1)
		if !ok {
			return nil, false
		}
		a = append(a, v)
		if end, ok := p.separator(']'); !ok {
			return nil, false
		} else if end {
			return a, true
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
func (p *jsonParser) string() (string, bool) {
	start := p.i + 1
	ascii := true
	for j := start; j < len(p.b); j++ {
		switch c := p.b[j]; {
		case c == '"':
			s := p.b[start:j]
			if !ascii && !utf8.Valid(s) {
				return "", false
			}
			p.i = j + 1
			return string(s), true
		case c == '\\' || c < 0x20:
			return "", false
		case c >= 0x80:
			ascii = false
		}
	}
	return "", false
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
	f, err := strconv.ParseFloat(view(b[p.i:i]), 64)
	if err != nil {
		return nil, false
	}
	p.i = i
	return f, true
}
