package driver

import (
	"context"
	sqldriver "database/sql/driver"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/spannerfast/spannerfast/conn"
	"github.com/spannerfast/spannerfast/dsn"
	"github.com/spannerfast/spannerfast/internal/sqlparse"
)

// dialectQuery asks the database for its dialect: go-sql-spanner's text to
// the letter, because the servers that stand in for Spanner in
// go-sql-spanner's tests (and internal/fakespanner) answer this exact text
// and keep it out of the requests they record.
const dialectQuery = "select option_value from information_schema.database_options where option_name='database_dialect'"

// open makes a connection once the database's dialect is known. The
// connector's Client learns it on the first connection (this connection
// asks the database, as go-sql-spanner's first connection does, unless the
// DSN gives database_dialect) and keeps it; concurrent first connections
// share one question, and a failure is not kept, so the next connection
// asks again. connect_timeout bounds the question. The connection's
// properties then start at the DSN's with that dialect.
func (c *Connector) open(ctx context.Context) (*conn.Conn, error) {
	cn := conn.New(c.client, nil)
	if t := c.client.Config().ConnectTimeout; t > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, t)
		defer cancel()
	}
	cfg, err := c.client.DialectConfig(ctx, func(ctx context.Context) (dsn.DatabaseDialect, error) {
		return askDialect(ctx, cn)
	})
	if err != nil {
		_ = cn.Close()
		return nil, err
	}
	cn.SetDatabase(cfg, c.statements.get(cfg))
	return cn, nil
}

// askDialect runs dialectQuery on cn (a single-use strong read without the
// connection's statement properties, as go-sql-spanner's Single().Query)
// and reads its one value. Errors keep the server's gRPC code.
func askDialect(ctx context.Context, cn *conn.Conn) (dsn.DatabaseDialect, error) {
	const what = "spannerfast: reading the database's dialect"
	r, err := cn.QueryStrong(ctx, dialectQuery)
	if err != nil {
		return "", fmt.Errorf("%s: %w", what, err)
	}
	defer r.Close()
	dest := make([]sqldriver.Value, 1)
	if err := r.Next(dest); err != nil {
		if errors.Is(err, io.EOF) {
			return "", errors.New(what + ": the database reported none")
		}
		return "", fmt.Errorf("%s: %w", what, err)
	}
	var name string
	switch v := dest[0].(type) {
	case string:
		name = v
	case []byte: // raw_decode: the bytes alias the receive buffer until Next
		name = string(v)
	default:
		return "", fmt.Errorf("%s: got %T, want a string", what, dest[0])
	}
	switch err := r.Next(dest); {
	case err == nil:
		return "", errors.New(what + ": the database reported more than one")
	case !errors.Is(err, io.EOF):
		return "", fmt.Errorf("%s: %w", what, err)
	}
	return dsn.DatabaseDialect(name), nil
}

// statementCache is a connector's parse cache, shared by its connections.
// It is made by the first connection that opens, for the database's
// dialect, which does not change afterwards.
type statementCache struct {
	once  sync.Once
	cache *sqlparse.Cache
}

// get returns the cache, making it for cfg (the configuration with the
// database's dialect) the first time.
func (s *statementCache) get(cfg *dsn.Config) *sqlparse.Cache {
	s.once.Do(func() { s.cache = conn.NewStatementCache(cfg) })
	return s.cache
}
