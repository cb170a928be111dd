package conn

import (
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	// opencensus (pulled in by cloud.google.com/go/spanner) starts a worker
	// in its init that never ends.
	goleak.VerifyTestMain(m, goleak.IgnoreTopFunction("go.opencensus.io/stats/view.(*worker).start"))
}
