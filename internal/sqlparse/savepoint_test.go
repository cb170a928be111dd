package sqlparse

import (
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// TestSavepointStatements: SAVEPOINT, ROLLBACK TO and RELEASE in both
// dialects, their names (quoted, plain, PostgreSQL's folding) and the
// malformed forms, which carry an InvalidArgument error in Invalid.
func TestSavepointStatements(t *testing.T) {
	for _, c := range []struct {
		d       Dialect
		sql     string
		cmd     Command
		name    string
		invalid bool
	}{
		{GoogleSQL, "SAVEPOINT s1", CmdSavepoint, "s1", false},
		{GoogleSQL, "savepoint MixedCase ;", CmdSavepoint, "MixedCase", false},
		{GoogleSQL, "SAVEPOINT `a b`", CmdSavepoint, "a b", false},
		{GoogleSQL, "SAVEPOINT /* c */ s -- x\n", CmdSavepoint, "s", false},
		{GoogleSQL, "ROLLBACK TO s1", CmdRollbackTo, "s1", false},
		{GoogleSQL, "rollback to savepoint S1;", CmdRollbackTo, "S1", false},
		{GoogleSQL, "ROLLBACK TO SAVEPOINT", CmdRollbackTo, "SAVEPOINT", false}, // a savepoint named savepoint
		{GoogleSQL, "RELEASE s1", CmdRelease, "s1", false},
		{GoogleSQL, "RELEASE SAVEPOINT `s\\`1`", CmdRelease, "s`1", false},
		{GoogleSQL, "ROLLBACK", CmdRollback, "", false},
		{GoogleSQL, "ROLLBACK TRANSACTION TO s", CmdRollback, "", true}, // PostgreSQL's form only
		{GoogleSQL, "SAVEPOINT", CmdSavepoint, "", true},
		{GoogleSQL, "SAVEPOINT a b", CmdSavepoint, "", true},
		{GoogleSQL, "SAVEPOINT 1a", CmdSavepoint, "", true},
		{GoogleSQL, "SAVEPOINT 'a'", CmdSavepoint, "", true},
		{GoogleSQL, `SAVEPOINT "a"`, CmdSavepoint, "", true}, // a string in GoogleSQL
		{GoogleSQL, "ROLLBACK TO", CmdRollbackTo, "", true},
		{GoogleSQL, "RELEASE SAVEPOINT a b", CmdRelease, "", true},
		{PostgreSQL, "SAVEPOINT MixedCase", CmdSavepoint, "mixedcase", false},
		{PostgreSQL, `SAVEPOINT "MixedCase"`, CmdSavepoint, "MixedCase", false},
		{PostgreSQL, `SAVEPOINT "a""b"`, CmdSavepoint, `a"b`, false},
		{PostgreSQL, "SAVEPOINT s$1", CmdSavepoint, "s$1", false},
		{PostgreSQL, "ROLLBACK TO S1", CmdRollbackTo, "s1", false},
		{PostgreSQL, "ROLLBACK WORK TO SAVEPOINT s1", CmdRollbackTo, "s1", false},
		{PostgreSQL, "rollback transaction to s1;", CmdRollbackTo, "s1", false},
		{PostgreSQL, "RELEASE SAVEPOINT S1", CmdRelease, "s1", false},
		{PostgreSQL, "RELEASE s1", CmdRelease, "s1", false},
		{PostgreSQL, "ROLLBACK WORK", CmdRollback, "", false},
		{PostgreSQL, "ABORT TO s1", CmdRollback, "", true},
		{PostgreSQL, "SAVEPOINT `a`", CmdSavepoint, "", true},
		{PostgreSQL, "ROLLBACK TO SAVEPOINT a, b", CmdRollbackTo, "", true},
	} {
		st, err := ParseDialect(c.d, c.sql)
		if err != nil {
			t.Fatalf("%v %q: %v", c.d, c.sql, err)
		}
		if st.Kind != Client || st.Client == nil || st.Client.Command != c.cmd {
			t.Errorf("%v %q: %s, want command %d", c.d, c.sql, describe(st), c.cmd)
			continue
		}
		if c.invalid {
			if st.Invalid == nil || status.Code(st.Invalid) != codes.InvalidArgument {
				t.Errorf("%v %q: Invalid %v, want InvalidArgument", c.d, c.sql, st.Invalid)
			}
			continue
		}
		if st.Invalid != nil || st.Client.Savepoint != c.name {
			t.Errorf("%v %q: savepoint %q, %v; want %q", c.d, c.sql, st.Client.Savepoint, st.Invalid, c.name)
		}
	}
}

// FuzzSavepointName: in each dialect, any text after SAVEPOINT, ROLLBACK
// TO and RELEASE parses without a panic into a name or an InvalidArgument
// error, the same for ROLLBACK TO and RELEASE (the same grammar); and a
// name read is one QuoteIdent writes back to the same name.
func FuzzSavepointName(f *testing.F) {
	for _, s := range []string{"s1", "`a b`", `"A"`, "A", "a b", "", ";", "/* x */ a;", "SAVEPOINT", "`", "\x00", "é", "s$1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		for _, d := range []Dialect{GoogleSQL, PostgreSQL} {
			var got []string
			for _, prefix := range []string{"SAVEPOINT ", "ROLLBACK TO ", "RELEASE "} {
				st, err := ParseDialect(d, prefix+name)
				if err != nil || st.Multi {
					return // a lexical error or several statements: FuzzParse's concern
				}
				if st.Client == nil {
					t.Fatalf("%v %q: no client form", d, prefix+name)
				}
				if st.Invalid != nil {
					if status.Code(st.Invalid) != codes.InvalidArgument {
						t.Fatalf("%v %q: %v", d, prefix+name, st.Invalid)
					}
					got = append(got, "invalid")
					continue
				}
				got = append(got, st.Client.Savepoint)
				q, err := QuoteIdent(d, st.Client.Savepoint)
				if err != nil {
					t.Fatalf("%v %q: name %q cannot be quoted: %v", d, prefix+name, st.Client.Savepoint, err)
				}
				again, err := ParseDialect(d, prefix+q)
				if err != nil || again.Invalid != nil || again.Client.Savepoint != st.Client.Savepoint {
					t.Fatalf("%v %q: name %q quoted as %q reads %+v, %v", d, prefix+name, st.Client.Savepoint, q, again.Client, err)
				}
			}
			if len(got) == 3 && got[1] != got[2] {
				t.Fatalf("%v %q: the three statements read %q", d, name, got)
			}
		}
	})
}
