package transport

import (
	"context"
	"time"

	"cloud.google.com/go/spanner/apiv1/spannerpb"

	"github.com/spannerfast/spannerfast/internal/telemetry"
)

// SessionLease is one connection's hold on the server: the session its
// requests name and, on the emulator, its place at the database's
// read-write gate (see emulator.go). Off the emulator it hands out the
// client's multiplexed session and holds nothing. On the emulator it has a
// regular session of its own, created on first use and deleted by Close.
//
// A connection holds its lease by value (NewSessionLease: nothing is
// allocated off the emulator) and, like the connection, uses it from one
// goroutine at a time.
type SessionLease struct {
	client  *Client
	emu     *emulatorLease     // nil off the emulator
	counted telemetry.OpenConn // among the open connections until Close
}

// emulatorLease is a connection's state on the emulator.
type emulatorLease struct {
	session string // the connection's regular session; "" until first use
	lost    bool   // the last session was invalidated: the next is made again
	gated   bool   // the connection holds the database's read-write gate
	// pending: a read-write transaction is open that has not entered the
	// gate yet; its first statement (Session) or its commit
	// (EnterPendingReadWrite) does.
	pending bool
}

// deleteSessionTimeout bounds the DeleteSession of a closing connection.
const deleteSessionTimeout = 5 * time.Second

// NewSessionLease returns the lease of a new connection on c: on the
// emulator with a session and a place at the gate of its own. The
// connection counts among the open ones (telemetry) until Close.
func (c *Client) NewSessionLease() SessionLease {
	l := SessionLease{client: c, counted: c.tel.ConnOpened()}
	if c.emulator != nil {
		l.emu = new(emulatorLease)
	}
	return l
}

// MultiplexedLease returns a lease that always hands out the client's
// multiplexed session and never enters the emulator's gate, for work that
// runs beside a connection on other goroutines (the readers of a
// connection's partitions).
func (c *Client) MultiplexedLease() SessionLease { return SessionLease{client: c} }

// Session returns the session of the connection's requests: the client's
// multiplexed session, or on the emulator the connection's own regular
// session (created on first use). On the emulator it also notes that the
// holder of the read-write gate is making progress.
func (l *SessionLease) Session(ctx context.Context) (string, error) {
	if l.emu == nil {
		return l.client.Session(ctx)
	}
	return l.emulatorSession(ctx)
}

// emulatorSession is Session on the emulator.
func (l *SessionLease) emulatorSession(ctx context.Context) (string, error) {
	e := l.emu
	if e.gated {
		l.client.emulator.gate.touch()
	} else if e.pending {
		if err := l.enterPending(ctx); err != nil {
			return "", err
		}
	}
	if e.session == "" {
		reason := telemetry.SessionFirst
		if e.lost {
			reason = telemetry.SessionNotFound
		}
		name, err := l.client.createRegularSession(ctx, reason)
		if err != nil {
			return "", err
		}
		e.session, e.lost = name, false
	}
	return e.session, nil
}

// Invalidate forgets a session the server no longer knows ("Session not
// found"); the next Session call gets a new one.
func (l *SessionLease) Invalidate(name string) {
	if e := l.emu; e != nil {
		if e.session == name {
			e.session, e.lost = "", true
		}
		return
	}
	l.client.InvalidateSession(name)
}

// EnterReadWrite is called before work that takes the emulator's database
// lock (a read-write transaction, autocommit or partitioned DML, Apply,
// DDL). On the emulator it waits for the database's read-write gate (see
// emulatorGate.enter); it fails only when ctx ends. Elsewhere it does
// nothing. Such work never nests on one connection (it needs no open
// transaction, or is one), so LeaveReadWrite releases what this took.
func (l *SessionLease) EnterReadWrite(ctx context.Context) error {
	if l.emu == nil {
		return nil
	}
	return l.enterGate(ctx)
}

func (l *SessionLease) enterGate(ctx context.Context) error {
	e := l.emu
	if e.gated {
		return nil
	}
	held, err := l.client.emulator.gate.enter(ctx)
	e.gated = held
	return err
}

// DeferReadWrite is called when a read-write transaction opens. The
// emulator takes its database lock at a transaction's first read or write,
// not at BeginTransaction, so the transaction enters the gate there too:
// at its first statement (the Session call that builds it) or, when it
// only buffered mutations, at its commit (EnterPendingReadWrite). A
// transaction that is open but has started nothing holds nothing, and the
// process's other writes do not wait for it (GORM's db.Transaction around
// work done on db, for example). Elsewhere it does nothing.
func (l *SessionLease) DeferReadWrite() {
	if e := l.emu; e != nil && !e.gated {
		e.pending = true
	}
}

// EnterPendingReadWrite enters the gate for the open read-write
// transaction if DeferReadWrite left that to later (a commit of buffered
// mutations); otherwise it does nothing.
func (l *SessionLease) EnterPendingReadWrite(ctx context.Context) error {
	if e := l.emu; e != nil && e.pending && !e.gated {
		return l.enterPending(ctx)
	}
	return nil
}

// enterPending waits for the gate once for a deferred transaction: held
// or gone ahead after a stalled holder, the transaction does not wait
// again.
func (l *SessionLease) enterPending(ctx context.Context) error {
	if err := l.enterGate(ctx); err != nil {
		return err
	}
	l.emu.pending = false
	return nil
}

// LeaveReadWrite ends what EnterReadWrite or DeferReadWrite began: the
// gate, if held, goes to the next waiter. Safe to call when nothing was
// entered.
func (l *SessionLease) LeaveReadWrite() {
	e := l.emu
	if e == nil {
		return
	}
	e.pending = false
	if e.gated {
		e.gated = false
		l.client.emulator.gate.leave()
	}
}

// Close releases what a closing connection holds on the emulator: the gate
// and its session (deleted, best effort: the emulator keeps sessions
// otherwise). Off the emulator it does nothing: the multiplexed session is
// the client's.
func (l *SessionLease) Close() {
	l.counted.Closed()
	l.counted = telemetry.OpenConn{}
	e := l.emu
	if e == nil {
		return
	}
	l.LeaveReadWrite()
	if e.session == "" {
		return
	}
	name := e.session
	e.session = ""
	ctx, cancel := context.WithTimeout(context.Background(), deleteSessionTimeout)
	defer cancel()
	_ = l.client.deleteSession(ctx, name)
}

// createRegularSession creates a session that is not multiplexed (one
// connection's, on the emulator), with the retries, connect_timeout, span
// and log of the multiplexed session's creation.
func (c *Client) createRegularSession(ctx context.Context, reason telemetry.SessionReason) (_ string, err error) {
	ctx, op := c.tel.Start(ctx, telemetry.CreateSession, "")
	defer func() { op.End(err) }()
	c.mu.Lock()
	closed := c.closed
	c.mu.Unlock()
	if closed {
		return "", ErrClosed
	}
	ctx, cancel := c.withConnectTimeout(ctx)
	defer cancel()
	if err := c.EnsureEmulator(ctx); err != nil {
		return "", c.unreachable(ctx, err, err)
	}
	resp, err := c.callCreateSession(ctx, &spannerpb.CreateSessionRequest{
		Database: c.dbPath,
		Session:  &spannerpb.Session{CreatorRole: c.cfg.DatabaseRole},
	})
	if err != nil {
		return "", err
	}
	c.tel.SessionCreated(ctx, resp.GetName(), false, reason)
	return resp.GetName(), nil
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
