package rows_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package if any test leaves a goroutine behind (a
// prefetch reader, a database/sql opener). Goroutines started by package
// initialisation (opencensus's view worker, pulled in by the spanner
// client) are ignored.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.IgnoreCurrent())
}
