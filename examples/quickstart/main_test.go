package main

import (
	"context"
	"os"
	"testing"

	"github.com/spannerfast/spannerfast/internal/emulatortest"
)

func TestMain(m *testing.M) { os.Exit(emulatortest.Main(m)) }

// TestQuickstart runs the quickstart as `go run ./examples/quickstart` does,
// on the embedded server and on the emulator.
func TestQuickstart(t *testing.T) {
	emulatortest.OnEmbeddedAndEmulator(t, func(t *testing.T) {
		if err := run(context.Background(), ""); err != nil {
			t.Fatal(err)
		}
	})
}
