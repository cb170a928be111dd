package fakemonitoring

import (
	"context"
	"net"
	"sync"
	"testing"

	"cloud.google.com/go/monitoring/apiv3/v2/monitoringpb"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/emptypb"
)

// Server is the fake, serving plain text on a local port.
type Server struct {
	monitoringpb.UnimplementedMetricServiceServer

	addr string
	mu   sync.Mutex
	reqs []*monitoringpb.CreateTimeSeriesRequest
	fail error // returned by CreateServiceTimeSeries when not nil
}

var _ monitoringpb.MetricServiceServer = (*Server)(nil)

// Start serves a fake until t ends.
func Start(t testing.TB) *Server {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{addr: lis.Addr().String()}
	gs := grpc.NewServer()
	monitoringpb.RegisterMetricServiceServer(gs, s)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = gs.Serve(lis)
	}()
	t.Cleanup(func() {
		gs.Stop()
		<-done
	})
	return s
}

// Addr is the fake's host:port.
func (s *Server) Addr() string { return s.addr }

// Fail makes every later CreateServiceTimeSeries fail with err (nil:
// succeed again).
func (s *Server) Fail(err error) {
	s.mu.Lock()
	s.fail = err
	s.mu.Unlock()
}

// CreateServiceTimeSeries keeps req.
func (s *Server) CreateServiceTimeSeries(ctx context.Context, req *monitoringpb.CreateTimeSeriesRequest) (*emptypb.Empty, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fail != nil {
		return nil, s.fail
	}
	s.reqs = append(s.reqs, proto.Clone(req).(*monitoringpb.CreateTimeSeriesRequest))
	return &emptypb.Empty{}, nil
}

// CreateTimeSeries is not what the export calls: refused, so that a test
// sees the mistake.
func (s *Server) CreateTimeSeries(context.Context, *monitoringpb.CreateTimeSeriesRequest) (*emptypb.Empty, error) {
	return nil, status.Error(codes.Unimplemented, "fakemonitoring: the built-in metrics go through CreateServiceTimeSeries")
}

// Requests returns the CreateServiceTimeSeries requests received so far.
func (s *Server) Requests() []*monitoringpb.CreateTimeSeriesRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*monitoringpb.CreateTimeSeriesRequest(nil), s.reqs...)
}

// TimeSeries returns the time series of every request received so far.
func (s *Server) TimeSeries() []*monitoringpb.TimeSeries {
	var out []*monitoringpb.TimeSeries
	for _, r := range s.Requests() {
		out = append(out, r.GetTimeSeries()...)
	}
	return out
}
