package sqltext

import "unicode"

// SkipQuoted returns the index just past the quoted literal or identifier
// that starts at s[i] (its quote byte), honouring backslash escapes; an
// unterminated one runs to the end of s.
func SkipQuoted(s string, i int) int {
	q := s[i]
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case q:
			return j + 1
		}
	}
	return len(s)
}

// SkipSpace returns the index of the first non-space byte from i.
func SkipSpace(s string, i int) int {
	for i < len(s) && unicode.IsSpace(rune(s[i])) {
		i++
	}
	return i
}

// IsWordByte reports whether c may appear in an unquoted identifier or
// keyword.
func IsWordByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
