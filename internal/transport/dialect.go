package transport

import (
	"context"
	"fmt"

	"github.com/spannerfast/spannerfast/dsn"
)

// DetectDialect asks the database for its dialect. The connection layer
// supplies it (a query, which this package does not know how to run).
type DetectDialect func(ctx context.Context) (dsn.DatabaseDialect, error)

// dialectState is what a Client knows of its database's dialect.
type dialectState struct {
	cfg    *dsn.Config   // the configuration with database_dialect in effect; nil until known
	flight *dialectProbe // the detection in progress, if any
}

// dialectProbe is one detection; callers that find one in progress wait
// for it.
type dialectProbe struct {
	done     chan struct{}
	err      error
	ctxEnded bool // the prober's own context ended: waiters try again themselves
}

// DialectConfig returns the client's configuration with database_dialect
// set to the database's dialect, shared and read-only like Config. When the
// DSN gives database_dialect, that is the dialect and nothing is sent.
// Otherwise the first call runs detect (as go-sql-spanner does when its
// connector first connects) and the result is kept for the life of the
// Client; concurrent first callers share that one detection. A failed
// detection is returned to the callers waiting for it and not kept: the
// next call detects again. A caller whose own context ended does not pass
// that on to the others, who detect again instead.
func (c *Client) DialectConfig(ctx context.Context, detect DetectDialect) (*dsn.Config, error) {
	for {
		c.mu.Lock()
		if cfg := c.dialect.cfg; cfg != nil {
			c.mu.Unlock()
			return cfg, nil
		}
		if c.cfg.DatabaseDialect != dsn.DialectUnspecified && c.cfg.DatabaseDialect != "" {
			c.dialect.cfg = c.cfg
			c.mu.Unlock()
			return c.cfg, nil
		}
		if c.closed {
			c.mu.Unlock()
			return nil, ErrClosed
		}
		if f := c.dialect.flight; f != nil {
			c.mu.Unlock()
			select {
			case <-f.done:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			if f.err == nil || f.ctxEnded {
				continue
			}
			return nil, f.err
		}
		f := &dialectProbe{done: make(chan struct{})}
		c.dialect.flight = f
		c.mu.Unlock()

		d, err := detect(ctx)
		if err == nil && d != dsn.DialectGoogleSQL && d != dsn.DialectPostgreSQL {
			err = fmt.Errorf("spannerfast: database %s reports an unknown dialect %q", c.dbPath, d)
		}

		c.mu.Lock()
		c.dialect.flight = nil
		if err == nil {
			cfg := c.cfg.Clone()
			cfg.DatabaseDialect = d
			c.dialect.cfg = cfg
		} else {
			f.err = err
			f.ctxEnded = ctx.Err() != nil
		}
		close(f.done)
		cfg := c.dialect.cfg
		c.mu.Unlock()
		return cfg, err
	}
}
