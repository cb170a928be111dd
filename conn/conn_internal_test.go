package conn

import (
	"database/sql/driver"
	"errors"
	"testing"

	"github.com/spannerfast/spannerfast/internal/transport"
)

// TestUnknownStateIsDiscarded: a connection whose state is unknown is
// neither valid nor resettable, so database/sql drops it.
func TestUnknownStateIsDiscarded(t *testing.T) {
	c := &Conn{client: &transport.Client{}}
	c.stateUnknown = true
	if c.IsValid() {
		t.Fatal("IsValid true for a connection in an unknown state")
	}
	if err := c.ResetSession(t.Context()); !errors.Is(err, driver.ErrBadConn) {
		t.Fatalf("ResetSession = %v, want driver.ErrBadConn", err)
	}
}
