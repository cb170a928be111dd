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
	"github.com/spannerfast/spannerfast/internal/transport"
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
// share one question, which goes on while any of them waits (so one
// caller's deadline fails nobody else's connection), and a failure is not
// kept, so the next connection asks again. The connection's properties
// then start at the DSN's with that dialect.
func (c *Connector) open(ctx context.Context) (*conn.Conn, error) {
	p := &probe{client: c.client, cn: conn.New(c.client, nil)}
	cfg, err := c.client.DialectConfig(ctx, p.ask)
	if err != nil {
		p.giveUp()
		return nil, err
	}
	p.cn.SetDatabase(cfg, c.statements.get(cfg))
	return p.cn, nil
}

// probe is the new connection the dialect question runs on, lent by its
// opener. The question may go on after the opener stopped waiting (its
// context ended); whichever of the two is done with the connection last
// closes it then. A question that begins after its opener left runs on a
// connection of its own.
type probe struct {
	client *transport.Client
	cn     *conn.Conn
	mu     sync.Mutex
	lent   bool // the question runs on cn
	given  bool // the opener gave cn up
}

// ask is the transport.DetectDialect of the question.
func (p *probe) ask(ctx context.Context) (dsn.DatabaseDialect, error) {
	p.mu.Lock()
	cn := p.cn
	if p.given {
		cn = nil
	} else {
		p.lent = true
	}
	p.mu.Unlock()
	if cn == nil {
		own := conn.New(p.client, nil)
		defer own.Close()
		return askDialect(ctx, own)
	}
	d, err := askDialect(ctx, cn)
	p.mu.Lock()
	p.lent = false
	closeIt := p.given
	p.mu.Unlock()
	if closeIt {
		_ = cn.Close()
	}
	return d, err
}

// giveUp is the opener's once it failed: the connection is closed now,
// unless the question still runs on it (ask closes it then).
func (p *probe) giveUp() {
	p.mu.Lock()
	p.given = true
	busy := p.lent
	p.mu.Unlock()
	if !busy {
		_ = p.cn.Close()
	}
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
