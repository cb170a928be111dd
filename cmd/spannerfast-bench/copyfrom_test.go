//go:build !nospannerfast

package main

import (
	"testing"

	"github.com/spannerfast/spannerfast/cmd/spannerfast-bench/internal/benchserver"
	"github.com/spannerfast/spannerfast/internal/bulkload"
)

// TestCopyFromIndexQuery: the fake server answers the question CopyFrom
// asks for a table's index columns only if the texts are the same.
func TestCopyFromIndexQuery(t *testing.T) {
	if benchserver.IndexColumnsSQL != bulkload.IndexColumnsGoogleSQL {
		t.Fatalf("the bench server answers %q, CopyFrom asks %q", benchserver.IndexColumnsSQL, bulkload.IndexColumnsGoogleSQL)
	}
}
