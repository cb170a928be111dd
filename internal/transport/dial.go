package transport

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"os"
	"strconv"
	"time"

	vkit "cloud.google.com/go/spanner/apiv1"
	"google.golang.org/api/option"
	"google.golang.org/api/option/internaloption"
	gtransport "google.golang.org/api/transport/grpc"
	"google.golang.org/grpc"
	grpccreds "google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/encoding/gzip"
	"google.golang.org/grpc/keepalive"

	"github.com/spannerfast/spannerfast/dsn"
)

// Dialing. The channels are built by Google's dialer
// (google.golang.org/api/transport/grpc) with the options the official
// client v1.96 gives it (its allClientOpts): the generated client's
// defaults (endpoint, its universe-domain template and mTLS form, scopes,
// audience, the new auth library, unbounded received messages), the
// keepalive, DirectPath when GOOGLE_SPANNER_ENABLE_DIRECT_ACCESS says so,
// gzip with compression=GZIP. The dialer then resolves the endpoint
// (universe domain, mTLS with a client certificate source), finds the
// credentials and the quota project, and decides DirectPath. spannerfast
// adds its user agent, its interceptors (request ids, per channel) and the
// caller's options as dial options; its codec is chosen per stream.

// DirectAccessEnv turns DirectPath on ("true") or off, as it does for the
// official client.
const DirectAccessEnv = "GOOGLE_SPANNER_ENABLE_DIRECT_ACCESS"

// universeDomainEnv names the universe domain of the client.
const universeDomainEnv = "GOOGLE_CLOUD_UNIVERSE_DOMAIN"

// directAccessBoundTokenEnv turns off ALTS-bound tokens on DirectPath.
const directAccessBoundTokenEnv = "GOOGLE_SPANNER_DISABLE_DIRECT_ACCESS_BOUND_TOKEN"

// directPath reports whether DirectPath is asked for, read as the official
// client reads it (its EnableDirectAccess default is false; the variable
// overrides it, an unparsable value meaning false).
func directPath() bool {
	v := os.Getenv(DirectAccessEnv)
	if v == "" {
		return false
	}
	on, _ := strconv.ParseBool(v)
	return on
}

// directPathOn reports whether the channels of a client, plain text or
// not, are dialled with DirectPath.
func directPathOn(plain bool) bool { return directPath() && !plain }

// clientOptions returns the options every channel of a client of cfg is
// dialled with; the endpoint is the resolved one, plain whether it is
// plain text.
func clientOptions(cfg *dsn.Config, endpoint string, plain bool) ([]option.ClientOption, error) {
	opts := append(vkit.DefaultClientOptions(),
		option.WithUserAgent(UserAgent),
		// spannerfast makes its own spans and metrics (internal/telemetry);
		// the dialer's OpenTelemetry stats handler would cost every call.
		option.WithTelemetryDisabled(),
		option.WithGRPCDialOption(grpc.WithKeepaliveParams(keepalive.ClientParameters{Time: 120 * time.Second})),
	)
	if directPathOn(plain) {
		opts = append(opts,
			internaloption.AllowNonDefaultServiceAccount(true),
			internaloption.EnableDirectPath(true),
			internaloption.EnableDirectPathXds())
		if off, _ := strconv.ParseBool(os.Getenv(directAccessBoundTokenEnv)); !off {
			opts = append(opts, internaloption.AllowHardBoundTokens("ALTS"))
		}
	}
	if cfg.Compression == dsn.CompressionGzip {
		opts = append(opts, option.WithGRPCDialOption(grpc.WithDefaultCallOptions(grpc.UseCompressor(gzip.Name))))
	}
	if cfg.Authority != "" {
		opts = append(opts, option.WithGRPCDialOption(grpc.WithAuthority(cfg.Authority)))
	}
	switch {
	case plain:
		// As the official client connects to the emulator.
		return append(opts,
			option.WithEndpoint("passthrough:///"+endpoint),
			option.WithGRPCDialOption(grpc.WithTransportCredentials(insecure.NewCredentials())),
			option.WithoutAuthentication(),
			internaloption.SkipDialSettingsValidation()), nil
	case cfg.IsExperimentalHost && cfg.CACertFile != "":
		tc, err := experimentalHostTLS(cfg, endpoint)
		if err != nil {
			return nil, err
		}
		// As go-sql-spanner connects to an experimental host with a CA.
		return append(opts,
			option.WithEndpoint(endpoint),
			option.WithGRPCDialOption(grpc.WithTransportCredentials(tc)),
			option.WithoutAuthentication()), nil
	}
	if ud := os.Getenv(universeDomainEnv); ud != "" {
		// The dialer of google.golang.org/api v0.288 checks the credentials
		// against this variable but does not resolve the endpoint with it
		// (fixed in its later releases; the official client v1.96 works
		// around it only for its metrics exporter): given as an option it
		// does both, so that the endpoint is spanner.<universe>:443.
		opts = append(opts, option.WithUniverseDomain(ud))
	}
	if cfg.Endpoint != "" {
		// Otherwise the dialer chooses: the universe domain's endpoint,
		// or the mTLS one with a client certificate source.
		opts = append(opts, option.WithEndpoint(cfg.Endpoint))
	}
	co, err := credentialsOption(cfg)
	if err != nil {
		return nil, err
	}
	if co != nil {
		opts = append(opts, co)
	}
	return opts, nil
}

// experimentalHostTLS is the TLS of an experimental host: its certificate
// must chain to ca_cert_file, and with client_cert_file and
// client_cert_key the client presents that certificate (mutual TLS).
func experimentalHostTLS(cfg *dsn.Config, endpoint string) (grpccreds.TransportCredentials, error) {
	pem, err := os.ReadFile(cfg.CACertFile)
	if err != nil {
		return nil, fmt.Errorf("spannerfast: ca_cert_file for %s: %w", endpoint, err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("spannerfast: ca_cert_file %s for %s holds no PEM certificate", cfg.CACertFile, endpoint)
	}
	tc := &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	if cfg.ClientCertFile != "" {
		cert, err := tls.LoadX509KeyPair(cfg.ClientCertFile, cfg.ClientCertKey)
		if err != nil {
			return nil, fmt.Errorf("spannerfast: client_cert_file %s / client_cert_key %s for %s: %w", cfg.ClientCertFile, cfg.ClientCertKey, endpoint, err)
		}
		tc.Certificates = []tls.Certificate{cert}
	}
	return grpccreds.NewTLS(tc), nil
}

// dialChannel dials one channel with the client's options and the
// channel's own dial options after them.
func dialChannel(ctx context.Context, base []option.ClientOption, extra ...grpc.DialOption) (*grpc.ClientConn, error) {
	opts := make([]option.ClientOption, 0, len(base)+len(extra))
	opts = append(opts, base...)
	for _, o := range extra {
		opts = append(opts, option.WithGRPCDialOption(o))
	}
	return gtransport.Dial(ctx, opts...)
}
