package spannergorm_test

import (
	"os"
	"testing"

	"github.com/spannerfast/spannerfast/internal/emulatortest"
)

// TestMain stops the emulator that the emulator tests of this package
// started.
func TestMain(m *testing.M) { os.Exit(emulatortest.Main(m)) }
