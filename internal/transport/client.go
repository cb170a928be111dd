package transport

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"

	"github.com/spannerfast/spannerfast/dsn"
	"github.com/spannerfast/spannerfast/internal/nativemetrics"
	"github.com/spannerfast/spannerfast/internal/telemetry"
)

// Metadata header names Spanner requests carry.
const (
	HeaderResourcePrefix   = "google-cloud-resource-prefix"
	HeaderRequestParams    = "x-goog-request-params"
	HeaderRouteToLeader    = "x-goog-spanner-route-to-leader"
	HeaderEndToEndTracing  = "x-goog-spanner-end-to-end-tracing"
	HeaderResponseEncoding = "x-response-encoding"
)

// UserAgent is the gRPC user agent of spannerfast's channels.
const UserAgent = "spannerfast/" + Version

// EmulatorHostEnv names the environment variable that points the client at
// an emulator (plain text, no credentials) when the DSN names no endpoint.
const EmulatorHostEnv = "SPANNER_EMULATOR_HOST"

// scopes are the OAuth scopes requested for Spanner data access.
var scopes = []string{
	"https://www.googleapis.com/auth/cloud-platform",
	"https://www.googleapis.com/auth/spanner.data",
}

// maxSessionAge is how long a multiplexed session is used before the next
// caller replaces it (the official client also rotates every 7 days).
const maxSessionAge = 7 * 24 * time.Hour

// ErrClosed is returned by Session after Close.
var ErrClosed = errors.New("spannerfast: client is closed")

// Client is the per-connector state shared by all connections of one DSN:
// the gRPC channels and the one multiplexed session. It is safe for
// concurrent use.
type Client struct {
	cfg      *dsn.Config
	dbPath   string
	endpoint string
	plain    bool
	// directPath: the channels are dialled with DirectPath (dial.go), the
	// directpath_enabled label of the built-in metrics.
	directPath bool

	conns []*grpc.ClientConn
	stubs []spannerpb.SpannerClient
	next  atomic.Uint32

	health channelHealth // channels passed over while failing (health.go)

	md       metadata.MD // resource prefix, database request params (+ tracing)
	mdLeader metadata.MD // md + route-to-leader

	requests atomic.Uint32 // numbers the logical requests (requestid.go)
	obs      *observer     // end-to-end tracing and GFE latency (servertiming.go)

	session       atomic.Pointer[sessionState]
	emulatorReady atomic.Bool
	emulator      *emulatorState // nil unless on the emulator (emulator.go)

	// The shared start-up steps (shared_step.go), and the context they
	// run under, which Close ends.
	sessionStep  sharedStep[*sessionState]
	dialectStep  sharedStep[*dsn.Config]
	emulatorStep sharedStep[struct{}]
	life         context.Context
	endLife      context.CancelFunc

	official officialClient // Official (underlying.go)

	tel    *telemetry.Telemetry    // Telemetry (telemetry.go)
	native *nativemetrics.Exporter // the built-in metrics' export; nil when off (telemetry.go)
	meter  rpcMeter                // RPC attempt and operation metrics (rpcmetrics.go)
	// lost: the current session was invalidated (Spanner no longer knew
	// it); the next one is logged as made again.
	lost atomic.Bool

	mu      sync.Mutex
	dialect *dsn.Config // the configuration with the database's dialect, once known (dialect.go)
	closed  bool

	dialed time.Time // when the channels began connecting (connect.go)
}

// sessionState is an immutable snapshot of the current session.
type sessionState struct {
	name     string
	created  time.Time
	md       metadata.MD // like Client.md with session-based request params
	mdLeader metadata.MD
	// The same, each alone on a context made once, for StreamContext.
	mdOnly, mdLeaderOnly context.Context
}

