package conn

import (
	"slices"
	"testing"
)

// TestMultiPlanRules: the classes of statements and go-sql-spanner's rules
// for where the implicit transaction begins and whether it is read-only.
func TestMultiPlanRules(t *testing.T) {
	for _, tc := range []struct {
		stmts    []string
		classes  []stmtClass
		starts   []bool // startsImplicit per statement
		readOnly bool   // implicitReadOnly(0)
		runs     []int  // runLength per statement
	}{
		{[]string{"SELECT 1", "select 2"}, []stmtClass{classQuery, classQuery}, []bool{true, false}, true, []int{1, 1}},
		{[]string{"INSERT INTO T (a) VALUES (1)", "UPDATE T SET a = 1 WHERE true"}, []stmtClass{classDML, classDML}, []bool{true, false}, false, []int{2, 1}},
		{[]string{"INSERT INTO T (a) VALUES (1) THEN RETURN a", "DELETE FROM T WHERE 'then return' = ''"},
			[]stmtClass{classDMLReturning, classDML}, []bool{true, false}, false, []int{1, 1}},
		{[]string{"SELECT 1", "CREATE TABLE X (a INT64) PRIMARY KEY (a)", "ALTER TABLE X ADD COLUMN b INT64"},
			[]stmtClass{classQuery, classDDL, classDDL}, []bool{false, false, false}, true, []int{1, 2, 1}},
		{[]string{"SELECT 1", "SELECT 2", "CREATE TABLE X (a INT64) PRIMARY KEY (a)"},
			[]stmtClass{classQuery, classQuery, classDDL}, []bool{true, false, false}, true, []int{1, 1, 1}},
		{[]string{"SELECT 1", "SELECT 2", "BEGIN", "SELECT 3"},
			[]stmtClass{classQuery, classQuery, classBegin, classQuery}, []bool{true, true, false, false}, false, []int{1, 1, 1, 1}},
		{[]string{"SELECT 1", "SELECT 2", "COMMIT", "INSERT INTO T (a) VALUES (1)"},
			[]stmtClass{classQuery, classQuery, classEnd, classDML}, []bool{true, true, false, false}, true, []int{1, 1, 1, 1}},
		{[]string{"SET statement_tag = 'x'", "gibberish stuff", "SELECT 1"},
			[]stmtClass{classClient, classOther, classQuery}, []bool{false, true, false}, false, []int{1, 1, 1}},
	} {
		p := multiPlan{stmts: tc.stmts}
		for _, q := range tc.stmts {
			p.classes = append(p.classes, classify(parseStatement(q)))
		}
		if !slices.Equal(p.classes, tc.classes) {
			t.Errorf("%q: classes %v, want %v", tc.stmts, p.classes, tc.classes)
			continue
		}
		for i := range tc.stmts {
			if got := p.startsImplicit(i); got != tc.starts[i] {
				t.Errorf("%q: startsImplicit(%d) = %v", tc.stmts, i, got)
			}
			if got := p.runLength(i); got != tc.runs[i] {
				t.Errorf("%q: runLength(%d) = %d, want %d", tc.stmts, i, got, tc.runs[i])
			}
		}
		if got := p.implicitReadOnly(0); got != tc.readOnly {
			t.Errorf("%q: implicitReadOnly(0) = %v", tc.stmts, got)
		}
	}
}
