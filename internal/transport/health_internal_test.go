package transport

import (
	"context"
	"errors"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
	"google.golang.org/grpc/connectivity"

	"github.com/spannerfast/spannerfast/dsn"
	"github.com/spannerfast/spannerfast/internal/fakespanner"
)

// breakableDialer dials addr until broken, then refuses; break also cuts
// the connections it made.
type breakableDialer struct {
	broken atomic.Bool
	mu     sync.Mutex
	conns  []net.Conn
}

func (d *breakableDialer) dial(ctx context.Context, addr string) (net.Conn, error) {
	if d.broken.Load() {
		return nil, errors.New("test: channel 0 is broken")
	}
	c, err := (&net.Dialer{}).DialContext(ctx, "tcp", addr)
	if err == nil {
		d.mu.Lock()
		d.conns = append(d.conns, c)
		d.mu.Unlock()
	}
	return c, err
}

func (d *breakableDialer) breakNow() {
	d.broken.Store(true)
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, c := range d.conns {
		_ = c.Close()
	}
	d.conns = nil
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestFailingChannelAvoided: with channel 0's connection broken (its
// dialer refuses), Channel and Spanner hand out only the other channels
// and every query on them succeeds at once; when channel 0 connects again
// it is handed out again.
func TestFailingChannelAvoided(t *testing.T) {
	f := fakespanner.Start(t)
	cfg := dsn.NewConfig()
	cfg.Endpoint, cfg.UsePlainText = f.Addr(), true
	cfg.Project, cfg.Instance, cfg.Database = "p", "i", "d"
	cfg.NumChannels = 3
	d := &breakableDialer{}
	c, err := NewClient(context.Background(), cfg,
		grpc.WithConnectParams(grpc.ConnectParams{Backoff: backoff.Config{
			BaseDelay: 20 * time.Millisecond, Multiplier: 1.2, MaxDelay: 100 * time.Millisecond,
		}, MinConnectTimeout: time.Second}),
		channelOption{f: func(i int) []grpc.DialOption {
			if i == 0 {
				return []grpc.DialOption{grpc.WithContextDialer(d.dial)}
			}
			return nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	session, err := c.Session(ctx)
	if err != nil {
		t.Fatal(err)
	}
	query := func() error {
		_, err := c.Spanner().ExecuteSql(c.SessionContext(ctx, session, false),
			&spannerpb.ExecuteSqlRequest{Session: session, Sql: "SELECT 1"})
		return err
	}
	for _, cc := range c.conns {
		cc.Connect()
	}
	waitFor(t, "channel 0 ready", func() bool { return c.conns[0].GetState() == connectivity.Ready })

	d.breakNow()
	waitFor(t, "channel 0 in TRANSIENT_FAILURE and marked", func() bool {
		c.conns[0].Connect()
		return c.health.down[0].Load()
	})
	for range 30 {
		if c.Channel() == c.conns[0] {
			t.Fatal("Channel handed out the failing channel 0")
		}
		if err := query(); err != nil {
			t.Fatalf("query with channel 0 broken: %v", err)
		}
	}

	d.broken.Store(false)
	waitFor(t, "channel 0 ready again", func() bool { return c.conns[0].GetState() == connectivity.Ready })
	waitFor(t, "channel 0 handed out again", func() bool { return c.Channel() == c.conns[0] })
	if err := query(); err != nil {
		t.Fatal(err)
	}
}
