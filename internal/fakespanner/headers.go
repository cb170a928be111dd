package fakespanner

import "google.golang.org/grpc/metadata"

// SetResponseHeader makes every call from now on answer with the response
// headers md (nil: none), as Spanner's front end adds server-timing
// ("gfet4t7; dur=12") to its answers.
func (s *Server) SetResponseHeader(md metadata.MD) {
	if md != nil {
		md = md.Copy()
	}
	s.mu.Lock()
	s.respHeader = md
	s.mu.Unlock()
}

func (s *Server) responseHeader() metadata.MD {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.respHeader
}
