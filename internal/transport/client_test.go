package transport_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"errors"
	"io"
	"math/big"
	"net"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"cloud.google.com/go/longrunning/autogen/longrunningpb"
	databasepb "cloud.google.com/go/spanner/admin/database/apiv1/databasepb"
	instancepb "cloud.google.com/go/spanner/admin/instance/apiv1/instancepb"
	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"cloud.google.com/go/spanner/spannertest"
	"go.uber.org/goleak"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/connectivity"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/spannerfast/spannerfast/dsn"
	"github.com/spannerfast/spannerfast/internal/nativemetrics"
	"github.com/spannerfast/spannerfast/internal/transport"
)

func TestMain(m *testing.M) {
	// The clients made here over TLS would export built-in metrics at
	// Close, looking up Application Default Credentials (an HTTP probe of
	// the metadata server whose idle connection outlives the test) and
	// dialing Cloud Monitoring: the export has its own tests
	// (internal/nativemetrics, e2e's TestFakeNativeMetricsExport).
	os.Setenv(nativemetrics.EnvDisable, "true")
	// opencensus (pulled in by cloud.google.com/go/spanner) starts a worker
	// in its init that never ends.
	goleak.VerifyTestMain(m, goleak.IgnoreTopFunction("go.opencensus.io/stats/view.(*worker).start"))
}

const dbPath = "projects/p/instances/i/databases/d"

// fakeState is a tiny Spanner (and admin) server that records what it is
// sent.
type fakeState struct {
	mu          sync.Mutex
	creates     int
	failCreates int        // fail this many CreateSession calls with failCode
	failCode    codes.Code // codes.OK means Unavailable
	blockCreate bool       // CreateSession waits for the caller to give up
	lastCreate  *spannerpb.CreateSessionRequest
	md          map[string]metadata.MD // last metadata by method

	instanceExists, databaseExists bool
	createInstance                 *instancepb.CreateInstanceRequest
	createDatabase                 *databasepb.CreateDatabaseRequest
	opPolls                        int
}

func (f *fakeState) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.creates
}

func (f *fakeState) lastMD(method string) metadata.MD {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.md[method]
}

type fakeSpanner struct {
	spannerpb.UnimplementedSpannerServer
	*fakeState
}

func (f fakeSpanner) CreateSession(ctx context.Context, req *spannerpb.CreateSessionRequest) (*spannerpb.Session, error) {
	f.mu.Lock()
	f.creates++
	n := f.creates
	f.lastCreate = req
	fail := f.failCreates > 0
	if fail {
		f.failCreates--
	}
	failCode := f.failCode
	if failCode == codes.OK {
		failCode = codes.Unavailable
	}
	block := f.blockCreate
	f.mu.Unlock()
	if block {
		<-ctx.Done()
		return nil, status.FromContextError(ctx.Err()).Err()
	}
	if fail {
		return nil, status.Error(failCode, "try again")
	}
	return &spannerpb.Session{
		Name:        req.Database + "/sessions/s" + string(rune('0'+n)),
		Multiplexed: req.GetSession().GetMultiplexed(),
		CreatorRole: req.GetSession().GetCreatorRole(),
	}, nil
}

func (f fakeSpanner) GetSession(_ context.Context, req *spannerpb.GetSessionRequest) (*spannerpb.Session, error) {
	return &spannerpb.Session{Name: req.Name}, nil
}

type fakeInstances struct {
	instancepb.UnimplementedInstanceAdminServer
	*fakeState
}

func (f fakeInstances) GetInstance(_ context.Context, req *instancepb.GetInstanceRequest) (*instancepb.Instance, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.instanceExists {
		return nil, status.Errorf(codes.NotFound, "instance %s not found", req.Name)
	}
	return &instancepb.Instance{Name: req.Name}, nil
}

