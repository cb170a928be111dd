package conn

import (
	"context"
	"testing"

	"github.com/spannerfast/spannerfast/dsn"
	"github.com/spannerfast/spannerfast/internal/transport"
)

// TestStatementCacheProperties: statement_cache_size bounds the connector's
// parse cache, shared by its connections; disable_statement_cache turns it
// off.
func TestStatementCacheProperties(t *testing.T) {
	for _, c := range []struct {
		dsn  string
		want int // statements cached after parsing three
	}{
		{"localhost:9010/projects/p/instances/i/databases/d;usePlainText=true", 3},
		{"localhost:9010/projects/p/instances/i/databases/d;usePlainText=true;statement_cache_size=2", 2},
		{"localhost:9010/projects/p/instances/i/databases/d;usePlainText=true;disable_statement_cache=true", 0},
	} {
		cfg, err := dsn.Parse(c.dsn)
		if err != nil {
			t.Fatal(err)
		}
		client, err := transport.NewClient(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		statements := NewStatementCache(cfg)
		a, b := New(client, statements), New(client, statements)
		for _, q := range []string{"SELECT 1", "SELECT 2", "SELECT ?"} {
			if _, err := a.parse(q); err != nil {
				t.Fatal(err)
			}
		}
		if n := statements.Len(); n != c.want {
			t.Errorf("%s: %d statements cached, want %d", c.dsn, n, c.want)
		}
		if st, err := b.parse("SELECT ?"); err != nil || st.sql != "SELECT @p1" || len(st.names.Sent) != 1 {
			t.Errorf("%s: second connection's parse = %+v, %v", c.dsn, st, err)
		}
		client.Close()
	}
}

// TestStatementCacheDialect: the cache parses in database_dialect's
// dialect (GoogleSQL unless POSTGRESQL), with and without caching.
func TestStatementCacheDialect(t *testing.T) {
	for _, c := range []struct {
		dialect dsn.DatabaseDialect
		off     bool
		want    string
	}{
		{dsn.DialectUnspecified, false, "SELECT @p1"},
		{dsn.DialectGoogleSQL, false, "SELECT @p1"},
		{dsn.DialectPostgreSQL, false, "SELECT $1"},
		{dsn.DialectPostgreSQL, true, "SELECT $1"},
	} {
		cfg := dsn.NewConfig()
		cfg.DatabaseDialect, cfg.DisableStatementCache = c.dialect, c.off
		if st, err := NewStatementCache(cfg).Parse("SELECT ?"); err != nil || st.SQL != c.want {
			t.Errorf("%s (cache off: %v): SELECT ? parsed as %q, %v; want %q", c.dialect, c.off, st.SQL, err, c.want)
		}
	}
}

func TestClassify(t *testing.T) {
	for _, c := range []struct {
		in   string
		kind statementKind
	}{
		{"SELECT 1", kindQuery},
		{"  -- c\n /* c */ @{FORCE_INDEX=x} select 1", kindQuery},
		{"WITH t AS (SELECT 1) SELECT * FROM t", kindQuery},
		{"insert into T (a) values (1)", kindDML},
		{"CREATE TABLE T (a INT64) PRIMARY KEY (a)", kindDDL},
		{"SET RAW_DECODE = true", kindClientSet},
		{"show variable raw_decode", kindClientShow},
		{"RESET raw_decode", kindClientReset},
		{"begin transaction", kindClientBegin},
		{"COMMIT", kindClientCommit},
		{"rollback", kindClientRollback},
		{"START BATCH DML", kindBatchStart},
		{"START TRANSACTION", kindBatchStart}, // GoogleSQL has no START TRANSACTION
		{"RUN BATCH", kindBatchRun},
		{"ABORT BATCH", kindBatchAbort},
		{"@{x=1} delete from T where true", kindDML},
	} {
		if got, err := parseStatement(c.in); err != nil || got.kind != c.kind {
			t.Errorf("parseStatement(%q) = %v, %v; want %v", c.in, got.kind, err, c.kind)
		}
	}
}
