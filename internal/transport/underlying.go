package transport

import (
	"context"
	"sync"

	"cloud.google.com/go/spanner"
	"google.golang.org/api/option"
)

// The official client behind go-sql-spanner's SpannerConn.UnderlyingClient:
// an official *spanner.Client for what the driver does not offer. It is made on the
// first call, shares the connector's first gRPC channel (so the endpoint,
// TLS or plaintext, credentials and authority are the connector's), takes
// the database, database_role, disable_route_to_leader and
// enable_end_to_end_tracing of its configuration, and is closed with the
// connector. It has sessions and a cache of its own: transactions of the
// two do not mix.

// officialClient holds the connector's official client once made.
type officialClient struct {
	mu     sync.Mutex
	client *spanner.Client
}

// Official returns the connector's official client, making it on the
// first call.
func (c *Client) Official(ctx context.Context) (*spanner.Client, error) {
	o := &c.official
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.client != nil {
		return o.client, nil
	}
	c.mu.Lock()
	closed := c.closed
	c.mu.Unlock()
	if closed {
		return nil, ErrClosed
	}
	cfg := spanner.ClientConfig{
		DatabaseRole:          c.cfg.DatabaseRole,
		DisableRouteToLeader:  c.cfg.DisableRouteToLeader,
		EnableEndToEndTracing: c.cfg.EnableEndToEndTracing,
		DisableNativeMetrics:  true,
	}
	client, err := spanner.NewClientWithConfig(ctx, c.dbPath, cfg,
		option.WithGRPCConn(c.conns[0]), option.WithTelemetryDisabled())
	if err != nil {
		return nil, err
	}
	o.client = client
	return client, nil
}

// closeOfficial closes the official client, if one was made, and reports
// whether it did: closing it closes the channel it was given too.
func (c *Client) closeOfficial() bool {
	o := &c.official
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.client == nil {
		return false
	}
	o.client.Close()
	o.client = nil
	return true
}
