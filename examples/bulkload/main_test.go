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

// TestBulkLoadExample runs the example, as `go run ./examples/bulkload`
// does, on the embedded server and on the emulator: the first load, the
// failed one with its committed ranges, and the resumption that leaves
// every row in the table once.
func TestBulkLoadExample(t *testing.T) {
	emulatortest.OnEmbeddedAndEmulator(t, func(t *testing.T) {
		var buf bytes.Buffer
		if err := run(context.Background(), &buf); err != nil {
			t.Fatal(err)
		}
		got := buf.String()
		for _, want := range []string{
			"loaded 50000 rows\n",
			"the second load failed with AlreadyExists: rows committed [[0, 20000)], rows from 20000 on not committed\n",
			"resumed: loaded the other 30000 rows\n",
			"the table holds 100000 rows, ids summing to 4999950000\n",
		} {
			if !strings.Contains(got, want) {
				t.Errorf("output lacks %q:\n%s", want, got)
			}
		}
	})
}
