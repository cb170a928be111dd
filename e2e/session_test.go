package e2e

import (
	"testing"

	"github.com/spannerfast/spannerfast/internal/fakespanner"
)

// TestLostSessionIsReplaced: when the server forgets the multiplexed session,
// the next query replaces it and succeeds instead of failing.
func TestLostSessionIsReplaced(t *testing.T) {
	srv := fakespanner.Start(t)
	db := openFake(t, srv)
	var one int64
	if err := db.QueryRow("SELECT 1").Scan(&one); err != nil || one != 1 {
		t.Fatalf("first query: %v, %d", err, one)
	}
	sessions := srv.Sessions()
	if len(sessions) != 1 {
		t.Fatalf("%d sessions, want 1", len(sessions))
	}
	if !srv.DropSession(sessions[0].Name) {
		t.Fatal("session not dropped")
	}
	if err := db.QueryRow("SELECT 1").Scan(&one); err != nil || one != 1 {
		t.Fatalf("query after the session was lost: %v, %d", err, one)
	}
	if n := len(srv.Sessions()); n != 1 {
		t.Fatalf("%d sessions after recovery, want 1", n)
	}
}
