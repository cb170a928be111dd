package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/spannerfast/spannerfast/internal/emulatortest"
)

func TestMain(m *testing.M) { os.Exit(emulatortest.Main(m)) }

// TestStructsExample runs the example, as `go run ./examples/structs`
// does, on the emulator SPANNER_EMULATOR_HOST names (the test binary's
// own emulator); skipped without an installed emulator unless CI is set.
func TestStructsExample(t *testing.T) {
	endpoint := emulatortest.Endpoint(t)
	t.Setenv(emulatortest.EmulatorHostEnv, endpoint)
	var buf bytes.Buffer
	err := run(context.Background(), &buf)
	if errors.Is(err, emulatortest.ErrNotInstalled) && os.Getenv("CI") == "" {
		t.Skip(err)
	}
	if err != nil {
		t.Fatalf("%v; output:\n%s", err, buf.String())
	}
	got := buf.String()
	for _, want := range []string{
		"running on the Cloud Spanner emulator at ",
		"Alice: Intro (95s, 4.5) Outro (180s, unrated)\n",
		"Bob: Solo (240s, 3)\n",
		"by hand: Intro\n",
		`mismatch: sql: Scan error on column index 1, name "tracks": spannerfast: element 0: STRUCT field "length" into Go field main.lengthAsText.Length: `,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
}
