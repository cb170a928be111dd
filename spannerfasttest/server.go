package spannerfasttest

import (
	"context"
	"fmt"
	"net"
	"strings"
	"time"

	lropb "cloud.google.com/go/longrunning/autogen/longrunningpb"
	adminpb "cloud.google.com/go/spanner/admin/database/apiv1/databasepb"
	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"cloud.google.com/go/spanner/spannertest"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
)

// The database path a Server reports. spannertest serves a single database
// whatever its name, so any path in a DSN reaches the same tables.
const (
	Project  = "test-project"
	Instance = "test-instance"
	Database = "test-db"
)

// Server is a running in-process Spanner server: spannertest behind a
// correcting gRPC layer. Create it with Start and stop it with Close.
type Server struct {
	engine *spannertest.Server
	conn   *grpc.ClientConn // loopback connection to the engine
	grpc   *grpc.Server
	lis    net.Listener
	svc    *service
	admin  *adminService
	path   string
}

// Start starts a server on a free loopback port.
func Start() (*Server, error) {
	engine, err := spannertest.NewServer("127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("spannerfasttest: start engine: %w", err)
	}
	engine.SetLogger(func(string, ...any) {})
	conn, err := grpc.NewClient(engine.Addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		engine.Close()
		return nil, fmt.Errorf("spannerfasttest: dial engine: %w", err)
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		conn.Close()
		engine.Close()
		return nil, fmt.Errorf("spannerfasttest: listen: %w", err)
	}
	s := &Server{
		engine: engine,
		conn:   conn,
		grpc:   grpc.NewServer(grpc.ChainUnaryInterceptor(recoverUnary), grpc.ChainStreamInterceptor(recoverStream)),
		lis:    lis,
		path:   fmt.Sprintf("projects/%s/instances/%s/databases/%s", Project, Instance, Database),
	}
	s.admin = &adminService{engine: adminpb.NewDatabaseAdminClient(conn), ops: lropb.NewOperationsClient(conn), schema: newSchemaNotes(), catalog: newCatalog()}
	s.svc = newService(spannerpb.NewSpannerClient(conn), adminpb.NewDatabaseAdminClient(conn), s.path, s.admin.schema, s.admin.catalog)
	spannerpb.RegisterSpannerServer(s.grpc, s.svc)
	adminpb.RegisterDatabaseAdminServer(s.grpc, s.admin)
	lropb.RegisterOperationsServer(s.grpc, s.admin)
	go s.grpc.Serve(lis)
	return s, nil
}

// Addr is the server's host:port.
func (s *Server) Addr() string { return s.lis.Addr().String() }

// DatabasePath is the database the server reports:
// projects/P/instances/I/databases/D.
func (s *Server) DatabasePath() string { return s.path }

// DSN returns a spannerfast DSN for the server (plain text, no
// credentials), with extra properties appended, each "key=value".
func (s *Server) DSN(props ...string) string {
	var b strings.Builder
	b.WriteString(s.Addr() + "/" + s.path + ";usePlainText=true")
	for _, p := range props {
		b.WriteString(";" + p)
	}
	return b.String()
}

// Logf sends the engine's (spannertest's) request log to logf, for example
// t.Logf. The log is discarded by default.
func (s *Server) Logf(logf func(format string, args ...any)) { s.engine.SetLogger(logf) }

// CreateTables applies DDL statements and waits until they are done.
func (s *Server) CreateTables(ctx context.Context, ddl ...string) error {
	op, err := s.admin.UpdateDatabaseDdl(ctx, &adminpb.UpdateDatabaseDdlRequest{Database: s.path, Statements: ddl})
	if err != nil {
		return fmt.Errorf("spannerfasttest: DDL: %w", err)
	}
	for !op.GetDone() {
		select {
		case <-ctx.Done():
			return fmt.Errorf("spannerfasttest: DDL: %w", ctx.Err())
		case <-time.After(5 * time.Millisecond):
		}
		if op, err = s.admin.GetOperation(ctx, &lropb.GetOperationRequest{Name: op.GetName()}); err != nil {
			return fmt.Errorf("spannerfasttest: DDL: %w", err)
		}
	}
	if e := op.GetError(); e != nil {
		return fmt.Errorf("spannerfasttest: DDL: %w", status.ErrorProto(e))
	}
	return nil
}

// Close stops the server and its engine.
func (s *Server) Close() {
	s.grpc.Stop()
	s.conn.Close()
	s.engine.Close()
}
