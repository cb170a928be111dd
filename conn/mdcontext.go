package conn

import (
	"context"

	"google.golang.org/grpc/metadata"
)

// mdContext is a caller's context plus the outgoing metadata of a session,
// built without allocating: the metadata sit alone on a context made once
// per session (sessionState.mdOnly), and Value looks there first.
// metadata.NewOutgoingContext would cost two allocations on every query.
// It lives inside the object of the call it serves (queryStream).
type mdContext struct {
	context.Context                 // the caller's
	md              context.Context // metadata only, over context.Background
}

func (c *mdContext) Value(key any) any {
	if v := c.md.Value(key); v != nil {
		return v
	}
	return c.Context.Value(key)
}

// streamContext is SessionContext for a call that can hold an mdContext in
// slot. When the caller's context has outgoing metadata of its own, or
// session is not the current session, the two are merged as
// SessionContext merges them.
func (c *Client) streamContext(ctx context.Context, slot *mdContext, session string, routeToLeader bool) context.Context {
	s := c.session.Load()
	if s == nil || s.name != session {
		return c.SessionContext(ctx, session, routeToLeader)
	}
	if _, ok := metadata.FromOutgoingContext(ctx); ok {
		return c.SessionContext(ctx, session, routeToLeader)
	}
	*slot = mdContext{Context: ctx, md: s.mdOnly}
	if routeToLeader && !c.cfg.DisableRouteToLeader {
		slot.md = s.mdLeaderOnly
	}
	return slot
}
