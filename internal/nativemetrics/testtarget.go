package nativemetrics

import (
	"sync/atomic"
	"time"
)

// TestTarget points the export of the clients made while it is in use at
// an in-process fake of the Monitoring API, in plain text and without
// credentials, for the tests of the export through database/sql (whose
// fake Spanner server speaks plain text, for which the export is
// otherwise off).
type TestTarget struct {
	Addr     string        // the fake's host:port
	Interval time.Duration // between exports; 0: the official 60 seconds
	Location string        // the location label; "" detects it
}

var testTarget atomic.Pointer[TestTarget]

// Cleaner is what UseTestTarget needs of a *testing.T.
type Cleaner interface {
	Helper()
	Cleanup(func())
}

// UseTestTarget uses target until t ends. Like t.Setenv, it is for a
// test that does not run in parallel with others.
func UseTestTarget(t Cleaner, target TestTarget) {
	t.Helper()
	testTarget.Store(&target)
	t.Cleanup(func() { testTarget.Store(nil) })
}
