package e2e

import (
	"fmt"
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/spannerfast/spannerfast/internal/emulatortest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	// The emulator this binary started (if any) and the admin clients go
	// before the leak check.
	emulatortest.Stop()
	if code == 0 {
		if err := goleak.Find(
			// The official client (used only as a loader) keeps process-wide
			// background goroutines.
			goleak.IgnoreAnyFunction("go.opencensus.io/stats/view.(*worker).start"),
			goleak.IgnoreTopFunction("internal/poll.runtime_pollWait"),
		); err != nil {
			fmt.Fprintf(os.Stderr, "goleak: errors on successful test run: %v\n", err)
			code = 1
		}
	}
	os.Exit(code)
}
