package main

import (
	"context"
	"os"
	"testing"

	"github.com/spannerfast/spannerfast/internal/emulatortest"
)

func TestMain(m *testing.M) { os.Exit(emulatortest.Main(m)) }

// TestRawDecodeExample runs the example, as `go run ./examples/rawdecode`
// does, on the embedded server and on the emulator; it fails if any mode
// misbehaves.
func TestRawDecodeExample(t *testing.T) {
	emulatortest.OnEmbeddedAndEmulator(t, func(t *testing.T) {
		if err := run(context.Background()); err != nil {
			t.Fatal(err)
		}
	})
}
