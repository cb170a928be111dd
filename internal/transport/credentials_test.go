package transport_test

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"

	"github.com/spannerfast/spannerfast/dsn"
	"github.com/spannerfast/spannerfast/internal/transport"
)

// tokenServer is an in-process OAuth2 token endpoint, STS and IAM
// credentials service: each answers with its own token, so that the token
// a Spanner RPC carries says which of them minted it.
type tokenServer struct {
	*httptest.Server
	mu   sync.Mutex
	seen map[string]string // path -> what the request proved (its form or its bearer)
}

const (
	userToken         = "ya29.user-refreshed"
	stsToken          = "ya29.sts-exchanged"
	impersonatedToken = "ya29.impersonated"
	subjectToken      = "eyJ.subject-token-from-file"
	targetSA          = "target@p.iam.gserviceaccount.com"
)

func startTokenServer(t *testing.T) *tokenServer {
	t.Helper()
	ts := &tokenServer{seen: map[string]string{}}
	ts.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		w.Header().Set("Content-Type", "application/json")
		var body any
		var seen string
		switch {
		case r.URL.Path == "/token": // refresh of an authorized user
			seen = r.PostForm.Get("grant_type") + " " + r.PostForm.Get("refresh_token")
			body = map[string]any{"access_token": userToken, "token_type": "Bearer", "expires_in": 3600}
		case r.URL.Path == "/v1/token": // STS token exchange
			seen = r.PostForm.Get("grant_type") + " " + r.PostForm.Get("subject_token")
			body = map[string]any{
				"access_token":      stsToken,
				"issued_token_type": "urn:ietf:params:oauth:token-type:access_token",
				"token_type":        "Bearer",
				"expires_in":        3600,
			}
		case strings.HasSuffix(r.URL.Path, ":generateAccessToken"):
			seen = r.Header.Get("Authorization")
			body = map[string]any{"accessToken": impersonatedToken, "expireTime": time.Now().Add(time.Hour).UTC().Format(time.RFC3339)}
		default:
			http.NotFound(w, r)
			return
		}
		ts.mu.Lock()
		ts.seen[r.URL.Path] = seen
		ts.mu.Unlock()
		_ = json.NewEncoder(w).Encode(body)
	}))
	t.Cleanup(ts.Close)
	// An authorized user's refresh goes to Google's token endpoint whatever
	// its file says: send it here instead.
	target, err := url.Parse(ts.URL)
	if err != nil {
		t.Fatal(err)
	}
	// Its own transport, without idle connections to outlive the test.
	tr := &http.Transport{DisableKeepAlives: true}
	t.Cleanup(tr.CloseIdleConnections)
	t.Cleanup(transport.SetTokenHTTPClient(&http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		if r.URL.Host == "oauth2.googleapis.com" {
			r = r.Clone(r.Context())
			r.URL.Scheme, r.URL.Host, r.Host = target.Scheme, target.Host, ""
		}
		return tr.RoundTrip(r)
	})}))
	return ts
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func (ts *tokenServer) got(path string) string {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return ts.seen[path]
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func authorizedUser(ts *tokenServer, extra map[string]any) map[string]any {
	m := map[string]any{
		"type":          "authorized_user",
		"client_id":     "cid",
		"client_secret": "secret",
		"refresh_token": "refresh-1",
		"token_uri":     ts.URL + "/token",
	}
	for k, v := range extra {
		m[k] = v
	}
	return m
}

// tlsCall makes a client of credentialsJSON against an in-process TLS
// Spanner server whose certificate names host, dialled through dialer
// (which records the address the dialer was asked for), makes one RPC and
// returns the server's CreateSession metadata and the address.
func tlsCall(t *testing.T, host, endpoint, credentialsJSON string) (map[string]string, string, error) {
	t.Helper()
	serverTLS, roots := selfSignedTLS(t, host)
	f, addr := startFake(t, fakeOpts{tls: serverTLS})
	cfg := dsn.NewConfig()
	cfg.Endpoint, cfg.Project, cfg.Instance, cfg.Database = endpoint, "p", "i", "d"
	cfg.CredentialsJSON = credentialsJSON
	cfg.DisableNativeMetrics = true // its exporter would look for Cloud Monitoring
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var dialled string
	c, err := transport.NewClient(context.Background(), cfg,
		grpc.WithTransportCredentials(credentials.NewTLS(&tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12})),
		grpc.WithContextDialer(func(ctx context.Context, target string) (net.Conn, error) {
			mu.Lock()
			dialled = target
			mu.Unlock()
			var d net.Dialer
			return d.DialContext(ctx, "tcp", addr)
		}))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err = c.Session(ctx)
	md := f.lastMD("/google.spanner.v1.Spanner/CreateSession")
	out := map[string]string{}
	for _, k := range []string{"authorization", "x-goog-user-project", ":authority"} {
		if len(md.Get(k)) > 0 {
			out[k] = one(md, k)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	return out, dialled, err
}

// TestCredentialTypes: credentials_json of each type the official client
// accepts authenticates the RPCs with the token its own token source
// minted: an authorized user's refreshed token, workload identity
// federation's token from the STS exchange of a file-sourced subject
// token, an impersonated service account's token from generateAccessToken
// (asked for with the source credentials' token), and a service account's
// self-signed JWT.
func TestCredentialTypes(t *testing.T) {
	t.Setenv(transport.EmulatorHostEnv, "")
	t.Setenv("GOOGLE_CLOUD_QUOTA_PROJECT", "")
	t.Setenv("GOOGLE_CLOUD_UNIVERSE_DOMAIN", "")
	ts := startTokenServer(t)
	subjectFile := filepath.Join(t.TempDir(), "subject-token")
	if err := os.WriteFile(subjectFile, []byte(subjectToken), 0o600); err != nil {
		t.Fatal(err)
	}
	impURL := ts.URL + "/v1/projects/-/serviceAccounts/" + targetSA + ":generateAccessToken"
	for _, tc := range []struct {
		name, json, want string
		check            func(t *testing.T)
	}{
		{
			name: "authorized_user", json: mustJSON(t, authorizedUser(ts, nil)), want: "Bearer " + userToken,
			check: func(t *testing.T) {
				if got := ts.got("/token"); got != "refresh_token refresh-1" {
					t.Errorf("token endpoint saw %q", got)
				}
			},
		},
		{
			name: "external_account",
			json: mustJSON(t, map[string]any{
				"type":               "external_account",
				"audience":           "//iam.googleapis.com/projects/1/locations/global/workloadIdentityPools/pool/providers/prov",
				"subject_token_type": "urn:ietf:params:oauth:token-type:jwt",
				"token_url":          ts.URL + "/v1/token",
				"credential_source":  map[string]any{"file": subjectFile},
			}),
			want: "Bearer " + stsToken,
			check: func(t *testing.T) {
				if got := ts.got("/v1/token"); got != "urn:ietf:params:oauth:grant-type:token-exchange "+subjectToken {
					t.Errorf("STS saw %q, want the token exchange of the file's subject token", got)
				}
			},
		},
		{
			name: "impersonated_service_account",
			json: mustJSON(t, map[string]any{
				"type":                              "impersonated_service_account",
				"service_account_impersonation_url": impURL,
				"source_credentials":                authorizedUser(ts, nil),
			}),
			want: "Bearer " + impersonatedToken,
			check: func(t *testing.T) {
				path := "/v1/projects/-/serviceAccounts/" + targetSA + ":generateAccessToken"
				if got := ts.got(path); got != "Bearer "+userToken {
					t.Errorf("generateAccessToken was authorized with %q, want the source credentials' token", got)
				}
			},
		},
		{
			name: "service_account", json: serviceAccountJSON(t),
			check: func(t *testing.T) {},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			md, _, err := tlsCall(t, "spanner.test", "spanner.test:443", tc.json)
			if err != nil {
				t.Fatal(err)
			}
			authz := md["authorization"]
			if tc.want != "" && authz != tc.want {
				t.Errorf("authorization = %q, want %q", authz, tc.want)
			}
			if tc.want == "" && (!strings.HasPrefix(authz, "Bearer ") || strings.Count(authz, ".") != 2) {
				t.Errorf("authorization = %q, want a self-signed bearer JWT", authz)
			}
			tc.check(t)
		})
	}
}

// TestQuotaProject: the quota project of the credentials, or
// GOOGLE_CLOUD_QUOTA_PROJECT (which wins, as for the official client),
// goes with each RPC as x-goog-user-project.
func TestQuotaProject(t *testing.T) {
	t.Setenv(transport.EmulatorHostEnv, "")
	t.Setenv("GOOGLE_CLOUD_UNIVERSE_DOMAIN", "")
	ts := startTokenServer(t)
	for _, tc := range []struct{ name, fileQP, envQP, want string }{
		{"none", "", "", ""},
		{"credentials", "qp-file", "", "qp-file"},
		{"env", "", "qp-env", "qp-env"},
		{"env wins", "qp-file", "qp-env", "qp-env"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("GOOGLE_CLOUD_QUOTA_PROJECT", tc.envQP)
			extra := map[string]any{}
			if tc.fileQP != "" {
				extra["quota_project_id"] = tc.fileQP
			}
			md, _, err := tlsCall(t, "spanner.test", "spanner.test:443", mustJSON(t, authorizedUser(ts, extra)))
			if err != nil {
				t.Fatal(err)
			}
			if got := md["x-goog-user-project"]; got != tc.want {
				t.Errorf("x-goog-user-project = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestUniverseDomain: with no endpoint in the DSN, the universe domain
// GOOGLE_CLOUD_UNIVERSE_DOMAIN names makes the dialer target
// spanner.<universe>:443 (with that TLS server name), and credentials of
// that universe are accepted. Credentials of another universe than the
// client's fail the RPC saying both universes: the universe_domain of the
// credentials alone does not move the endpoint (the client's universe is
// googleapis.com unless configured), as for the official client.
func TestUniverseDomain(t *testing.T) {
	t.Setenv(transport.EmulatorHostEnv, "")
	t.Setenv("GOOGLE_CLOUD_QUOTA_PROJECT", "")
	ts := startTokenServer(t)
	sa := map[string]any{}
	if err := json.Unmarshal([]byte(serviceAccountJSON(t)), &sa); err != nil {
		t.Fatal(err)
	}
	sa["universe_domain"] = "example.test"
	saTest := mustJSON(t, sa)

	t.Run("env and credentials", func(t *testing.T) {
		t.Setenv("GOOGLE_CLOUD_UNIVERSE_DOMAIN", "example.test")
		md, dialled, err := tlsCall(t, "spanner.example.test", "", saTest)
		if err != nil {
			t.Fatal(err)
		}
		if dialled != "spanner.example.test:443" {
			t.Errorf("dialled %q, want spanner.example.test:443", dialled)
		}
		if got := md[":authority"]; got != "spanner.example.test:443" {
			t.Errorf(":authority = %q", got)
		}
		if authz := md["authorization"]; !strings.HasPrefix(authz, "Bearer ") {
			t.Errorf("authorization = %q", authz)
		}
	})
	t.Run("credentials only", func(t *testing.T) {
		t.Setenv("GOOGLE_CLOUD_UNIVERSE_DOMAIN", "")
		_, dialled, err := tlsCall(t, "spanner.googleapis.com", "", saTest)
		if err == nil || !strings.Contains(err.Error(), `configured universe domain ("googleapis.com") does not match the universe domain found in the credentials ("example.test")`) {
			t.Fatalf("RPC error = %v, want the universe domain mismatch", err)
		}
		if dialled != dsn.DefaultEndpoint {
			t.Errorf("dialled %q, want %s", dialled, dsn.DefaultEndpoint)
		}
	})
	t.Run("env only", func(t *testing.T) {
		t.Setenv("GOOGLE_CLOUD_UNIVERSE_DOMAIN", "example.test")
		_, _, err := tlsCall(t, "spanner.example.test", "", mustJSON(t, authorizedUser(ts, nil)))
		if err == nil || !strings.Contains(err.Error(), `configured universe domain ("example.test") does not match the universe domain found in the credentials ("googleapis.com")`) {
			t.Fatalf("RPC error = %v, want the universe domain mismatch", err)
		}
	})
}
