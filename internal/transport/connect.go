package transport

import (
	"context"
	"fmt"
	"time"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/connectivity"
	"google.golang.org/grpc/status"
)

// Reaching the endpoint.
//
// The channels connect lazily, on the first call. A call on a channel that
// cannot connect fails at once with UNAVAILABLE (a refused port), which
// the session's creation retries as a transient failure, or waits while
// the channel tries (a server that never completes the TLS or HTTP/2
// handshake). Either way the first thing a client does, creating its
// session (and, with auto_config_emulator, setting up the emulator), meets
// it, and connect_timeout bounds that, as it bounds a new connection's
// wait for the database's dialect (go-sql-spanner bounds the whole opening
// of a connection by it). When the bound passes and the endpoint failed
// (a channel in TRANSIENT_FAILURE: refused, reset, a TLS failure) or is
// silent (no channel connected silentAfter after the client began
// dialing), the failure is an *UnreachableError, UNAVAILABLE naming the
// endpoint, rather than a retry that lasts as long as the caller's context
// (forever without a deadline). A bound that passes while the handshake
// may still be under way, or while a connected server answers slowly, is
// DEADLINE_EXCEEDED, as go-sql-spanner reports a connect_timeout that
// passed (its TestConnectTimeout, 1 ms against a reachable server); so is
// a caller's own deadline that comes first.

// UnreachableError is the failure of a client that did not connect to its
// endpoint within connect_timeout. Its gRPC code is UNAVAILABLE; Unwrap
// returns the last failure of the call that waited.
type UnreachableError struct {
	Endpoint string
	Timeout  time.Duration      // connect_timeout
	State    connectivity.State // the channel's state when the bound passed
	Last     error              // the last failure of the call, if any
}

func (e *UnreachableError) Error() string {
	s := fmt.Sprintf("spannerfast: could not connect to %s within connect_timeout %v (channel %s)", e.Endpoint, e.Timeout, e.State)
	if e.Last != nil {
		s += ": " + e.Last.Error()
	}
	return s
}

// GRPCStatus makes status.Code(err) report UNAVAILABLE.
func (e *UnreachableError) GRPCStatus() *status.Status {
	return status.New(codes.Unavailable, e.Error())
}

func (e *UnreachableError) Unwrap() error { return e.Last }

// silentAfter is how long a client's channels may go on connecting before
// an endpoint that has not completed a handshake counts as silent: a TCP,
// TLS and HTTP/2 handshake with a server that answers takes a small part
// of it, even across continents.
const silentAfter = time.Second

// connectDeadline is the context key of the time connect_timeout ends.
type connectDeadline struct{}

// withConnectTimeout bounds ctx by connect_timeout (none when 0) and notes
// when that bound passes, so that unreachable can tell it from the
// caller's own deadline.
func (c *Client) withConnectTimeout(ctx context.Context) (context.Context, context.CancelFunc) {
	t := c.cfg.ConnectTimeout
	if t <= 0 {
		return ctx, func() {}
	}
	d := time.Now().Add(t)
	ctx, cancel := context.WithDeadline(ctx, d)
	return context.WithValue(ctx, connectDeadline{}, d), cancel
}

// unreachable is the error of work bounded by connect_timeout
// (withConnectTimeout) on ctx that ended with err after its call last
// failed with last: an *UnreachableError when the bound has passed (not
// only the caller's deadline) and no channel of the client is connected,
// else err.
func (c *Client) unreachable(ctx context.Context, last, err error) error {
	d, ok := ctx.Value(connectDeadline{}).(time.Time)
	if !ok || time.Now().Before(d) {
		return err
	}
	state, failed := connectivity.Idle, false
	for _, cc := range c.conns {
		switch state = cc.GetState(); state {
		case connectivity.Ready:
			return err
		case connectivity.TransientFailure:
			failed = true
		}
	}
	if !failed && time.Since(c.dialed) < silentAfter {
		return err // the handshake may still be under way
	}
	return &UnreachableError{Endpoint: c.endpoint, Timeout: c.cfg.ConnectTimeout, State: state, Last: last}
}

// callCreateSession sends req, retrying its transient failures with
// backoff until ctx (bounded by connect_timeout) ends, and noting them for
// the callers of the shared step it runs in (shared_step.go).
func (c *Client) callCreateSession(ctx context.Context, req *spannerpb.CreateSessionRequest) (*spannerpb.Session, error) {
	b := Backoff{Report: Report{Tel: c.tel, Method: "CreateSession"}}
	base := c.Context(ctx, true)
	actx := base
	for {
		resp, err := c.Spanner().CreateSession(actx, req)
		if err == nil {
			if resp.GetName() == "" {
				return nil, status.Errorf(codes.Internal, "spannerfast: CreateSession on %s returned no session name", c.dbPath)
			}
			return resp, nil
		}
		if perr := b.Pause(ctx, Sleep, err); perr != nil {
			return nil, fmt.Errorf("spannerfast: create session on %s: %w", c.dbPath, c.unreachable(ctx, err, perr))
		}
		noteStepFailure(ctx, err)
		actx = RetryContext(base, err)
	}
}
