package driver

import (
	"context"
	sqldriver "database/sql/driver"
	"errors"
	"io"
	"sync/atomic"

	"github.com/spannerfast/spannerfast/dsn"
	"github.com/spannerfast/spannerfast/internal/telemetry"
	"github.com/spannerfast/spannerfast/internal/transport"
)

// ErrConnectorClosed is returned by Connect after Close.
var ErrConnectorClosed = errors.New("spannerfast: connector is closed")

// Connector makes connections that share one transport.Client and one
// parse cache. It implements driver.Connector and io.Closer; sql.DB.Close
// calls Close.
type Connector struct {
	client     *transport.Client
	statements statementCache // statements parsed by its connections (dialect.go)
	closed     atomic.Bool
}

var (
	_ sqldriver.Connector = (*Connector)(nil)
	_ io.Closer           = (*Connector)(nil)
)

// NewConnector returns a Connector for cfg, for use with sql.OpenDB. cfg is
// validated and copied; later changes to it have no effect. opts give what
// a DSN cannot carry (WithTracerProvider, WithMeterProvider, WithLogger).
// The result is a *Connector.
func NewConnector(cfg *dsn.Config, opts ...ConnectorOption) (sqldriver.Connector, error) {
	if cfg == nil {
		return nil, errors.New("spannerfast: NewConnector: nil *dsn.Config")
	}
	var co connectorOptions
	for _, o := range opts {
		if o == nil {
			return nil, errors.New("spannerfast: NewConnector: nil ConnectorOption")
		}
		o(&co)
	}
	return newConnector(cfg, co.telemetry)
}

// newConnector makes the connector of cfg, with the providers and the
// logger of tc.
func newConnector(cfg *dsn.Config, tc telemetry.Config) (*Connector, error) {
	// raw_decode is accepted here; the connection decides how to honour it.
	client, err := transport.NewClient(context.Background(), cfg)
	if err != nil {
		return nil, err
	}
	if tc.TracerProvider != nil || tc.MeterProvider != nil || tc.Logger != nil {
		client.UseTelemetry(tc)
	}
	return &Connector{client: client}, nil
}

// Connect returns a new connection on the connector's Client. With
// auto_config_emulator it first creates the instance and database if they
// do not exist yet, so that whatever the connection runs first (DDL
// included) finds them. The first connection learns the database's dialect
// (one query, as go-sql-spanner's first connection makes; none when the DSN
// gives database_dialect); later connections make no RPC here.
func (c *Connector) Connect(ctx context.Context) (sqldriver.Conn, error) {
	if c.closed.Load() {
		return nil, ErrConnectorClosed
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := c.client.EnsureEmulator(ctx); err != nil {
		return nil, err
	}
	cn, err := c.open(ctx)
	if err != nil {
		return nil, err
	}
	return cn, nil
}

// Driver returns the spannerfast Driver.
func (c *Connector) Driver() sqldriver.Driver { return &Driver{} }

// Client returns the connector's Client (channels and session).
func (c *Connector) Client() *transport.Client { return c.client }

// Close closes the Client and its channels. Connections made earlier fail
// afterwards. Closing twice is harmless.
func (c *Connector) Close() error {
	if !c.closed.CompareAndSwap(false, true) {
		return nil
	}
	return c.client.Close()
}

func (c *Connector) isClosed() bool { return c.closed.Load() }
