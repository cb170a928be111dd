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

// TestTransactionsExample runs the example, as `go run
// ./examples/transactions` does, on the embedded server and on the emulator,
// and checks what each step left behind.
func TestTransactionsExample(t *testing.T) {
	emulatortest.OnEmbeddedAndEmulator(t, func(t *testing.T) {
		var buf bytes.Buffer
		if err := run(context.Background(), &buf); err != nil {
			t.Fatal(err)
		}
		got := buf.String()
		for _, want := range []string{
			"after the transfer:\n  1 alice      70\n  2 bob        80\n",
			"DML batch: 3 rows inserted in one request\n",
			"Apply committed at",
			// The read-only transaction sees the last commit: every balance
			// +1, Bob renamed, 6 applied, 5 deleted.
			"  1 alice      71\n  2 Bob        81\n  3 owner-3    31\n  4 owner-4    41\n  6 carol      76\n",
		} {
			if !strings.Contains(got, want) {
				t.Errorf("output lacks %q:\n%s", want, got)
			}
		}
	})
}
