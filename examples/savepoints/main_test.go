package main

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/spannerfast/spannerfast/internal/emulatortest"
)

func TestMain(m *testing.M) { os.Exit(emulatortest.Main(m)) }

// TestSavepointsExample runs the example, as `go run ./examples/savepoints`
// does, on the embedded server and on the emulator, and checks what each
// step left behind.
func TestSavepointsExample(t *testing.T) {
	emulatortest.OnEmbeddedAndEmulator(t, func(t *testing.T) {
		var buf bytes.Buffer
		if err := run(context.Background(), &buf); err != nil {
			t.Fatal(err)
		}
		got := buf.String()
		for _, want := range []string{
			"after the statements: 1 alice; 3 carol; 4 dave;\n",
			"after the Go API: 1 Alice; 3 carol; 4 dave;\n",
			"inner transaction: erin changed her mind\n",
			"outer transaction committed\n",
			"at the end: 1 Alice; 3 carol; 4 dave; 5 erin; 6 frank;\n",
		} {
			if !strings.Contains(got, want) {
				t.Errorf("output lacks %q:\n%s", want, got)
			}
		}
	})
}