func (f fakeInstances) CreateInstance(_ context.Context, req *instancepb.CreateInstanceRequest) (*longrunningpb.Operation, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.createInstance = req
	f.instanceExists = true
	// Not done yet: the client has to poll GetOperation.
	return &longrunningpb.Operation{Name: "operations/instance"}, nil
}

type fakeDatabases struct {
	databasepb.UnimplementedDatabaseAdminServer
	*fakeState
}

func (f fakeDatabases) GetDatabase(_ context.Context, req *databasepb.GetDatabaseRequest) (*databasepb.Database, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.databaseExists {
		return nil, status.Errorf(codes.NotFound, "database %s not found", req.Name)
	}
	return &databasepb.Database{Name: req.Name}, nil
}

func (f fakeDatabases) CreateDatabase(_ context.Context, req *databasepb.CreateDatabaseRequest) (*longrunningpb.Operation, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.createDatabase = req
	f.databaseExists = true
	return &longrunningpb.Operation{Name: "operations/database", Done: true}, nil
}

type fakeOps struct {
	longrunningpb.UnimplementedOperationsServer
	*fakeState
}

func (f fakeOps) GetOperation(_ context.Context, req *longrunningpb.GetOperationRequest) (*longrunningpb.Operation, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.opPolls++
	return &longrunningpb.Operation{Name: req.Name, Done: true}, nil
}

type fakeOpts struct {
	admin bool // register the instance, database and operations services
	tls   *tls.Config
}

func startFake(t *testing.T, o fakeOpts) (*fakeState, string) {
	t.Helper()
	f := &fakeState{md: map[string]metadata.MD{}}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	opts := []grpc.ServerOption{grpc.UnaryInterceptor(func(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
		md, _ := metadata.FromIncomingContext(ctx)
		f.mu.Lock()
		f.md[info.FullMethod] = md
		f.mu.Unlock()
		return h(ctx, req)
	})}
	if o.tls != nil {
		opts = append(opts, grpc.Creds(credentials.NewTLS(o.tls)))
	}
	srv := grpc.NewServer(opts...)
	spannerpb.RegisterSpannerServer(srv, fakeSpanner{fakeState: f})
	if o.admin {
		instancepb.RegisterInstanceAdminServer(srv, fakeInstances{fakeState: f})
		databasepb.RegisterDatabaseAdminServer(srv, fakeDatabases{fakeState: f})
		longrunningpb.RegisterOperationsServer(srv, fakeOps{fakeState: f})
	}
	go func() { _ = srv.Serve(lis) }()
	t.Cleanup(srv.Stop)
	return f, lis.Addr().String()
}

