package spannerpg_test

import (
	"testing"

	"github.com/spannerfast/spannerfast/spannergorm/internal/dialecttest"
	spannerpg "github.com/spannerfast/spannerfast/spannergorm/postgresql"
)

// TestEmulatorDropInterleaved: DropTable of a table with an interleaved
// child not being dropped fails with a DropTableError naming it and drops
// nothing; the three tables, given parent first, go in one DDL batch:
// the referencing table and the child (after its index) before their
// parent, whose index goes just before it (dialecttest.DropTable). A
// foreign key of a table that is not dropped is dropped first instead
// (TestEmulatorDropTable).
func TestEmulatorDropInterleaved(t *testing.T) {
	t.Parallel()
	dialecttest.DropTable(t, openEmulator(t, spannerpg.SpannerConfig{}), true, []string{
		"START BATCH DDL",
		`DROP TABLE "contracts"`,
		`DROP INDEX "idx_releases_title"`,
		`DROP TABLE "releases"`,
		`DROP INDEX "idx_labels_name"`,
		`DROP TABLE "labels"`,
		"RUN BATCH",
	})
}
