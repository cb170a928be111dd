package embedded

import (
	"context"
	"fmt"
	"os"

	"cloud.google.com/go/spanner"
	database "cloud.google.com/go/spanner/admin/database/apiv1"
	"cloud.google.com/go/spanner/admin/database/apiv1/databasepb"
	"google.golang.org/api/option"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/spannerfast/spannerfast/spannerfasttest"
)

// The database every embedded server serves.
const (
	Project  = spannerfasttest.Project
	Instance = spannerfasttest.Instance
	Database = spannerfasttest.Database
)

// Target is a Spanner database the helpers below write to: the embedded
// server, the emulator or real Spanner.
type Target struct {
	Endpoint  string // host:port; empty means the client's default
	PlainText bool   // no TLS, no credentials (emulator, spannertest)
	Database  string // projects/P/instances/I/databases/D
}

// Server is a running spannerfasttest server.
type Server struct {
	Target
	srv *spannerfasttest.Server
}

// Start starts spannerfasttest on a free loopback port. Its request log is
// discarded; pass a logger to Logf to see it.
func Start() (*Server, error) {
	srv, err := spannerfasttest.Start()
	if err != nil {
		return nil, fmt.Errorf("embedded: %w", err)
	}
	return &Server{srv: srv, Target: Target{
		Endpoint:  srv.Addr(),
		PlainText: true,
		Database:  srv.DatabasePath(),
	}}, nil
}

// Logf sends the engine's log to logf (for example t.Logf).
func (s *Server) Logf(logf func(format string, args ...any)) { s.srv.Logf(logf) }

// Addr is the server's host:port.
func (s *Server) Addr() string { return s.srv.Addr() }

// DSN returns a spannerfast DSN for the server, with extra properties
// appended (each "key=value").
func (s *Server) DSN(props ...string) string { return s.srv.DSN(props...) }

func (s *Target) clientOptions() []option.ClientOption {
	var opts []option.ClientOption
	if s.Endpoint != "" {
		opts = append(opts, option.WithEndpoint(s.Endpoint))
	}
	if s.PlainText {
		opts = append(opts, option.WithoutAuthentication(),
			option.WithGRPCDialOption(grpc.WithTransportCredentials(insecure.NewCredentials())))
	}
	return opts
}

// CreateTables runs DDL statements through the database admin API and waits
// for them to finish.
func (s *Target) CreateTables(ctx context.Context, ddl ...string) error {
	admin, err := database.NewDatabaseAdminClient(ctx, s.clientOptions()...)
	if err != nil {
		return fmt.Errorf("embedded: admin client: %w", err)
	}
	defer admin.Close()
	op, err := admin.UpdateDatabaseDdl(ctx, &databasepb.UpdateDatabaseDdlRequest{
		Database:   s.Database,
		Statements: ddl,
	})
	if err != nil {
		return fmt.Errorf("embedded: DDL: %w", err)
	}
	if err := op.Wait(ctx); err != nil {
		return fmt.Errorf("embedded: DDL: %w", err)
	}
	return nil
}

// Load writes mutations with the official client.
func (s *Target) Load(ctx context.Context, ms []*spanner.Mutation) error {
	c, err := s.Client(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	_, err = c.ReadWriteTransaction(ctx, func(ctx context.Context, tx *spanner.ReadWriteTransaction) error {
		return tx.BufferWrite(ms)
	})
	if err != nil {
		return fmt.Errorf("embedded: load: %w", err)
	}
	return nil
}

// Client returns an official client for the server (a loader for tests).
func (s *Target) Client(ctx context.Context) (*spanner.Client, error) {
	cfg := spanner.ClientConfig{DisableNativeMetrics: true}
	if s.PlainText && os.Getenv("SPANNER_EMULATOR_HOST") == "" {
		// Outside emulator mode the official client probes the GCE metadata
		// server to find its region, which is traffic off this machine.
		// Emulator mode skips the probe; the variable is only needed while
		// the client is created.
		os.Setenv("SPANNER_EMULATOR_HOST", s.Endpoint)
		defer os.Unsetenv("SPANNER_EMULATOR_HOST")
	}
	c, err := spanner.NewClientWithConfig(ctx, s.Database, cfg, s.clientOptions()...)
	if err != nil {
		return nil, fmt.Errorf("embedded: client: %w", err)
	}
	return c, nil
}

// Close stops the server.
func (s *Server) Close() { s.srv.Close() }
