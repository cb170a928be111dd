package e2e

import (
	"context"
	"database/sql"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/spannerfast/spannerfast/internal/fakespanner"
)

// An endpoint that cannot be reached fails the first statement within
// connect_timeout with UNAVAILABLE naming the endpoint, even when the
// caller's context has no deadline; a shorter caller deadline wins.

// refusedAddr returns an address nothing listens on: a port just released.
func refusedAddr(t *testing.T) string {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := lis.Addr().String()
	lis.Close()
	return addr
}

// silentAddr returns the address of a listener that accepts connections
// and never speaks, so the HTTP/2 handshake never completes.
func silentAddr(t *testing.T) string {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu    sync.Mutex
		conns []net.Conn
		done  = make(chan struct{})
	)
	go func() {
		defer close(done)
		for {
			c, err := lis.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		lis.Close()
		<-done
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
	})
	return lis.Addr().String()
}

// queryUnreachable runs SELECT 1 against addr with props and returns the
// error and how long it took.
func queryUnreachable(t *testing.T, ctx context.Context, addr string, props string) (error, time.Duration) {
	t.Helper()
	db, err := sql.Open("spannerfast", addr+"/"+fakeDB+";usePlainText=true"+props)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	start := time.Now()
	var v int64
	err = db.QueryRowContext(ctx, "SELECT 1").Scan(&v)
	return err, time.Since(start)
}

// TestFakeUnreachableEndpoint: a refused port and a server that never
// answers the handshake fail with UNAVAILABLE naming the endpoint once
// connect_timeout has passed (300ms for the refused port; for the silent
// server a bound past the second after which a handshake not completed
// counts as silent), not after the caller's (absent) deadline; the
// default connect_timeout bounds it too. A caller deadline shorter than
// connect_timeout ends it first, with DEADLINE_EXCEEDED.
func TestFakeUnreachableEndpoint(t *testing.T) {
	for _, c := range []struct {
		name  string
		addr  func(*testing.T) string
		bound time.Duration
	}{{"refused", refusedAddr, 300 * time.Millisecond}, {"silent", silentAddr, 1500 * time.Millisecond}} {
		t.Run(c.name, func(t *testing.T) {
			addr, bound := c.addr(t), c.bound
			err, elapsed := queryUnreachable(t, context.Background(), addr, ";connect_timeout="+bound.String())
			if status.Code(err) != codes.Unavailable || !strings.Contains(err.Error(), addr) {
				t.Fatalf("%v (code %v), want UNAVAILABLE naming %s", err, status.Code(err), addr)
			}
			if elapsed < bound || elapsed > bound+5*time.Second {
				t.Fatalf("failed after %v, want about connect_timeout %v", elapsed, bound)
			}

			ctx, cancel := context.WithTimeout(context.Background(), bound)
			defer cancel()
			err, elapsed = queryUnreachable(t, ctx, addr, ";connect_timeout=1m")
			if status.Code(err) != codes.DeadlineExceeded {
				t.Fatalf("caller deadline %v before connect_timeout 1m: %v (code %v), want DEADLINE_EXCEEDED", bound, err, status.Code(err))
			}
			if elapsed > bound+5*time.Second {
				t.Fatalf("caller deadline %v: failed after %v", bound, elapsed)
			}
		})
	}
	t.Run("default", func(t *testing.T) {
		if testing.Short() {
			t.Skip("waits out the default connect_timeout")
		}
		addr := refusedAddr(t)
		err, elapsed := queryUnreachable(t, context.Background(), addr, "")
		if status.Code(err) != codes.Unavailable || !strings.Contains(err.Error(), addr) {
			t.Fatalf("%v (code %v), want UNAVAILABLE naming %s", err, status.Code(err), addr)
		}
		if elapsed > 30*time.Second {
			t.Fatalf("failed after %v, want the default connect_timeout", elapsed)
		}
	})
}

// TestFakeConnectTimeoutReachable: connect_timeout bounds the opening of a
// connection when the caller's context has none, as go-sql-spanner's does
// (its TestConnectTimeout): against a server that answers, slowly, the
// bound passing is DEADLINE_EXCEEDED, not UNAVAILABLE (the endpoint is
// reachable): 1ms, while the channel may still be connecting, and 300ms,
// spent waiting for the database's dialect.
func TestFakeConnectTimeoutReachable(t *testing.T) {
	for _, c := range []struct {
		bound string
		hold  time.Duration // the dialect question's answer
	}{{"1ms", 50 * time.Millisecond}, {"300ms", 2 * time.Second}} {
		t.Run(c.bound, func(t *testing.T) {
			s := fakespanner.Start(t)
			r := fakespanner.DialectResult("GOOGLE_STANDARD_SQL")
			r.Faults = []fakespanner.Fault{{Delay: c.hold, Times: -1}}
			s.AddResult(fakespanner.DialectQuery, r)
			db, err := sql.Open("spannerfast", fakeDSN(s, "connect_timeout="+c.bound))
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			cn, err := db.Conn(context.Background())
			if status.Code(err) != codes.DeadlineExceeded {
				t.Fatalf("db.Conn with connect_timeout=%s, dialect answered after %v: %v (code %v), want DEADLINE_EXCEEDED",
					c.bound, c.hold, err, status.Code(err))
			}
			if cn != nil {
				_ = cn.Close()
			}
		})
	}
}
