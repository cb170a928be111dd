package transport

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sync"

	"cloud.google.com/go/auth"
	"cloud.google.com/go/auth/credentials"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/spannerfast/spannerfast/dsn"
)

// perRPCCreds adds an OAuth2 bearer token to every RPC. Explicit credentials
// (credentials=, credentials_json=) are parsed when the client is built;
// Application Default Credentials are looked up on the first RPC, because
// the lookup may probe the GCE metadata server.
type perRPCCreds struct {
	mu    sync.Mutex
	creds *auth.Credentials
}

func newPerRPCCreds(_ context.Context, cfg *dsn.Config) (*perRPCCreds, error) {
	var (
		b   []byte
		src string
	)
	switch {
	case cfg.CredentialsJSON != "":
		b, src = []byte(cfg.CredentialsJSON), "credentials_json"
	case cfg.Credentials != "":
		var err error
		b, err = os.ReadFile(cfg.Credentials)
		if err != nil {
			return nil, fmt.Errorf("spannerfast: credentials file: %w", err)
		}
		src = "credentials file " + cfg.Credentials
	default:
		return &perRPCCreds{}, nil
	}
	var head struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return nil, fmt.Errorf("spannerfast: %s is not JSON: %w", src, err)
	}
	if head.Type == "" {
		return nil, fmt.Errorf("spannerfast: %s has no \"type\" field", src)
	}
	// The user named these credentials explicitly, so their own type is the
	// expected one.
	creds, err := credentials.NewCredentialsFromJSON(credentials.CredType(head.Type), b, detectOptions())
	if err != nil {
		return nil, fmt.Errorf("spannerfast: %s: %w", src, err)
	}
	return &perRPCCreds{creds: creds}, nil
}

func detectOptions() *credentials.DetectOptions {
	return &credentials.DetectOptions{Scopes: scopes, UseSelfSignedJWT: true}
}

func (p *perRPCCreds) get() (*auth.Credentials, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.creds == nil {
		creds, err := credentials.DetectDefault(detectOptions())
		if err != nil {
			return nil, err // not cached: the next RPC looks again
		}
		p.creds = creds
	}
	return p.creds, nil
}

// GetRequestMetadata implements credentials.PerRPCCredentials.
func (p *perRPCCreds) GetRequestMetadata(ctx context.Context, _ ...string) (map[string]string, error) {
	creds, err := p.get()
	if err != nil {
		return nil, status.Errorf(codes.Unauthenticated, "spannerfast: application default credentials: %v", err)
	}
	tok, err := creds.Token(ctx)
	if err != nil {
		if _, ok := status.FromError(err); ok && status.Code(err) != codes.Unknown {
			return nil, err
		}
		return nil, status.Errorf(codes.Unauthenticated, "spannerfast: credentials token: %v", err)
	}
	typ := tok.Type
	if typ == "" {
		typ = "Bearer"
	}
	return map[string]string{"authorization": typ + " " + tok.Value}, nil
}

// RequireTransportSecurity implements credentials.PerRPCCredentials.
func (p *perRPCCreds) RequireTransportSecurity() bool { return true }
