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

// TestPostgreSQLExample runs the example, as `go run ./examples/postgresql`
// does, twice: on the emulator SPANNER_EMULATOR_HOST names, and with the
// variable unset, where the example starts an emulator of its own. Each
// needs the installed emulator (skipped without one, failed under CI).
func TestPostgreSQLExample(t *testing.T) {
	t.Run("SPANNER_EMULATOR_HOST", func(t *testing.T) {
		t.Setenv(emulatortest.EmulatorHostEnv, emulatortest.Endpoint(t))
		checkOutput(t, "running on the Cloud Spanner emulator at ", false)
	})
	// An emulator given by SPANNER_EMULATOR_HOST is enough for CI: without
	// emulator_main installed there is none to start, and the second run
	// skips even under CI.
	external := os.Getenv(emulatortest.EmulatorHostEnv) != ""
	t.Run("own emulator", func(t *testing.T) {
		t.Setenv(emulatortest.EmulatorHostEnv, "")
		checkOutput(t, "running on a Cloud Spanner emulator started for this example at ", external)
	})
}

// checkOutput runs the example and checks what it printed. Without an
// installed emulator it skips, unless CI is set and mayLackEmulator is
// false.
func checkOutput(t *testing.T, first string, mayLackEmulator bool) {
	t.Helper()
	var buf bytes.Buffer
	err := run(context.Background(), &buf)
	if errors.Is(err, emulatortest.ErrNotInstalled) && (os.Getenv("CI") == "" || mayLackEmulator) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatalf("%v; output:\n%s", err, buf.String())
	}
	got := buf.String()
	if !strings.HasPrefix(got, first) {
		t.Errorf("output starts %q, want %q", got[:min(len(got), 80)], first)
	}
	for _, want := range []string{
		"database dialect: POSTGRESQL\n",
		"created table accounts\n",
		// RETURNING gives back what was stored: numeric (NaN included) and
		// jsonb (NULL included) as written.
		`inserted 1 alice  balance 100.50 details {"tags":["early"],"tier":"gold"}` + "\n",
		`inserted 2 bob    balance 20.25 details {"tier":"silver"}` + "\n",
		"inserted 3 carol  balance NaN details null\n",
		"transferred 10 from alice to bob in one transaction\n",
		// The query sees the committed transaction; carol has no tier.
		"accounts with a tier:\n  1 alice     90.50 gold\n  2 bob       30.25 silver\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
}
