package conn

import (
	"github.com/spannerfast/spannerfast/dsn"
	"github.com/spannerfast/spannerfast/internal/params"
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

// statement is a parsed SQL text: what the router and the executors read.
// Nothing reads its text again (internal/sqlparse parsed it once).
type statement struct {
	kind    statementKind
	dml     sqlparse.DMLKind
	keyword string       // upper-cased first keyword
	sql     string       // the text to send (`?` rewritten to @pN)
	names   params.Names // its parameters; shared with the cache: read only
	multi   bool         // the text holds several statements (multistatement.go)

	thenReturn bool                      // DML with THEN RETURN
	database   sqlparse.DatabaseOp       // CREATE or DROP DATABASE
	dbName     string                    // DROP DATABASE's database
	client     *sqlparse.ClientStatement // a client-side statement's form; shared: read only
	invalid    error                     // why the statement is malformed: its executor reports it
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
	st := statement{dml: p.DML, keyword: p.Keyword, sql: p.SQL, names: params.NamesOf(&p), multi: p.Multi,
		thenReturn: p.ThenReturn, database: p.Database, dbName: p.DatabaseName, client: p.Client, invalid: p.Invalid}
	switch p.Kind {
	case sqlparse.DML:
		st.kind = kindDML
	case sqlparse.DDL:
		st.kind = kindDDL
	case sqlparse.Client:
		// Without a form (a string of several statements, or a parse
		// error) nothing routes on the kind.
		if p.Client != nil {
			st.kind = clientRoutes[p.Client.Command].kind
		}
	default:
		st.kind = kindQuery
	}
	return st
}

// NewStatementCache returns the parse cache a connector's connections
// share (New), sized by statement_cache_size: it keeps nothing when
// disable_statement_cache is set. It parses in the dialect of
// database_dialect (GoogleSQL unless POSTGRESQL; the connector makes it
// once the database's dialect is known).
func NewStatementCache(cfg *dsn.Config) *sqlparse.Cache {
	size := cfg.StatementCacheSize
	if cfg.DisableStatementCache {
		size = 0
	}
	if cfg.DatabaseDialect == dsn.DialectPostgreSQL {
		return sqlparse.NewDialectCache(size, sqlparse.PostgreSQL)
	}
	return sqlparse.NewCache(size)
}
