package main

import (
	"context"
	"testing"
)

// TestPartitionsExample runs the example, as `go run ./examples/partitions`
// does: each of the three ways must read all ten rows.
func TestPartitionsExample(t *testing.T) {
	n, err := run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if n != 30 {
		t.Fatalf("read %d rows, want 30 (10 each way)", n)
	}
}
