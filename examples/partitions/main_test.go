package main

import (
	"context"
	"os"
	"testing"

	"github.com/spannerfast/spannerfast/internal/emulatortest"
)

func TestMain(m *testing.M) { os.Exit(emulatortest.Main(m)) }

// TestPartitionsExample runs the example, as `go run ./examples/partitions`
// does, on the embedded server and on the emulator: each of the three ways
// must read all ten rows.
func TestPartitionsExample(t *testing.T) {
	emulatortest.OnEmbeddedAndEmulator(t, func(t *testing.T) {
		n, err := run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if n != 30 {
			t.Fatalf("read %d rows, want 30 (10 each way)", n)
		}
	})
}
