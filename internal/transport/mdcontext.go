package transport

import (
	"context"

	"google.golang.org/grpc/metadata"
)

// MDContext is a caller's context plus the outgoing metadata of a session,
// built without allocating: the metadata sit alone on a context made once
// per session (sessionState.mdOnly), and Value looks there first.
// metadata.NewOutgoingContext would cost two allocations on every query.
// It lives inside the object of the call it serves (a query's stream), and
// StreamContext fills it.
//
// It also counts the attempts of its call, so that each attempt of a
// streaming query (retries and resumptions) carries the query's request id
// with the next attempt number (requestid.go).
type MDContext struct {
	context.Context                 // the caller's
	md              context.Context // metadata only, over context.Background
	call            callAttempts
}

// Value looks in the session's metadata first, then in the caller's
// context.
func (c *MDContext) Value(key any) any {
	if _, ok := key.(callKey); ok {
		return &c.call
	}
	if v := c.md.Value(key); v != nil {
		return v
	}
	return c.Context.Value(key)
}

// StreamContext is SessionContext for a call that can hold an MDContext in
// slot: it returns slot, filled, without allocating. When the caller's
// context has outgoing metadata of its own, or session is not the current
// session, the two are merged as SessionContext merges them (below slot,
// which still counts the call's attempts).
func (c *Client) StreamContext(ctx context.Context, slot *MDContext, session string, routeToLeader bool) context.Context {
	s := c.session.Load()
	if s == nil || s.name != session {
		*slot = MDContext{Context: c.SessionContext(ctx, session, routeToLeader), md: context.Background()}
		return slot
	}
	if _, ok := metadata.FromOutgoingContext(ctx); ok {
		*slot = MDContext{Context: c.SessionContext(ctx, session, routeToLeader), md: context.Background()}
		return slot
	}
	*slot = MDContext{Context: ctx, md: s.mdOnly}
	if routeToLeader && !c.cfg.DisableRouteToLeader {
		slot.md = s.mdLeaderOnly
	}
	return slot
}

// sessionContext is a caller's context without outgoing metadata of its
// own plus the metadata of the current session, for a unary call
// (SessionContext): one allocation where metadata.NewOutgoingContext makes
// two. Unlike MDContext it counts no attempts: a unary call's retries are
// counted by RetryContext.
type sessionContext struct {
	context.Context                 // the caller's
	md              context.Context // metadata only, over context.Background
}

// Value looks in the session's metadata first, then in the caller's
// context.
func (c *sessionContext) Value(key any) any {
	if v := c.md.Value(key); v != nil {
		return v
	}
	return c.Context.Value(key)
}
