package e2e

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"database/sql"
	"encoding/pem"
	"errors"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spannerfast/spannerfast/dsn"
	"github.com/spannerfast/spannerfast/internal/fakespanner"
)

// testCA is a certificate authority made in memory for one test.
type testCA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	pem  []byte
}

var serial int64

// certify makes a key and a certificate from tmpl (given its serial number
// and validity here), signed by parent's key, or self-signed when parent
// is nil.
func certify(t *testing.T, tmpl *x509.Certificate, parent *testCA) (*ecdsa.PrivateKey, []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	serial++
	tmpl.SerialNumber = big.NewInt(serial)
	tmpl.NotBefore, tmpl.NotAfter = time.Now().Add(-time.Hour), time.Now().Add(time.Hour)
	issuer, signer := tmpl, key
	if parent != nil {
		issuer, signer = parent.cert, parent.key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, issuer, &key.PublicKey, signer)
	if err != nil {
		t.Fatal(err)
	}
	return key, der
}

func newTestCA(t *testing.T, name string) *testCA {
	t.Helper()
	key, der := certify(t, &x509.Certificate{
		Subject: pkix.Name{CommonName: name}, IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}, nil)
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return &testCA{cert: cert, key: key, pem: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})}
}

// issue returns a certificate for 127.0.0.1 signed by ca, for a server or
// a client, as a tls.Certificate and as PEM (certificate, key).
func (ca *testCA) issue(t *testing.T, usage x509.ExtKeyUsage) (tls.Certificate, []byte, []byte) {
	t.Helper()
	key, der := certify(t, &x509.Certificate{
		Subject:     pkix.Name{CommonName: "spannerfast test"},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, DNSNames: []string{"localhost"},
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{usage},
	}, ca)
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	keyPEM := pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder})
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	return pair, certPEM, keyPEM
}

func writeFile(t *testing.T, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// startMTLSFake serves the fake server over TLS with a certificate of ca,
// requiring a client certificate signed by ca.
func startMTLSFake(t *testing.T, ca *testCA) *fakespanner.Server {
	t.Helper()
	serverCert, _, _ := ca.issue(t, x509.ExtKeyUsageServerAuth)
	pool := x509.NewCertPool()
	pool.AddCert(ca.cert)
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := fakespanner.New()
	tlsLis := tls.NewListener(lis, &tls.Config{
		Certificates: []tls.Certificate{serverCert},
		ClientAuth:   tls.RequireAndVerifyClientCert,
		ClientCAs:    pool,
		NextProtos:   []string{"h2"},
		MinVersion:   tls.VersionTLS12,
		// TLS 1.2 rejects a missing or unknown client certificate within
		// the handshake, so the client always reports the handshake's
		// failure (under TLS 1.3 it may see only the connection closing).
		MaxVersion: tls.VersionTLS12,
	})
	return serveFake(t, s, tlsLis)
}

// serveFake serves s on lis until the test ends, and returns s once it
// has an address.
func serveFake(t *testing.T, s *fakespanner.Server, lis net.Listener) *fakespanner.Server {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- s.Serve(lis) }()
	t.Cleanup(func() {
		s.Close()
		if err := <-done; err != nil {
			t.Error(err)
		}
	})
	waitFor(t, func() bool { return s.Addr() != "" })
	return s
}

// selectOne opens dsnText with database/sql and runs SELECT 1.
func selectOne(t *testing.T, dsnText string) error {
	t.Helper()
	db, err := sql.Open("spannerfast", dsnText)
	if err != nil {
		return err
	}
	defer db.Close()
	var v int64
	if err := db.QueryRow("SELECT 1").Scan(&v); err != nil {
		return err
	}
	if v != 1 {
		t.Fatalf("SELECT 1 = %d", v)
	}
	return nil
}

// TestFakeExperimentalHostMutualTLS: go-sql-spanner's is_experimental_host
// with ca_cert_file, client_cert_file and client_cert_key, against a TLS
// server that requires a client certificate: the right certificate
// connects and a query works; none, one from another CA, or a CA that did
// not sign the server's certificate fails naming the endpoint and the TLS
// failure; plain text is never used instead.
func TestFakeExperimentalHostMutualTLS(t *testing.T) {
	ca, other := newTestCA(t, "test CA"), newTestCA(t, "other CA")
	s := startMTLSFake(t, ca)
	caFile, otherCAFile := writeFile(t, "ca.pem", ca.pem), writeFile(t, "other.pem", other.pem)
	_, certPEM, keyPEM := ca.issue(t, x509.ExtKeyUsageClientAuth)
	certFile, keyFile := writeFile(t, "client.pem", certPEM), writeFile(t, "client.key", keyPEM)
	_, wrongPEM, wrongKeyPEM := other.issue(t, x509.ExtKeyUsageClientAuth)
	wrongFile, wrongKeyFile := writeFile(t, "wrong.pem", wrongPEM), writeFile(t, "wrong.key", wrongKeyPEM)

	base := s.Addr() + "/" + fakeDB + ";is_experimental_host=true;connect_timeout=3s"
	if err := selectOne(t, base+";ca_cert_file="+caFile+";client_cert_file="+certFile+";client_cert_key="+keyFile); err != nil {
		t.Fatalf("with the right client certificate: %v", err)
	}

	for _, tc := range []struct{ name, props, want string }{
		{"no client certificate", ";ca_cert_file=" + caFile, "handshake failed"},
		{"client certificate of another CA", ";ca_cert_file=" + caFile + ";client_cert_file=" + wrongFile + ";client_cert_key=" + wrongKeyFile, "handshake failed"},
		{"wrong CA", ";ca_cert_file=" + otherCAFile + ";client_cert_file=" + certFile + ";client_cert_key=" + keyFile, "x509: certificate signed by unknown authority"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := selectOne(t, base+tc.props)
			if err == nil {
				t.Fatal("the query succeeded")
			}
			t.Log(err)
			if !strings.Contains(err.Error(), s.Addr()) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %q does not name the endpoint %s and %q", err, s.Addr(), tc.want)
			}
		})
	}

	// A plain-text server with ca_cert_file: TLS fails, nothing falls back.
	plain := fakespanner.Start(t)
	err := selectOne(t, plain.Addr()+"/"+fakeDB+";is_experimental_host=true;connect_timeout=2s;ca_cert_file="+caFile+";client_cert_file="+certFile+";client_cert_key="+keyFile)
	if err == nil || !strings.Contains(err.Error(), plain.Addr()) {
		t.Fatalf("ca_cert_file against a plain-text server: %v", err)
	}
	if n := len(plain.RequestsFor("CreateSession")); n != 0 {
		t.Fatalf("the plain-text server got %d CreateSession calls", n)
	}

	// Combinations that cannot do what they say are refused.
	for _, props := range []string{
		";ca_cert_file=" + caFile, // without is_experimental_host
		";is_experimental_host=true;use_plain_text=true;ca_cert_file=" + caFile,
		";is_experimental_host=true;ca_cert_file=" + caFile + ";client_cert_file=" + certFile,
		";is_experimental_host=true;client_cert_file=" + certFile + ";client_cert_key=" + keyFile,
	} {
		err := selectOne(t, s.Addr()+"/"+fakeDB+props)
		if !errors.Is(err, dsn.ErrInvalidValue) {
			t.Errorf("%s: %v, want an invalid-value error", props, err)
		}
	}
}
