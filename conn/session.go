package conn

import "context"

// The connection's session and, on the emulator, its place at the
// database's read-write gate belong to its transport.SessionLease; these
// are what the executors ask of it.

// session returns the session of the connection's requests.
func (c *Conn) session(ctx context.Context) (string, error) { return c.sessions.Session(ctx) }

// invalidateSession forgets a session the server no longer knows ("Session
// not found"); the next request gets a new one.
func (c *Conn) invalidateSession(name string) { c.sessions.Invalidate(name) }

// enterReadWrite is called before work that takes the emulator's database
// lock (a read-write transaction, autocommit or partitioned DML, Apply,
// DDL); it waits for the gate on the emulator and does nothing elsewhere.
func (c *Conn) enterReadWrite(ctx context.Context) error { return c.sessions.EnterReadWrite(ctx) }

// leaveReadWrite ends what enterReadWrite began. Safe to call when nothing
// was entered.
func (c *Conn) leaveReadWrite() { c.sessions.LeaveReadWrite() }

// deferReadWrite is called when a read-write transaction opens: on the
// emulator its first statement or its commit enters the gate, as the
// emulator takes its lock at the first read or write (an open transaction
// that started nothing holds nothing); it does nothing elsewhere.
func (c *Conn) deferReadWrite() { c.sessions.DeferReadWrite() }
