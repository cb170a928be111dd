package conn

import (
	"github.com/spannerfast/spannerfast/dsn"
	"github.com/spannerfast/spannerfast/internal/sqlparse"
)

// statementKind is what the first keyword of a statement says it is.
type statementKind int

const (
	kindQuery          statementKind = iota // SELECT, WITH, GRAPH, FROM, or anything unknown
	kindDML                                 // INSERT, UPDATE, DELETE
	kindDDL                                 // CREATE, DROP, ALTER, ANALYZE, GRANT, REVOKE, RENAME
	kindClientSet                           // SET [LOCAL | TRANSACTION] ...
	kindClientShow                          // SHOW VARIABLE name
	kindClientReset                         // RESET name
	kindClientBegin                         // BEGIN [TRANSACTION] [options]
	kindClientCommit                        // COMMIT [TRANSACTION]
	kindClientRollback                      // ROLLBACK [TRANSACTION]
	kindBatchStart                          // START BATCH {DDL | DML}
	kindBatchRun                            // RUN BATCH
	kindBatchAbort                          // ABORT BATCH
	kindPartition                           // PARTITION <query> (partitions.go)
)

// clientKinds maps the first keyword of a client-side statement to its kind.
// START is always START BATCH: as in go-sql-spanner, START TRANSACTION is
// PostgreSQL only.
var clientKinds = map[string]statementKind{
	"SET": kindClientSet, "SHOW": kindClientShow, "RESET": kindClientReset,
	"BEGIN": kindClientBegin, "COMMIT": kindClientCommit, "ROLLBACK": kindClientRollback,
	"START": kindBatchStart, "RUN": kindBatchRun, "ABORT": kindBatchAbort,
	"PARTITION": kindPartition,
}

// statement is a parsed SQL text.
type statement struct {
	kind    statementKind
	dml     sqlparse.DMLKind
	keyword string   // upper-cased first keyword
	rest    string   // the text after the keyword, for client-side statements
	sql     string   // the text to send (`?` rewritten to @pN)
	params  []string // distinct parameter names; shared with the cache: read only
	multi   bool     // the text holds several statements (multistatement.go)
}

// parse parses query through the connector's statement cache
// (statement_cache_size, disable_statement_cache).
func (c *Conn) parse(query string) (statement, error) {
	p, err := c.statements.Parse(query)
	return toStatement(p), err
}

// parseStatement parses query without a cache.
func parseStatement(query string) (statement, error) {
	p, err := sqlparse.Parse(query)
	return toStatement(p), err
}

func toStatement(p sqlparse.Statement) statement {
	st := statement{dml: p.DML, keyword: p.Keyword, rest: p.Rest, sql: p.SQL, params: p.Params, multi: p.Multi}
	switch p.Kind {
	case sqlparse.DML:
		st.kind = kindDML
	case sqlparse.DDL:
		st.kind = kindDDL
	case sqlparse.Client:
		st.kind = clientKinds[p.Keyword]
	default:
		st.kind = kindQuery
	}
	return st
}

// NewStatementCache returns the parse cache a connector's connections
// share (New), sized by statement_cache_size: it keeps nothing when
// disable_statement_cache is set.
func NewStatementCache(cfg *dsn.Config) *sqlparse.Cache {
	size := cfg.StatementCacheSize
	if cfg.DisableStatementCache {
		size = 0
	}
	return sqlparse.NewCache(size)
}
