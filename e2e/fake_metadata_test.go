package e2e

import (
	"context"
	"net/url"
	"testing"

	"google.golang.org/grpc/metadata"

	"github.com/spannerfast/spannerfast/internal/fakespanner"
)

// TestQueryMetadata: a streaming query carries the session's routing
// headers, whether the caller's context has outgoing metadata of its own
// (kept, and merged) or not (the headers then come from a context made once
// per session).
func TestQueryMetadata(t *testing.T) {
	s := fakespanner.Start(t)
	s.AddResult(pointQuery, pointResult())
	db := openFake(t, s)
	for _, ctx := range []context.Context{
		context.Background(),
		metadata.AppendToOutgoingContext(context.Background(), "x-caller", "1"),
	} {
		s.ResetRequests()
		if _, _, err := readCanon(ctx, db, pointQuery); err != nil {
			t.Fatal(err)
		}
		reqs := s.RequestsFor("ExecuteStreamingSql")
		if len(reqs) != 1 {
			t.Fatalf("%d streaming requests, want 1", len(reqs))
		}
		h := reqs[0].Header
		if got := h.Get("google-cloud-resource-prefix"); len(got) != 1 || got[0] != fakeDB {
			t.Errorf("google-cloud-resource-prefix %q", got)
		}
		if got, want := h.Get("x-goog-request-params"), "session="+url.QueryEscape(reqs[0].ExecuteSQL().GetSession()); len(got) != 1 || got[0] != want {
			t.Errorf("x-goog-request-params %q, want %q", got, want)
		}
		_, callerMD := metadata.FromOutgoingContext(ctx)
		if got := h.Get("x-caller"); callerMD != (len(got) == 1 && got[0] == "1") {
			t.Errorf("caller metadata %v sent as %q", callerMD, got)
		}
	}
}