func newClient(t *testing.T, dsnText string, opts ...grpc.DialOption) *transport.Client {
	t.Helper()
	cfg, err := dsn.Parse(dsnText)
	if err != nil {
		t.Fatal(err)
	}
	c, err := transport.NewClient(context.Background(), cfg, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func TestSessionCreatedOnceAndShared(t *testing.T) {
	f, addr := startFake(t, fakeOpts{})
	c := newClient(t, addr+"/"+dbPath+";usePlainText=true;num_channels=3;database_role=analyst")
	ctx := context.Background()

	const n = 16
	names := make([]string, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { names[i], errs[i] = c.Session(ctx) })
	}
	wg.Wait()
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("Session %d: %v", i, errs[i])
		}
		if names[i] != names[0] {
			t.Fatalf("Session %d = %q, want %q", i, names[i], names[0])
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.creates != 1 {
		t.Fatalf("CreateSession called %d times, want 1", f.creates)
	}
	req := f.lastCreate
	if req.Database != dbPath || !req.GetSession().GetMultiplexed() || req.GetSession().GetCreatorRole() != "analyst" {
		t.Fatalf("CreateSession request = %v", req)
	}
}

func one(md metadata.MD, key string) string {
	v := md.Get(key)
	if len(v) != 1 {
		return strings.Join(append([]string{"<count mismatch>"}, v...), ",")
	}
	return v[0]
}

func TestHeaders(t *testing.T) {
	f, addr := startFake(t, fakeOpts{})
	c := newClient(t, addr+"/"+dbPath+";usePlainText=true")
	ctx := context.Background()
	name, err := c.Session(ctx)
	if err != nil {
		t.Fatal(err)
	}
	escapedDB := "projects%2Fp%2Finstances%2Fi%2Fdatabases%2Fd"

	md := f.lastMD("/google.spanner.v1.Spanner/CreateSession")
	if got := one(md, transport.HeaderResourcePrefix); got != dbPath {
		t.Errorf("CreateSession %s = %q", transport.HeaderResourcePrefix, got)
	}
	if got := one(md, transport.HeaderRequestParams); got != "database="+escapedDB {
		t.Errorf("CreateSession %s = %q", transport.HeaderRequestParams, got)
	}
	if got := one(md, transport.HeaderRouteToLeader); got != "true" {
		t.Errorf("CreateSession %s = %q", transport.HeaderRouteToLeader, got)
	}
	if got := md.Get("user-agent"); len(got) == 0 || !strings.Contains(got[0], transport.UserAgent) {
		t.Errorf("user-agent = %q", got)
	}
	if got := md.Get(transport.HeaderEndToEndTracing); len(got) != 0 {
		t.Errorf("%s sent without enable_end_to_end_tracing: %q", transport.HeaderEndToEndTracing, got)
	}

	// Database routing, not to the leader; caller metadata kept; calling
	// Context twice sends each header once.
	cctx := metadata.AppendToOutgoingContext(ctx, "x-caller", "1")
	cctx = c.Context(c.Context(cctx, false), false)
	if _, err := c.Spanner().GetSession(cctx, &spannerpb.GetSessionRequest{Name: name}); err != nil {
		t.Fatal(err)
	}
	md = f.lastMD("/google.spanner.v1.Spanner/GetSession")
	if got := one(md, transport.HeaderResourcePrefix); got != dbPath {
		t.Errorf("GetSession %s = %q", transport.HeaderResourcePrefix, got)
	}
	if got := one(md, transport.HeaderRequestParams); got != "database="+escapedDB {
		t.Errorf("GetSession %s = %q", transport.HeaderRequestParams, got)
	}
	if got := one(md, "x-caller"); got != "1" {
		t.Errorf("caller metadata lost: %q", got)
	}
	if _, err := c.Spanner().GetSession(c.Context(ctx, false), &spannerpb.GetSessionRequest{Name: name}); err != nil {
		t.Fatal(err)
	}
	if got := f.lastMD("/google.spanner.v1.Spanner/GetSession").Get(transport.HeaderRouteToLeader); len(got) != 0 {
		t.Errorf("route-to-leader sent for routeToLeader=false: %q", got)
	}

	// Session routing.
	if _, err := c.Spanner().GetSession(c.SessionContext(ctx, name, true), &spannerpb.GetSessionRequest{Name: name}); err != nil {
		t.Fatal(err)
	}
	md = f.lastMD("/google.spanner.v1.Spanner/GetSession")
	wantParams := "session=" + strings.ReplaceAll(name, "/", "%2F")
	if got := one(md, transport.HeaderRequestParams); got != wantParams {
		t.Errorf("SessionContext %s = %q, want %q", transport.HeaderRequestParams, got, wantParams)
	}
	if got := one(md, transport.HeaderRouteToLeader); got != "true" {
		t.Errorf("SessionContext %s = %q", transport.HeaderRouteToLeader, got)
	}
	if got := one(md, transport.HeaderResourcePrefix); got != dbPath {
		t.Errorf("SessionContext %s = %q", transport.HeaderResourcePrefix, got)
	}
	// A session name that is not the current one is escaped on the fly.
	if _, err := c.Spanner().GetSession(c.SessionContext(ctx, "a b", false), &spannerpb.GetSessionRequest{Name: "x"}); err != nil {
		t.Fatal(err)
	}
	md = f.lastMD("/google.spanner.v1.Spanner/GetSession")
	if got := one(md, transport.HeaderRequestParams); got != "session=a+b" {
		t.Errorf("SessionContext other session %s = %q", transport.HeaderRequestParams, got)
	}
	if got := md.Get(transport.HeaderRouteToLeader); len(got) != 0 {
		t.Errorf("route-to-leader sent for routeToLeader=false: %q", got)
	}
}

func TestDisableRouteToLeaderAndTracing(t *testing.T) {
	f, addr := startFake(t, fakeOpts{})
	c := newClient(t, addr+"/"+dbPath+";usePlainText=true;disableRouteToLeader=true;enable_end_to_end_tracing=true")
	name, err := c.Session(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	md := f.lastMD("/google.spanner.v1.Spanner/CreateSession")
	if got := md.Get(transport.HeaderRouteToLeader); len(got) != 0 {
		t.Errorf("route-to-leader sent with disable_route_to_leader: %q", got)
	}
	if got := one(md, transport.HeaderEndToEndTracing); got != "true" {
		t.Errorf("%s = %q", transport.HeaderEndToEndTracing, got)
	}
	ctx := c.SessionContext(context.Background(), name, true)
	if _, err := c.Spanner().GetSession(ctx, &spannerpb.GetSessionRequest{Name: name}); err != nil {
		t.Fatal(err)
	}
	if got := f.lastMD("/google.spanner.v1.Spanner/GetSession").Get(transport.HeaderRouteToLeader); len(got) != 0 {
		t.Errorf("route-to-leader sent with disable_route_to_leader: %q", got)
	}
}

// TestSessionRetryAfterFailure: a failure that is not transient is the
// caller's error at once, and the next caller tries again.
func TestSessionRetryAfterFailure(t *testing.T) {
	f, addr := startFake(t, fakeOpts{})
	f.failCreates, f.failCode = 1, codes.PermissionDenied
	c := newClient(t, addr+"/"+dbPath+";usePlainText=true")
	ctx := context.Background()
	_, err := c.Session(ctx)
	if status.Code(err) != codes.PermissionDenied || !strings.Contains(err.Error(), "create session on "+dbPath) {
		t.Fatalf("first Session: %v (code %v), want PermissionDenied", err, status.Code(err))
	}
	if f.count() != 1 {
		t.Fatalf("CreateSession called %d times, want 1 (no retry)", f.count())
	}
	name, err := c.Session(ctx)
	if err != nil || name == "" {
		t.Fatalf("second Session: %q, %v", name, err)
	}
	if f.count() != 2 {
		t.Fatalf("CreateSession called %d times, want 2", f.count())
	}
}

func TestConnectTimeoutAndCancel(t *testing.T) {
	f, addr := startFake(t, fakeOpts{})
	f.blockCreate = true
	c := newClient(t, addr+"/"+dbPath+";usePlainText=true;connect_timeout=300ms")
	if _, err := c.Session(context.Background()); status.Code(err) != codes.DeadlineExceeded {
		t.Fatalf("Session with a hanging server: %v, want DeadlineExceeded", err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.Session(ctx); err == nil {
		t.Fatal("Session with a cancelled context succeeded")
	}

	f.mu.Lock()
	f.blockCreate = false
	f.mu.Unlock()
	if _, err := c.Session(context.Background()); err != nil {
		t.Fatalf("Session after the server recovered: %v", err)
	}
}

func TestInvalidateSession(t *testing.T) {
	f, addr := startFake(t, fakeOpts{})
	c := newClient(t, addr+"/"+dbPath+";usePlainText=true")
	ctx := context.Background()
	s1, err := c.Session(ctx)
	if err != nil {
		t.Fatal(err)
	}
	c.InvalidateSession("not-the-session")
	if s, _ := c.Session(ctx); s != s1 {
		t.Fatalf("InvalidateSession of another name replaced the session: %q", s)
	}
	c.InvalidateSession(s1)
	s2, err := c.Session(ctx)
	if err != nil || s2 == s1 {
		t.Fatalf("after InvalidateSession: %q, %v (old %q)", s2, err, s1)
	}
	if f.count() != 2 {
		t.Fatalf("CreateSession called %d times, want 2", f.count())
	}
}

func TestCloseAndRoundRobin(t *testing.T) {
	_, addr := startFake(t, fakeOpts{})
	cfg, err := dsn.Parse(addr + "/" + dbPath + ";usePlainText=true;num_channels=3")
	if err != nil {
		t.Fatal(err)
	}
	c, err := transport.NewClient(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	var chans []*grpc.ClientConn
	for range 6 {
		chans = append(chans, c.Channel())
	}
	if chans[0] == chans[1] || chans[1] == chans[2] || chans[0] == chans[2] {
		t.Fatal("Channel did not rotate over 3 channels")
	}
	for i := range 3 {
		if chans[i] != chans[i+3] {
			t.Fatalf("Channel is not round-robin: call %d and %d differ", i, i+3)
		}
	}
	if _, err := c.Session(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	for _, cc := range chans[:3] {
		if s := cc.GetState(); s != connectivity.Shutdown {
			t.Fatalf("channel state after Close = %v", s)
		}
	}
	if err := c.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	// The session is cached, but a closed client is closed.
	c.InvalidateSession("") // no-op
	if _, err := c.Spanner().GetSession(context.Background(), &spannerpb.GetSessionRequest{Name: "x"}); status.Code(err) != codes.Canceled {
		t.Fatalf("RPC after Close: %v, want Canceled", err)
	}
	c2, err := transport.NewClient(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	_ = c2.Close()
	if _, err := c2.Session(context.Background()); !errors.Is(err, transport.ErrClosed) {
		t.Fatalf("Session after Close: %v, want ErrClosed", err)
	}
}

func TestEndpointResolution(t *testing.T) {
	tests := []struct {
		name, dsn, env string
		endpoint       string
		plain          bool
	}{
		{"production", dbPath, "", dsn.DefaultEndpoint, false},
		{"host prefix", "h:1/" + dbPath, "", "h:1", false},
		{"host prefix plain", "h:1/" + dbPath + ";usePlainText=true", "", "h:1", true},
		{"endpoint overrides host", "h:1/" + dbPath + ";endpoint=e:2", "", "e:2", false},
		{"emulator env", dbPath, "emu:9", "emu:9", true},
		{"explicit endpoint beats env", "h:1/" + dbPath, "emu:9", "h:1", false},
		{"auto config", dbPath + ";autoConfigEmulator=true", "", dsn.DefaultEmulatorEndpoint, true},
		{"auto config with env", dbPath + ";autoConfigEmulator=true", "emu:9", "emu:9", true},
		{"auto config with host", "h:1/" + dbPath + ";autoConfigEmulator=true", "", "h:1", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(transport.EmulatorHostEnv, tt.env)
			c := newClient(t, tt.dsn)
			if c.Endpoint() != tt.endpoint || c.PlainText() != tt.plain {
				t.Fatalf("Endpoint() = %q, PlainText() = %v; want %q, %v", c.Endpoint(), c.PlainText(), tt.endpoint, tt.plain)
			}
			if c.DatabasePath() != dbPath || c.Config().Database != "d" {
				t.Fatalf("DatabasePath() = %q", c.DatabasePath())
			}
		})
	}
}

func TestEmulatorEnvConnects(t *testing.T) {
	_, addr := startFake(t, fakeOpts{})
	t.Setenv(transport.EmulatorHostEnv, addr)
	c := newClient(t, dbPath)
	if _, err := c.Session(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func TestNewClientErrors(t *testing.T) {
	// SPANNER_EMULATOR_HOST means plain text without credentials, so the
	// credential errors below would never be reached with it set.
	t.Setenv("SPANNER_EMULATOR_HOST", "")
	tests := []struct {
		dsn  string
		want string
	}{
		{"projects/p/instances/i", "names no database"},
		{dbPath + ";credentials=/nonexistent/creds.json", "credentials file: open /nonexistent/creds.json"},
		{dbPath + ";credentials_json=not json", "credentials_json is not JSON"},
		{dbPath + ";credentials_json={}", `credentials_json has no "type" field`},
		{dbPath + `;credentials_json={"type":"service_account"}`, "credentials_json:"},
	}
	for _, tt := range tests {
		cfg, err := dsn.Parse(tt.dsn)
		if err != nil {
			t.Fatal(err)
		}
		c, err := transport.NewClient(context.Background(), cfg)
		if err == nil {
			_ = c.Close()
			t.Fatalf("NewClient(%q) succeeded", tt.dsn)
		}
		if !strings.Contains(err.Error(), tt.want) {
			t.Errorf("NewClient(%q) = %v, want it to mention %q", tt.dsn, err, tt.want)
		}
	}
	if _, err := transport.NewClient(context.Background(), nil); err == nil {
		t.Error("NewClient(nil) succeeded")
	}
	bad := dsn.NewConfig()
	bad.Project, bad.Instance, bad.Database = "p", "i", "d"
	bad.NumChannels = 0
	if _, err := transport.NewClient(context.Background(), bad); !errors.Is(err, dsn.ErrInvalidValue) {
		t.Errorf("NewClient(invalid config) = %v", err)
	}
}

// TestTLSAuthorityAndToken: TLS with authority= as the server name and a
// service-account key that signs its own JWT (no token server).
func TestTLSAuthorityAndToken(t *testing.T) {
	serverTLS, roots := selfSignedTLS(t, "spanner.test")
	f, addr := startFake(t, fakeOpts{tls: serverTLS})

	cfg := dsn.NewConfig()
	cfg.Endpoint, cfg.Project, cfg.Instance, cfg.Database = addr, "p", "i", "d"
	cfg.Authority = "spanner.test"
	cfg.CredentialsJSON = serviceAccountJSON(t)
	// Its export would look for Cloud Monitoring and the metadata server,
	// whose keep-alive connection could outlive the test (goleak).
	cfg.DisableNativeMetrics = true
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	c, err := transport.NewClient(context.Background(), cfg,
		grpc.WithTransportCredentials(credentials.NewTLS(&tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12})))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Session(context.Background()); err != nil {
		t.Fatal(err)
	}
	md := f.lastMD("/google.spanner.v1.Spanner/CreateSession")
	if got := one(md, ":authority"); got != "spanner.test" {
		t.Errorf(":authority = %q", got)
	}
	authz := one(md, "authorization")
	if !strings.HasPrefix(authz, "Bearer ") || strings.Count(authz, ".") != 2 {
		t.Errorf("authorization = %q, want a bearer JWT", authz)
	}
}

func selfSignedTLS(t *testing.T, host string) (*tls.Config, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: host},
		DNSNames:              []string{host},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return &tls.Config{
		Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}},
		MinVersion:   tls.VersionTLS12,
	}, pool
}

func serviceAccountJSON(t *testing.T) string {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(map[string]string{
		"type":           "service_account",
		"project_id":     "p",
		"private_key_id": "k1",
		"private_key":    string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})),
		"client_email":   "sa@p.iam.gserviceaccount.com",
		"client_id":      "1",
		"token_uri":      "https://oauth2.invalid/token",
	})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestAutoConfigEmulatorCreatesInstanceAndDatabase(t *testing.T) {
	f, addr := startFake(t, fakeOpts{admin: true})
	c := newClient(t, addr+"/"+dbPath+";autoConfigEmulator=true")
	if !c.PlainText() {
		t.Fatal("auto_config_emulator should use plain text")
	}
	ctx := context.Background()
	if _, err := c.Session(ctx); err != nil {
		t.Fatal(err)
	}
	f.mu.Lock()
	ci, cd, polls := f.createInstance, f.createDatabase, f.opPolls
	f.mu.Unlock()
	if ci == nil || ci.Parent != "projects/p" || ci.InstanceId != "i" ||
		ci.GetInstance().GetConfig() != "projects/p/instanceConfigs/emulator-config" || ci.GetInstance().GetNodeCount() != 1 {
		t.Fatalf("CreateInstance = %v", ci)
	}
	if polls < 1 {
		t.Fatal("the unfinished CreateInstance operation was not polled")
	}
	if cd == nil || cd.Parent != "projects/p/instances/i" || cd.CreateStatement != "CREATE DATABASE `d`" {
		t.Fatalf("CreateDatabase = %v", cd)
	}

	// Set-up runs once: a new session does not repeat it.
	f.mu.Lock()
	f.createInstance, f.createDatabase = nil, nil
	f.instanceExists, f.databaseExists = false, false
	f.mu.Unlock()
	name, _ := c.Session(ctx)
	c.InvalidateSession(name)
	if _, err := c.Session(ctx); err != nil {
		t.Fatal(err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.createInstance != nil || f.createDatabase != nil {
		t.Fatal("emulator set-up ran twice")
	}
}

// TestAutoConfigEmulatorDialect: dialect=POSTGRESQL creates a PostgreSQL
// database (its CREATE statement quotes the id as PostgreSQL does), before
// and without any session.
func TestAutoConfigEmulatorDialect(t *testing.T) {
	f, addr := startFake(t, fakeOpts{admin: true})
	c := newClient(t, addr+"/"+dbPath+";autoConfigEmulator=true;dialect=postgresql")
	if err := c.EnsureEmulator(context.Background()); err != nil {
		t.Fatal(err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	cd := f.createDatabase
	if cd == nil || cd.CreateStatement != `CREATE DATABASE "d"` || cd.DatabaseDialect != databasepb.DatabaseDialect_POSTGRESQL {
		t.Fatalf("CreateDatabase = %v", cd)
	}
	if f.createInstance == nil {
		t.Fatal("no CreateInstance")
	}
}

func TestAutoConfigEmulatorExisting(t *testing.T) {
	f, addr := startFake(t, fakeOpts{admin: true})
	f.instanceExists, f.databaseExists = true, true
	c := newClient(t, addr+"/"+dbPath+";autoConfigEmulator=true")
	if _, err := c.Session(context.Background()); err != nil {
		t.Fatal(err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.createInstance != nil || f.createDatabase != nil {
		t.Fatal("created an instance or database that existed")
	}
}

// TestSpannertest runs against spannertest: it has no instance admin API
// (the set-up step is skipped on Unimplemented) and reports every database
// as existing; the multiplexed session it hands out works for queries.
func TestSpannertest(t *testing.T) {
	srv, err := spannertest.NewServer("localhost:0")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	srv.SetLogger(t.Logf)

	c := newClient(t, srv.Addr+"/"+dbPath+";autoConfigEmulator=true;num_channels=2")
	ctx := context.Background()
	name, err := c.Session(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(name, "multiplexed-") {
		t.Fatalf("session %q is not multiplexed", name)
	}
	if again, _ := c.Session(ctx); again != name {
		t.Fatalf("second Session = %q, want %q", again, name)
	}
	stream, err := c.Spanner().ExecuteStreamingSql(c.SessionContext(ctx, name, false), &spannerpb.ExecuteSqlRequest{
		Session: name,
		Sql:     "SELECT 1",
	})
	if err != nil {
		t.Fatal(err)
	}
	var values int
	for {
		prs, err := stream.Recv()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		values += len(prs.GetValues())
	}
	if values != 1 {
		t.Fatalf("SELECT 1 returned %d values", values)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
}
