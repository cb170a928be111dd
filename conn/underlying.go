package conn

import (
	"context"

	"cloud.google.com/go/spanner"
)

// UnderlyingClient returns the connector's official *spanner.Client (see
// transport.Client.Official: made on first use, sharing the connector's
// channel, closed with the connector).
func (c *Conn) UnderlyingClient() (*spanner.Client, error) {
	return c.client.Official(context.Background())
}