// NewClient builds the channels for cfg through Google's dialer (dial.go).
// It makes no RPC (the channels start connecting in the background) and
// contacts no credentials server: explicit credentials are parsed now,
// Application Default Credentials are read from their file by the dialer
// or looked up on the first RPC (credentials.go). cfg is copied. opts are
// appended to the client's own dial options (tests use them, e.g. for
// custom transport credentials).
func NewClient(ctx context.Context, cfg *dsn.Config, opts ...grpc.DialOption) (*Client, error) {
	if cfg == nil {
		return nil, errors.New("spannerfast: nil *dsn.Config")
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.Clone()
	if cfg.Database == "" {
		return nil, fmt.Errorf("spannerfast: the DSN names no database (want projects/P/instances/I/databases/D): %w", dsn.ErrMalformed)
	}
	c := &Client{cfg: cfg, dbPath: cfg.DatabasePath(), dialed: time.Now()}
	c.life, c.endLife = context.WithCancel(context.Background())
	c.endpoint, c.plain = resolveEndpoint(cfg)
	c.emulator = newEmulatorState(cfg, c.endpoint, c.dbPath)

	c.directPath = directPathOn(c.plain)
	base, err := clientOptions(cfg, c.endpoint, c.plain)
	if err != nil {
		return nil, err
	}
	c.obs = &observer{c: c, endToEnd: cfg.EnableEndToEndTracing}
	clientOrdinal := nextClientOrdinal(c.dbPath)
	c.meter.client = c

	n := max(cfg.NumChannels, 1)
	for i := range n {
		// Each channel has interceptors of its own: the request id names
		// the channel. They come before the caller's, which see the id.
		ids := newChannelIDs(clientOrdinal, uint32(i+1), &c.requests, c.obs)
		chOpts := []grpc.DialOption{
			grpc.WithChainUnaryInterceptor(ids.unary),
			grpc.WithChainStreamInterceptor(ids.stream)}
		for _, o := range opts {
			if po, ok := o.(channelOption); ok {
				chOpts = append(chOpts, po.f(i)...)
			} else {
				chOpts = append(chOpts, o)
			}
		}
		cc, err := dialChannel(ctx, base, chOpts...)
		if err != nil {
			for _, done := range c.conns {
				_ = done.Close()
			}
			return nil, fmt.Errorf("spannerfast: channel to %s: %w", c.endpoint, err)
		}
		c.conns = append(c.conns, cc)
		c.stubs = append(c.stubs, stub{spannerpb.NewSpannerClient(cc)})
	}
	c.health.down = make([]atomic.Bool, len(c.conns))
	if len(c.conns) > 1 {
		for i, cc := range c.conns {
			c.health.wg.Add(1)
			go c.watch(i, cc)
		}
	}

	c.md = metadata.Pairs(
		HeaderResourcePrefix, c.dbPath,
		HeaderRequestParams, "database="+url.QueryEscape(c.dbPath),
		HeaderAPIClient, APIClientHeader(),
	)
	if cfg.EnableEndToEndTracing {
		c.md.Set(HeaderEndToEndTracing, "true")
	}
	if cfg.Compression == dsn.CompressionGzip {
		// Asks Spanner to compress its responses too, as the official
		// client does with Compression "gzip".
		c.md.Set(HeaderResponseEncoding, "gzip")
	}
	c.mdLeader = withLeader(c.md)
	c.native = nativemetrics.Start(cfg, c.plain, nativeClientName())
	c.tel = c.newTelemetry(telemetry.Config{})
	return c, nil
}

func withLeader(md metadata.MD) metadata.MD {
	out := md.Copy()
	out.Set(HeaderRouteToLeader, "true")
	return out
}

// resolveEndpoint picks the endpoint: the DSN's, else SPANNER_EMULATOR_HOST
// (plain text), else the emulator default with auto_config_emulator, else
// production.
func resolveEndpoint(cfg *dsn.Config) (endpoint string, plain bool) {
	plain = cfg.UsePlainText || cfg.AutoConfigEmulator
	switch env := os.Getenv(EmulatorHostEnv); {
	case cfg.Endpoint != "":
		return cfg.Endpoint, plain
	case env != "":
		return env, true
	case cfg.AutoConfigEmulator:
		return dsn.DefaultEmulatorEndpoint, true
	}
	return dsn.DefaultEndpoint, plain
}

// Config returns the client's configuration. It is shared: do not modify it.
func (c *Client) Config() *dsn.Config { return c.cfg }

// Endpoint returns the address the channels dial.
func (c *Client) Endpoint() string { return c.endpoint }

// PlainText reports whether the channels use no TLS and no credentials.
func (c *Client) PlainText() bool { return c.plain }

// DatabasePath returns "projects/P/instances/I/databases/D".
func (c *Client) DatabasePath() string { return c.dbPath }

// Channel returns the next channel, round-robin. Streams opened on it must
// carry the context from Context or SessionContext.
func (c *Client) Channel() *grpc.ClientConn {
	return c.conns[c.pick()]
}

// Spanner returns a Spanner stub on the next channel, round-robin, for
// unary calls.
func (c *Client) Spanner() spannerpb.SpannerClient {
	return c.stubs[c.pick()]
}

// pick chooses the next channel round-robin, passing over failing ones
// (health.go).
func (c *Client) pick() int {
	if len(c.conns) == 1 {
		return 0
	}
	i := int((c.next.Add(1) - 1) % uint32(len(c.conns)))
	if c.health.failing.Load() == 0 {
		return i
	}
	return c.healthyFrom(i)
}

// Context returns ctx with the outgoing metadata every Spanner request
// needs: google-cloud-resource-prefix (the database path),
// x-goog-request-params "database=<escaped path>", and, when routeToLeader
// is true and disable_route_to_leader is not set,
// x-goog-spanner-route-to-leader: true (read-write transactions,
// partitioned DML, commits). Headers already on ctx are kept; ones this
// method sets replace earlier values, so calling it twice is harmless.
// Session-based RPCs may prefer SessionContext, whose routing parameter
// names the session as the official client's does.
func (c *Client) Context(ctx context.Context, routeToLeader bool) context.Context {
	md := c.md
	if routeToLeader && !c.cfg.DisableRouteToLeader {
		md = c.mdLeader
	}
	return attach(ctx, md)
}

// SessionContext is Context with x-goog-request-params
// "session=<escaped session name>", the routing parameter of the RPCs that
// take a session (ExecuteSql, ExecuteStreamingSql, Commit, ...).
func (c *Client) SessionContext(ctx context.Context, session string, routeToLeader bool) context.Context {
	leader := routeToLeader && !c.cfg.DisableRouteToLeader
	if s := c.session.Load(); s != nil && s.name == session {
		md, only := s.md, s.mdOnly
		if leader {
			md, only = s.mdLeader, s.mdLeaderOnly
		}
		if _, ok := metadata.FromOutgoingContext(ctx); !ok {
			return &sessionContext{Context: ctx, md: only}
		}
		return attach(ctx, md)
	}
	md := c.sessionMD(session)
	if leader {
		md.Set(HeaderRouteToLeader, "true")
	}
	return attach(ctx, md)
}

func (c *Client) sessionMD(session string) metadata.MD {
	md := c.md.Copy()
	md.Set(HeaderRequestParams, "session="+url.QueryEscape(session))
	return md
}

// attach puts md on ctx. The precomputed md is shared by all calls; gRPC
// only reads outgoing metadata and metadata.FromOutgoingContext hands out
// copies, so it is never modified.
func attach(ctx context.Context, md metadata.MD) context.Context {
	existing, ok := metadata.FromOutgoingContext(ctx)
	if !ok || len(existing) == 0 {
		return metadata.NewOutgoingContext(ctx, md)
	}
	for k, v := range md {
		existing[k] = v
	}
	return metadata.NewOutgoingContext(ctx, existing)
}

// Session returns the name of the multiplexed session, creating it on first
// use (bounded by connect_timeout). Transient CreateSession failures
// (UNAVAILABLE, the retryable INTERNAL errors, RESOURCE_EXHAUSTED with a
// retry delay) are retried with backoff until connect_timeout ends; an
// endpoint never reached by then is an *UnreachableError (connect.go).
// Concurrent callers share one creation, retries included, which runs on
// a context of its own: each caller waits for it as long as its own
// context allows, and one caller's deadline ends nobody else's wait
// (shared_step.go). If creation fails, the callers waiting for it get the
// error and the next caller tries again. With auto_config_emulator the
// instance and database are created first if missing. A session older
// than 7 days is replaced on the next call (the old one is kept if that
// fails).
func (c *Client) Session(ctx context.Context) (string, error) {
	old := c.session.Load()
	if old != nil && time.Since(old.created) < maxSessionAge {
		return old.name, nil
	}
	c.mu.Lock()
	closed := c.closed
	c.mu.Unlock()
	if closed {
		return "", ErrClosed
	}
	s, err := c.sessionStep.do(ctx, c.life, "the session", func(ctx context.Context) (*sessionState, error) {
		cur := c.session.Load()
		if cur != nil && time.Since(cur.created) < maxSessionAge {
			return cur, nil // made by a run that ended meanwhile
		}
		reason := telemetry.SessionFirst
		if cur != nil {
			reason = telemetry.SessionExpired
		}
		s, err := c.createSession(ctx, reason)
		if err != nil {
			return nil, err
		}
		c.session.Store(s)
		return s, nil
	})
	switch {
	case err == nil:
		return s.name, nil
	case old != nil && ctx.Err() == nil:
		return old.name, nil
	}
	return "", err
}

// InvalidateSession forgets the session name if it is the current one, so
// that the next Session call creates a new one. Call it when Spanner answers
// NotFound ("Session not found") for it.
func (c *Client) InvalidateSession(name string) {
	if s := c.session.Load(); s != nil && s.name == name {
		if c.session.CompareAndSwap(s, nil) {
			c.lost.Store(true)
		}
	}
}

// createSession creates the multiplexed session, reason says why (an
// expired one is replaced; one Spanner lost, InvalidateSession, is noted
// here), in a CreateSession span, child of the span in ctx.
func (c *Client) createSession(ctx context.Context, reason telemetry.SessionReason) (_ *sessionState, err error) {
	ctx, op := c.tel.Start(ctx, telemetry.CreateSession, "")
	defer func() { op.End(err) }()
	ctx, cancel := c.withConnectTimeout(ctx)
	defer cancel()
	if err := c.EnsureEmulator(ctx); err != nil {
		return nil, c.unreachable(ctx, err, err)
	}
	req := &spannerpb.CreateSessionRequest{
		Database: c.dbPath,
		Session: &spannerpb.Session{
			Multiplexed: true,
			CreatorRole: c.cfg.DatabaseRole,
		},
	}
	resp, err := c.callCreateSession(ctx, req)
	if err != nil {
		return nil, err
	}
	if c.lost.Swap(false) && reason == telemetry.SessionFirst {
		reason = telemetry.SessionNotFound
	}
	c.tel.SessionCreated(ctx, resp.GetName(), true, reason)
	s := &sessionState{name: resp.GetName(), created: time.Now(), md: c.sessionMD(resp.GetName())}
	s.mdLeader = withLeader(s.md)
	s.mdOnly = metadata.NewOutgoingContext(context.Background(), s.md)
	s.mdLeaderOnly = metadata.NewOutgoingContext(context.Background(), s.mdLeader)
	return s, nil
}

// Close closes the channels. Calls in progress fail; Session returns
// ErrClosed afterwards. Closing twice is harmless. The multiplexed session
// is not deleted (Spanner does not delete multiplexed sessions on request;
// they expire server-side).
func (c *Client) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	c.mu.Unlock()
	c.endLife() // shared steps in progress end
	conns := c.conns
	if c.closeOfficial() {
		conns = conns[1:] // the official client closed the channel it was given
	}
	var errs []error
	for _, cc := range conns {
		if err := cc.Close(); err != nil {
			errs = append(errs, err)
		}
	}
	c.health.wg.Wait() // the watchers end with the life context
	c.native.Close()   // the final export; a failure goes to OpenTelemetry's error handler
	return errors.Join(errs...)
}
