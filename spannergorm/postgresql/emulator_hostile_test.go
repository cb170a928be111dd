package spannerpg_test

import (
	"testing"

	"github.com/spannerfast/spannerfast/spannergorm/internal/dialecttest"
	spannerpg "github.com/spannerfast/spannerfast/spannergorm/postgresql"
)

// TestEmulatorHostileNames: an alias, a table and columns of ORDER BY,
// WHERE and SET named by an attacker add no SQL (issue 28). GORM's
// PostgreSQL QuoteTo, which spannerpg used before, wrote the first name
// as "." followed by the rest unquoted, and the DELETE ran; the others
// close the identifier with a quote, and try GoogleSQL's backslash
// (dialecttest.HostileNames).
func TestEmulatorHostileNames(t *testing.T) {
	t.Parallel()
	dialecttest.HostileNames(t, openEmulator(t, spannerpg.SpannerConfig{}), []string{
		`". FROM victims; DELETE FROM victims WHERE TRUE; --`,
		`x" FROM victims; DELETE FROM victims WHERE TRUE; --`,
		"x\\` FROM victims; DELETE FROM victims WHERE TRUE; --",
	})
}
