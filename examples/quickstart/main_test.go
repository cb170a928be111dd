package main

import (
	"context"
	"testing"
)

// TestQuickstart runs the quickstart on the embedded server, as
// `go run ./examples/quickstart` does.
func TestQuickstart(t *testing.T) {
	t.Setenv("SPANNER_EMULATOR_HOST", "")
	if err := run(context.Background(), ""); err != nil {
		t.Fatal(err)
	}
}
