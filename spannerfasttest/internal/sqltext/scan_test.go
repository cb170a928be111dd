package sqltext

import "testing"

func TestSkipQuoted(t *testing.T) {
	for _, tc := range []struct {
		s    string
		i    int
		want int
	}{
		{`'abc' x`, 0, 5},
		{`x "a\"b" y`, 2, 8},
		{"`t`", 0, 3},
		{`'open`, 0, 5},
		{`'a\'`, 0, 4},
	} {
		if got := SkipQuoted(tc.s, tc.i); got != tc.want {
			t.Errorf("SkipQuoted(%q, %d) = %d, want %d", tc.s, tc.i, got, tc.want)
		}
	}
}

func TestSkipSpaceAndWordBytes(t *testing.T) {
	if got := SkipSpace("a \t\n b", 1); got != 5 {
		t.Errorf("SkipSpace = %d, want 5", got)
	}
	if got := SkipSpace("ab", 2); got != 2 {
		t.Errorf("SkipSpace at the end = %d, want 2", got)
	}
	for _, c := range []byte("azAZ09_") {
		if !IsWordByte(c) {
			t.Errorf("IsWordByte(%q) = false", c)
		}
	}
	for _, c := range []byte(" .@`'-(") {
		if IsWordByte(c) {
			t.Errorf("IsWordByte(%q) = true", c)
		}
	}
}
