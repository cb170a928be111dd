package main

import (
	"context"
	"testing"
)

// TestRawDecodeExample runs the example, as `go run ./examples/rawdecode`
// does; it fails if any mode misbehaves.
func TestRawDecodeExample(t *testing.T) {
	if err := run(context.Background()); err != nil {
		t.Fatal(err)
	}
}
