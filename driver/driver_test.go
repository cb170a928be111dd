package driver

import (
	"context"
	"database/sql"
	sqldriver "database/sql/driver"
	"errors"
	"slices"
	"testing"

	"cloud.google.com/go/spanner/spannertest"
	"go.uber.org/goleak"
	"google.golang.org/grpc"
	"google.golang.org/grpc/connectivity"

	"github.com/spannerfast/spannerfast/conn"
	"github.com/spannerfast/spannerfast/dsn"
)

func TestMain(m *testing.M) {
	// opencensus (pulled in by cloud.google.com/go/spanner) starts a worker
	// in its init that never ends.
	goleak.VerifyTestMain(m, goleak.IgnoreTopFunction("go.opencensus.io/stats/view.(*worker).start"))
}

const dbPath = "projects/p/instances/i/databases/d"

// startSpannertest starts the official client's in-memory server. It has no
// INFORMATION_SCHEMA.DATABASE_OPTIONS, so DSNs on it give database_dialect
// and so no connection asks for the dialect.
func startSpannertest(t *testing.T) string {
	t.Helper()
	srv, err := spannertest.NewServer("localhost:0")
	if err != nil {
		t.Fatal(err)
	}
	srv.SetLogger(t.Logf)
	t.Cleanup(srv.Close)
	return srv.Addr
}

func TestRegistered(t *testing.T) {
	if !slices.Contains(sql.Drivers(), Name) {
		t.Fatalf("sql.Drivers() = %v, want %q among them", sql.Drivers(), Name)
	}
}

// A bad DSN fails sql.Open itself: database/sql returns the error of
// OpenConnector, which parses the DSN.
func TestOpenBadDSN(t *testing.T) {
	tests := []struct {
		dsn  string
		kind error
		msg  string
	}{
		{dbPath + ";usePlainTxt=true", dsn.ErrUnknownProperty,
			`dsn: unknown property "usePlainTxt" (did you mean "use_plain_text"?)`},
		{dbPath + ";num_channels=many", dsn.ErrInvalidValue,
			`dsn: invalid value "many" for num_channels: want an integer from 1 to 256 (0 means the default, 4)`},
		{"databases/d", dsn.ErrMalformed,
			`dsn: malformed DSN: want projects/PROJECT/instances/INSTANCE[/databases/DATABASE] after the host "databases", got "d"`},
	}
	for _, tt := range tests {
		db, err := sql.Open(Name, tt.dsn)
		if err == nil {
			_ = db.Close()
			t.Fatalf("sql.Open(%q) succeeded", tt.dsn)
		}
		var e *dsn.Error
		if !errors.As(err, &e) || !errors.Is(err, tt.kind) || err.Error() != tt.msg {
			t.Errorf("sql.Open(%q) error = %v (%T), want %s", tt.dsn, err, err, tt.msg)
		}
	}
	// A DSN without a database parses but cannot make a client.
	if db, err := sql.Open(Name, "projects/p/instances/i"); err == nil {
		_ = db.Close()
		t.Fatal("sql.Open without a database succeeded")
	}
}

func TestOpenDBWithConnector(t *testing.T) {
	addr := startSpannertest(t)
	cfg := dsn.NewConfig()
	cfg.Endpoint, cfg.UsePlainText = addr, true
	cfg.Project, cfg.Instance, cfg.Database = "p", "i", "d"
	cfg.DatabaseDialect = dsn.DialectGoogleSQL
	cfg.NumChannels = 2
	cfg.RawDecode = true // accepted; the connection decides how to honour it
	connector, err := NewConnector(cfg)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Database = "changed" // the connector keeps its own copy
	c := connector.(*Connector)
	if got := c.Client().Config().Database; got != "d" {
		t.Fatalf("connector config changed with the caller's: %q", got)
	}
	if _, ok := c.Driver().(*Driver); !ok {
		t.Fatalf("Driver() = %T", c.Driver())
	}

	db := sql.OpenDB(connector)
	ctx := context.Background()
	sc, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := sc.Raw(func(dc any) error {
		if _, ok := dc.(*conn.Conn); !ok {
			t.Errorf("driver conn is %T, want *conn.Conn", dc)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	_ = sc.Close()

	// The connections share the connector's session.
	s1, err := c.Client().Session(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if s2, _ := c.Client().Session(ctx); s2 != s1 {
		t.Fatalf("session changed: %q then %q", s1, s2)
	}

	chans := []*grpc.ClientConn{c.Client().Channel(), c.Client().Channel()} // both channels
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	for _, ch := range chans {
		if s := ch.GetState(); s != connectivity.Shutdown {
			t.Fatalf("channel state after db.Close = %v", s)
		}
	}
	if _, err := c.Connect(ctx); !errors.Is(err, ErrConnectorClosed) {
		t.Fatalf("Connect after Close: %v", err)
	}
	if err := c.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
}

func TestSQLOpenConnsAndClose(t *testing.T) {
	addr := startSpannertest(t)
	db, err := sql.Open(Name, addr+"/"+dbPath+";usePlainText=true;database_dialect=GOOGLE_STANDARD_SQL")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	c1, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	c2, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	_ = c1.Close()
	_ = c2.Close()
	// End to end through the connection layer.
	var n int64
	if err := db.QueryRowContext(ctx, "SELECT 1").Scan(&n); err != nil || n != 1 {
		t.Fatalf("SELECT 1 = %d, %v", n, err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestNewConnectorErrors(t *testing.T) {
	if _, err := NewConnector(nil); err == nil {
		t.Fatal("NewConnector(nil) succeeded")
	}
	cfg := dsn.NewConfig()
	cfg.Project, cfg.Instance, cfg.Database = "p", "i", "d"
	cfg.PrefetchMessages = 0
	_, err := NewConnector(cfg)
	var e *dsn.Error
	if !errors.As(err, &e) || e.Key != "prefetch_messages" {
		t.Fatalf("NewConnector(invalid) = %v", err)
	}
}

func TestConnectCancelled(t *testing.T) {
	cn, err := (&Driver{}).OpenConnector(dbPath + ";usePlainText=true;endpoint=127.0.0.1:1")
	if err != nil {
		t.Fatal(err)
	}
	defer cn.(*Connector).Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := cn.Connect(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Connect with a cancelled context: %v", err)
	}
}

func TestDriverOpenCachesConnector(t *testing.T) {
	addr := startSpannertest(t)
	name := addr + "/" + dbPath + ";usePlainText=true;database_dialect=GOOGLE_STANDARD_SQL"
	d := &Driver{}
	t.Cleanup(func() {
		openCache.mu.Lock()
		defer openCache.mu.Unlock()
		for k, c := range openCache.m {
			_ = c.Close()
			delete(openCache.m, k)
		}
	})
	open := func() (sqldriver.Conn, *Connector) {
		t.Helper()
		dc, err := d.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		openCache.mu.Lock()
		defer openCache.mu.Unlock()
		return dc, openCache.m[name]
	}
	c1, k1 := open()
	c2, k2 := open()
	if k1 == nil || k1 != k2 {
		t.Fatalf("Driver.Open made two connectors for one DSN: %p %p", k1, k2)
	}
	_ = c1.Close()
	_ = c2.Close()

	// A closed cached connector is replaced.
	_ = k1.Close()
	c3, k3 := open()
	if k3 == k1 {
		t.Fatal("Driver.Open reused a closed connector")
	}
	_ = c3.Close()

	if _, err := d.Open(dbPath + ";bogus=1"); !errors.Is(err, dsn.ErrUnknownProperty) {
		t.Fatalf("Driver.Open(bad DSN) = %v", err)
	}
}
