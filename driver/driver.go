package driver

import (
	"context"
	"database/sql"
	sqldriver "database/sql/driver"
	"sync"

	"github.com/spannerfast/spannerfast/dsn"
	"github.com/spannerfast/spannerfast/internal/telemetry"
	"github.com/spannerfast/spannerfast/internal/transport"
)

// Name is the name spannerfast registers with database/sql.
const Name = "spannerfast"

// Version is the version of spannerfast's source tree. Requests report the
// version the build selected, when spannerfast is a dependency with one
// (see the x-goog-api-client header).
const Version = transport.Version

func init() {
	sql.Register(Name, &Driver{})
}

// Driver is the database/sql driver. It implements driver.Driver and
// driver.DriverContext.
type Driver struct{}

var (
	_ sqldriver.Driver        = (*Driver)(nil)
	_ sqldriver.DriverContext = (*Driver)(nil)
)

// openCache holds the connectors made by Driver.Open, one per DSN string.
var openCache struct {
	mu sync.Mutex
	m  map[string]*Connector
}

// Open returns a new connection for the DSN. Connections opened this way
// share one Connector (and so one Client) per DSN string. database/sql does
// not call Open: it uses OpenConnector.
func (d *Driver) Open(name string) (sqldriver.Conn, error) {
	openCache.mu.Lock()
	c := openCache.m[name]
	if c == nil || c.isClosed() {
		cn, err := d.OpenConnector(name)
		if err != nil {
			openCache.mu.Unlock()
			return nil, err
		}
		c = cn.(*Connector)
		if openCache.m == nil {
			openCache.m = make(map[string]*Connector)
		}
		openCache.m[name] = c
	}
	openCache.mu.Unlock()
	return c.Connect(context.Background())
}

// OpenConnector parses the DSN and returns a new Connector with its own
// Client. Errors in the DSN are *dsn.Error values.
func (d *Driver) OpenConnector(name string) (sqldriver.Connector, error) {
	cfg, err := dsn.Parse(name)
	if err != nil {
		return nil, err
	}
	return newConnector(cfg, telemetry.Config{})
}
