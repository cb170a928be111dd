package transport

import (
	"context"
	"fmt"

	"github.com/spannerfast/spannerfast/dsn"
)

// DetectDialect asks the database for its dialect. The connection layer
// supplies it (a query, which this package does not know how to run).
type DetectDialect func(ctx context.Context) (dsn.DatabaseDialect, error)

// DialectConfig returns the client's configuration with database_dialect
// set to the database's dialect, shared and read-only like Config. When the
// DSN gives database_dialect, that is the dialect and nothing is sent.
// Otherwise the first call runs detect (as go-sql-spanner does when its
// connector first connects) and the result is kept for the life of the
// Client. Concurrent first callers share that one detection, which runs
// on a context of its own (shared_step.go): it goes on while any of them
// waits, each waits as long as its own context allows, and one caller's
// deadline fails nobody else. detect must therefore not rely on its
// caller still waiting. A failed detection is returned to the callers
// waiting for it and not kept: the next call detects again.
func (c *Client) DialectConfig(ctx context.Context, detect DetectDialect) (*dsn.Config, error) {
	if cfg, err := c.knownDialect(); cfg != nil || err != nil {
		return cfg, err
	}
	// A caller waits at most connect_timeout, as go-sql-spanner bounds
	// opening a connection by it (connect.go); the question goes on for
	// the others.
	wctx, cancel := c.withConnectTimeout(ctx)
	defer cancel()
	cfg, err := c.dialectStep.do(wctx, c.life, "the database's dialect", func(ctx context.Context) (*dsn.Config, error) {
		if cfg, err := c.knownDialect(); cfg != nil || err != nil {
			return cfg, err
		}
		d, err := detect(ctx)
		if err != nil {
			return nil, err
		}
		if d != dsn.DialectGoogleSQL && d != dsn.DialectPostgreSQL {
			return nil, fmt.Errorf("spannerfast: database %s reports an unknown dialect %q", c.dbPath, d)
		}
		cfg := c.cfg.Clone()
		cfg.DatabaseDialect = d
		c.mu.Lock()
		c.dialect = cfg
		c.mu.Unlock()
		return cfg, nil
	})
	if err != nil {
		return nil, c.unreachable(wctx, err, err)
	}
	return cfg, nil
}

// knownDialect returns the configuration with the database's dialect if it
// is known (detected, or given by the DSN), ErrClosed after Close, else
// nil.
func (c *Client) knownDialect() (*dsn.Config, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dialect != nil {
		return c.dialect, nil
	}
	if c.cfg.DatabaseDialect != dsn.DialectUnspecified && c.cfg.DatabaseDialect != "" {
		c.dialect = c.cfg
		return c.cfg, nil
	}
	if c.closed {
		return nil, ErrClosed
	}
	return nil, nil
}
