package transport

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	"cloud.google.com/go/auth"
	"cloud.google.com/go/auth/credentials"
	"google.golang.org/api/option"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/spannerfast/spannerfast/dsn"
)

// credentialsOption returns how the channels authenticate, for a client
// that is neither plain text nor an experimental host with its own CA:
//
//   - credentials= or credentials_json= are parsed now (so that a bad file
//     fails NewClient naming it) with their own type (service account,
//     authorized user, external account, impersonated service account,
//     ...), and handed to the dialer, which adds the quota project, checks
//     the universe domain and decides DirectPath with them.
//   - Otherwise, when Application Default Credentials are in a file
//     (GOOGLE_APPLICATION_CREDENTIALS or gcloud's), nil: the dialer reads
//     them itself, exactly as the official client does.
//   - Otherwise (the metadata server, or none yet), credentials that look
//     them up on the first RPC and again on each until found, so that
//     making a connector probes no server and an environment without
//     credentials fails on the first RPC (UNAUTHENTICATED); the quota
//     project is GOOGLE_CLOUD_QUOTA_PROJECT's, as for detected ones.
func credentialsOption(cfg *dsn.Config) (option.ClientOption, error) {
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
		if adcFile() {
			return nil, nil
		}
		lazy := &lazyADC{}
		return option.WithAuthCredentials(auth.NewCredentials(&auth.CredentialsOptions{
			TokenProvider:          lazy,
			UniverseDomainProvider: auth.CredentialsPropertyFunc(lazy.universeDomain),
			QuotaProjectIDProvider: auth.CredentialsPropertyFunc(func(context.Context) (string, error) {
				return os.Getenv(quotaProjectEnv), nil
			}),
		})), nil
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
	return option.WithAuthCredentials(creds), nil
}

func detectOptions() *credentials.DetectOptions {
	return &credentials.DetectOptions{Scopes: scopes, UseSelfSignedJWT: true, Client: tokenHTTPClient}
}

// tokenHTTPClient is the HTTP client the credentials' token requests use;
// nil is the library's default. Only tests set it: an authorized user's
// refresh goes to Google's token endpoint whatever the file says, and
// tests have no network.
var tokenHTTPClient *http.Client

const quotaProjectEnv = "GOOGLE_CLOUD_QUOTA_PROJECT"

// adcFile reports whether Application Default Credentials are in a file:
// GOOGLE_APPLICATION_CREDENTIALS, or gcloud's
// application_default_credentials.json (CLOUDSDK_CONFIG, else the user's
// configuration directory).
func adcFile() bool {
	if os.Getenv("GOOGLE_APPLICATION_CREDENTIALS") != "" {
		return true
	}
	dir := os.Getenv("CLOUDSDK_CONFIG")
	if dir == "" {
		if runtime.GOOS == "windows" {
			dir = filepath.Join(os.Getenv("APPDATA"), "gcloud")
		} else if home, err := os.UserHomeDir(); err == nil {
			dir = filepath.Join(home, ".config", "gcloud")
		}
	}
	if dir == "" {
		return false
	}
	_, err := os.Stat(filepath.Join(dir, "application_default_credentials.json"))
	return err == nil
}

// lazyADC is a token provider that looks Application Default Credentials
// up on each call until found (a failure is not kept) and then uses them.
type lazyADC struct {
	mu    sync.Mutex
	creds *auth.Credentials
}

var _ auth.TokenProvider = (*lazyADC)(nil)

// Token implements auth.TokenProvider.
func (l *lazyADC) Token(ctx context.Context) (*auth.Token, error) {
	l.mu.Lock()
	if l.creds == nil {
		creds, err := credentials.DetectDefault(detectOptions())
		if err != nil {
			l.mu.Unlock()
			return nil, status.Errorf(codes.Unauthenticated, "spannerfast: application default credentials: %v", err)
		}
		l.creds = creds
	}
	creds := l.creds
	l.mu.Unlock()
	return creds.Token(ctx)
}

// universeDomain is the universe domain of the credentials once found;
// until then the default one (the dialer compares it with the client's
// on each RPC, after Token).
func (l *lazyADC) universeDomain(ctx context.Context) (string, error) {
	l.mu.Lock()
	creds := l.creds
	l.mu.Unlock()
	if creds == nil {
		return "googleapis.com", nil
	}
	return creds.UniverseDomain(ctx)
}
