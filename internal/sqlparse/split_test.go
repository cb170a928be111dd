package sqlparse

import (
	"errors"
	"slices"
	"testing"
)

func TestSplit(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"SELECT 1", []string{"SELECT 1"}},
		{"SELECT 1;", []string{"SELECT 1"}},
		{"SELECT 1; SELECT 2", []string{"SELECT 1", "SELECT 2"}},
		{" SELECT 1 ;; ;\n SELECT 2 ; -- end\n", []string{"SELECT 1", "SELECT 2"}},
		{"SELECT ';', \";\", `a;b`, r';', b''';''' -- ;\n; /* ; */ SELECT 2 # ;",
			[]string{"SELECT ';', \";\", `a;b`, r';', b''';''' -- ;", "/* ; */ SELECT 2 # ;"}},
		{"CREATE TABLE T (a INT64) PRIMARY KEY (a);CREATE INDEX I ON T (a)",
			[]string{"CREATE TABLE T (a INT64) PRIMARY KEY (a)", "CREATE INDEX I ON T (a)"}},
		{"", nil},
		{"; -- only a comment;", nil},
	} {
		got, err := Split(c.in)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("Split(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
	if _, err := Split("SELECT 1; SELECT ';"); !errors.Is(err, ErrUnclosedLiteral) {
		t.Errorf("Split of an unclosed literal: %v, want ErrUnclosedLiteral", err)
	}
}

// TestMulti: Parse marks text holding more than one statement, and only
// that; each statement may then use its own parameter style.
func TestMulti(t *testing.T) {
	for sql, want := range map[string]bool{
		"SELECT 1":                                false,
		"SELECT 1;":                               false,
		"SELECT 1 ; ; -- c\n /* c */ ;":           false,
		"SELECT ';' ; -- ; SELECT 2":              false,
		"SELECT 1; SELECT 2":                      true,
		"SELECT ?; SELECT @x":                     true,
		"SET a = 1; SHOW VARIABLE a":              true,
		"INSERT INTO T (a) VALUES (?);\nSELECT 1": true,
	} {
		st, err := Parse(sql)
		if err != nil || st.Multi != want {
			t.Errorf("Parse(%q).Multi = %v, %v; want %v", sql, st.Multi, err, want)
		}
		if want && (st.SQL != sql || st.Params != nil) {
			t.Errorf("Parse(%q) = %q %q; want the text unchanged, no parameters", sql, st.SQL, st.Params)
		}
	}
	if st, _ := Parse("SELECT ?;"); st.SQL != "SELECT @p1;" || !slices.Equal(st.Params, []string{"p1"}) {
		t.Errorf("a single statement with a trailing semicolon: %q %q", st.SQL, st.Params)
	}
}
