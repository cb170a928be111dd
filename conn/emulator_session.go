package conn

import (
	"context"
	"fmt"
	"time"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/spannerfast/spannerfast/internal/transport"
)

// A connection's own session and its place at the read-write gate, on the
// emulator (see emulator.go).

// emulatorConn is a connection's state on the emulator.
type emulatorConn struct {
	session string // the connection's regular session; "" until first use
	gated   bool   // the connection holds the database's read-write gate
}

// deleteSessionTimeout bounds the DeleteSession of a closing connection.
const deleteSessionTimeout = 5 * time.Second

// newEmulatorConn returns the emulator state of a new connection on c, nil
// when c is not on the emulator.
func newEmulatorConn(c *Client) *emulatorConn {
	if c.emulator == nil {
		return nil
	}
	return new(emulatorConn)
}

// session returns the session of the connection's requests: the
// connector's multiplexed session, or on the emulator the connection's own
// regular session (created on first use). On the emulator it also notes
// that the holder of the read-write gate is making progress.
func (c *Conn) session(ctx context.Context) (string, error) {
	if c.emu == nil {
		return c.client.Session(ctx)
	}
	return c.emulatorSession(ctx)
}

// emulatorSession is session on the emulator.
func (c *Conn) emulatorSession(ctx context.Context) (string, error) {
	e := c.emu
	if e.gated {
		c.client.emulator.gate.touch()
	}
	if e.session == "" {
		name, err := c.client.createRegularSession(ctx)
		if err != nil {
			return "", err
		}
		e.session = name
	}
	return e.session, nil
}

// invalidateSession forgets a session the server no longer knows ("Session
// not found"); the next request gets a new one.
func (c *Conn) invalidateSession(name string) {
	if e := c.emu; e != nil {
		if e.session == name {
			e.session = ""
		}
		return
	}
	c.client.InvalidateSession(name)
}

// enterReadWrite is called before work that takes the emulator's
// database lock (a read-write transaction, autocommit or partitioned DML,
// Apply, DDL). On the emulator it waits for the database's read-write gate
// (see emulatorGate.enter); it fails only when ctx ends. Elsewhere it does
// nothing. Such work never nests on one connection (it needs no open
// transaction, or is one), so leaveReadWrite releases what this took.
func (c *Conn) enterReadWrite(ctx context.Context) error {
	if c.emu == nil {
		return nil
	}
	return c.enterGate(ctx)
}

func (c *Conn) enterGate(ctx context.Context) error {
	e := c.emu
	if e.gated {
		return nil
	}
	held, err := c.client.emulator.gate.enter(ctx)
	e.gated = held
	return err
}

// leaveReadWrite ends what enterReadWrite began: the gate, if held, goes
// to the next waiter. Safe to call when nothing was entered.
func (c *Conn) leaveReadWrite() {
	if e := c.emu; e != nil && e.gated {
		e.gated = false
		c.client.emulator.gate.leave()
	}
}

// closeEmulator releases what a closing connection holds on the emulator:
// the gate and its session (deleted, best effort: the emulator keeps
// sessions otherwise).
func (c *Conn) closeEmulator() {
	e := c.emu
	if e == nil {
		return
	}
	c.leaveReadWrite()
	if e.session == "" {
		return
	}
	name := e.session
	e.session = ""
	ctx, cancel := context.WithTimeout(context.Background(), deleteSessionTimeout)
	defer cancel()
	_ = c.client.deleteSession(ctx, name)
}

// createRegularSession creates a session that is not multiplexed (one
// connection's, on the emulator), with the retries and connect_timeout of
// the multiplexed session's creation.
func (c *Client) createRegularSession(ctx context.Context) (string, error) {
	c.mu.Lock()
	closed := c.closed
	c.mu.Unlock()
	if closed {
		return "", ErrClosed
	}
	if c.cfg.ConnectTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.cfg.ConnectTimeout)
		defer cancel()
	}
	if err := c.EnsureEmulator(ctx); err != nil {
		return "", err
	}
	req := &spannerpb.CreateSessionRequest{
		Database: c.dbPath,
		Session:  &spannerpb.Session{CreatorRole: c.cfg.DatabaseRole},
	}
	var b transport.Backoff
	for {
		resp, err := c.Spanner().CreateSession(c.Context(ctx, true), req)
		if err == nil {
			if resp.GetName() == "" {
				return "", status.Errorf(codes.Internal, "spannerfast: CreateSession on %s returned no session name", c.dbPath)
			}
			return resp.GetName(), nil
		}
		if err = b.Pause(ctx, transport.Sleep, err); err != nil {
			return "", fmt.Errorf("spannerfast: create session on %s: %w", c.dbPath, err)
		}
	}
}

// deleteSession deletes a regular session; nothing is sent once the
// client is closed.
func (c *Client) deleteSession(ctx context.Context, name string) error {
	c.mu.Lock()
	closed := c.closed
	c.mu.Unlock()
	if closed {
		return ErrClosed
	}
	_, err := c.Spanner().DeleteSession(c.SessionContext(ctx, name, false), &spannerpb.DeleteSessionRequest{Name: name})
	return err
}
