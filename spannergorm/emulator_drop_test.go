package spannergorm_test

import (
	"testing"

	"github.com/spannerfast/spannerfast/spannergorm"
	"github.com/spannerfast/spannerfast/spannergorm/internal/dialecttest"
)

// TestEmulatorDropTable: DropTable of a table with an interleaved child
// or a foreign key of a table not being dropped fails with a
// DropTableError naming it and drops nothing; the three tables, given
// parent first, go in one DDL batch: the referencing table and the child
// (after its index) before their parent, whose index goes just before it
// (dialecttest.DropTable).
func TestEmulatorDropTable(t *testing.T) {
	t.Parallel()
	dialecttest.DropTable(t, openEmulator(t, spannergorm.Config{}), false, dropTableDDL)
}

// TestE2EDropTable: the same on the embedded server, whose
// INFORMATION_SCHEMA answers the catalog queries DropTable sends.
func TestE2EDropTable(t *testing.T) {
	dialecttest.DropTable(t, openEmbedded(t), false, dropTableDDL)
}

var dropTableDDL = []string{
	"START BATCH DDL",
	"DROP TABLE `contracts`",
	"DROP INDEX `idx_releases_title`",
	"DROP TABLE `releases`",
	"DROP INDEX `idx_labels_name`",
	"DROP TABLE `labels`",
	"RUN BATCH",
}
