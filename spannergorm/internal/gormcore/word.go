package gormcore

// IsWord reports whether s is a plain word: one or more letters, digits
// and _. Both dialectors write such names as given, where nothing can be
// quoted (a sequence kind, a PostgreSQL hint comment).
func IsWord(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return s != ""
}
