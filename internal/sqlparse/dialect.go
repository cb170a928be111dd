package sqlparse

import "strings"

// Dialect is the SQL dialect of a database: how its statements are read.
// The zero value is GoogleSQL. A connector has one dialect (its database's),
// so a Cache is made for one (NewDialectCache).
type Dialect uint8

const (
	GoogleSQL  Dialect = iota // GoogleSQL: @name and ? parameters, `quoted` identifiers, # comments
	PostgreSQL                // Spanner's PostgreSQL interface: $1..$n parameters, "quoted" identifiers, $$ strings
)

func (d Dialect) String() string {
	if d == PostgreSQL {
		return "PostgreSQL"
	}
	return "GoogleSQL"
}

// rules returns the tables of d; any value but PostgreSQL is GoogleSQL, as
// the zero value is.
func (d Dialect) rules() *dialect {
	if d == PostgreSQL {
		return &postgreSQL
	}
	return &googleSQL
}

// dialect returns the Dialect whose tables d is.
func (d *dialect) dialect() Dialect {
	if d.pg {
		return PostgreSQL
	}
	return GoogleSQL
}

// dialect is what differs between SQL dialects in how a statement is read:
// the lexical rules (next, nextPG in lex.go), the first keywords that decide
// a statement's kind, and for client-side statements which grammar reads
// the rest. The client-side grammars themselves (client.go) are shared; a
// dialect picks among them, and a few of them (SET, BEGIN, COMMIT) ask pg
// for the words PostgreSQL adds (TO, SESSION, WORK...).
type dialect struct {
	pg       bool
	next     func(sql string, i int) (tokKind, int, error)
	keywords []keyword
}

// keyword is a first keyword and what it makes of a statement.
type keyword struct {
	word string // upper case; Statement.Keyword is this string, so recognising it allocates nothing
	kind Kind
	dml  DMLKind
	form clientForm // for Client: the grammar of the rest of the statement
}

// clientForm names the grammar that reads a client-side statement after its
// first keyword (client.go).
type clientForm uint8

const (
	formNone      clientForm = iota
	formSet                  // SET name = value, SET LOCAL ..., SET TRANSACTION ...
	formShow                 // SHOW [VARIABLE] name
	formReset                // RESET name
	formBegin                // BEGIN [TRANSACTION] [option[, ...]]
	formEnd                  // COMMIT | ROLLBACK [TRANSACTION]
	formBatch                // START | ABORT BATCH ...; RUN BATCH | PARTITION | PARTITIONED QUERY
	formPartition            // PARTITION <query>
	formStart                // PostgreSQL: START [TRANSACTION | WORK] ... or START BATCH ...
	formAbort                // PostgreSQL: ABORT [TRANSACTION | WORK] (a rollback) or ABORT BATCH
	formSavepoint            // SAVEPOINT name
	formRelease              // RELEASE [SAVEPOINT] name
)

// googleSQL is the GoogleSQL dialect. START is always START BATCH: as in
// go-sql-spanner, START TRANSACTION is PostgreSQL only.
var googleSQL = dialect{next: next, keywords: []keyword{
	{"SELECT", Query, NotDML, formNone}, {"WITH", Query, NotDML, formNone},
	{"GRAPH", Query, NotDML, formNone}, {"FROM", Query, NotDML, formNone},
	{"INSERT", DML, Insert, formNone}, {"UPDATE", DML, Update, formNone}, {"DELETE", DML, Delete, formNone},
	{"CREATE", DDL, NotDML, formNone}, {"DROP", DDL, NotDML, formNone}, {"ALTER", DDL, NotDML, formNone},
	{"ANALYZE", DDL, NotDML, formNone}, {"GRANT", DDL, NotDML, formNone}, {"REVOKE", DDL, NotDML, formNone},
	{"RENAME", DDL, NotDML, formNone},
	{"SET", Client, NotDML, formSet}, {"SHOW", Client, NotDML, formShow}, {"RESET", Client, NotDML, formReset},
	{"BEGIN", Client, NotDML, formBegin}, {"COMMIT", Client, NotDML, formEnd}, {"ROLLBACK", Client, NotDML, formEnd},
	{"START", Client, NotDML, formBatch}, {"RUN", Client, NotDML, formBatch}, {"ABORT", Client, NotDML, formBatch},
	// RUN PARTITION and RUN PARTITIONED QUERY start with RUN.
	{"PARTITION", Client, NotDML, formPartition},
	{"SAVEPOINT", Client, NotDML, formSavepoint}, {"RELEASE", Client, NotDML, formRelease},
}}

// postgreSQL is Spanner's PostgreSQL dialect: the GoogleSQL keywords, with
// PostgreSQL's transaction statements as go-sql-spanner accepts them there
// (START [TRANSACTION | WORK] begins a transaction, START BATCH starts a
// batch) and PostgreSQL's synonyms END (COMMIT) and ABORT (ROLLBACK, unless
// it is ABORT BATCH).
var postgreSQL = dialect{pg: true, next: nextPG, keywords: []keyword{
	{"SELECT", Query, NotDML, formNone}, {"WITH", Query, NotDML, formNone},
	{"GRAPH", Query, NotDML, formNone}, {"FROM", Query, NotDML, formNone},
	{"INSERT", DML, Insert, formNone}, {"UPDATE", DML, Update, formNone}, {"DELETE", DML, Delete, formNone},
	{"CREATE", DDL, NotDML, formNone}, {"DROP", DDL, NotDML, formNone}, {"ALTER", DDL, NotDML, formNone},
	{"ANALYZE", DDL, NotDML, formNone}, {"GRANT", DDL, NotDML, formNone}, {"REVOKE", DDL, NotDML, formNone},
	{"RENAME", DDL, NotDML, formNone},
	{"SET", Client, NotDML, formSet}, {"SHOW", Client, NotDML, formShow}, {"RESET", Client, NotDML, formReset},
	{"BEGIN", Client, NotDML, formBegin}, {"COMMIT", Client, NotDML, formEnd}, {"ROLLBACK", Client, NotDML, formEnd},
	{"END", Client, NotDML, formEnd},
	{"START", Client, NotDML, formStart}, {"RUN", Client, NotDML, formBatch}, {"ABORT", Client, NotDML, formAbort},
	{"PARTITION", Client, NotDML, formPartition},
	{"SAVEPOINT", Client, NotDML, formSavepoint}, {"RELEASE", Client, NotDML, formRelease},
}}

// lookup returns the entry of word (any case), or nil.
func (d *dialect) lookup(word string) *keyword {
	for i := range d.keywords {
		k := &d.keywords[i]
		if len(k.word) == len(word) && strings.EqualFold(k.word, word) {
			return k
		}
	}
	return nil
}
