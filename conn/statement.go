package conn

import (
	"strings"
)

// statementKind is what the first keyword of a statement says it is.
type statementKind int

const (
	kindQuery       statementKind = iota // SELECT, WITH, GRAPH, FROM, or anything unknown
	kindDML                              // INSERT, UPDATE, DELETE
	kindDDL                              // CREATE, DROP, ALTER, ANALYZE, GRANT, REVOKE, RENAME
	kindClientSet                        // SET [LOCAL] name = value
	kindClientShow                       // SHOW VARIABLE name
	kindClientReset                      // RESET name
	kindStartBatch                       // START BATCH {DDL | DML}
	kindRunBatch                         // RUN BATCH
	kindAbortBatch                       // ABORT BATCH
)

// statement is a classified SQL text.
type statement struct {
	kind    statementKind
	keyword string // upper-cased first keyword
	rest    string // the text after the keyword, for client-side statements
}

// classify finds the first keyword after comments and statement hints.
func classify(sql string) statement {
	s := skipSpaceAndComments(sql)
	if strings.HasPrefix(s, "@{") {
		if end := strings.IndexByte(s, '}'); end >= 0 {
			s = skipSpaceAndComments(s[end+1:])
		}
	}
	word, rest := firstWord(s)
	st := statement{keyword: word, rest: strings.TrimSpace(rest)}
	switch word {
	case "INSERT", "UPDATE", "DELETE":
		st.kind = kindDML
	case "CREATE", "DROP", "ALTER", "ANALYZE", "GRANT", "REVOKE", "RENAME":
		st.kind = kindDDL
	case "SET":
		st.kind = kindClientSet
	case "SHOW":
		st.kind = kindClientShow
	case "RESET":
		st.kind = kindClientReset
	case "START":
		st.kind = kindStartBatch
	case "RUN":
		st.kind = kindRunBatch
	case "ABORT":
		st.kind = kindAbortBatch
	default:
		st.kind = kindQuery
	}
	return st
}

func firstWord(s string) (word, rest string) {
	i := 0
	for i < len(s) && (isIdentStart(s[i]) || (i > 0 && s[i] >= '0' && s[i] <= '9')) {
		i++
	}
	return strings.ToUpper(s[:i]), s[i:]
}

// skipSpaceAndComments drops leading white space, -- and # line comments and
// /* */ block comments.
func skipSpaceAndComments(s string) string {
	for {
		s = strings.TrimLeft(s, " \t\r\n\f")
		switch {
		case strings.HasPrefix(s, "--"), strings.HasPrefix(s, "#"):
			i := strings.IndexByte(s, '\n')
			if i < 0 {
				return ""
			}
			s = s[i+1:]
		case strings.HasPrefix(s, "/*"):
			i := strings.Index(s[2:], "*/")
			if i < 0 {
				return ""
			}
			s = s[i+4:]
		default:
			return s
		}
	}
}
