package spannergorm_test

import (
	"testing"

	"github.com/spannerfast/spannerfast/spannergorm"
	"github.com/spannerfast/spannerfast/spannergorm/internal/dialecttest"
)

// TestEmulatorHostileNames: an alias, a table and columns of ORDER BY,
// WHERE and SET named by an attacker add no SQL (issue 28). The first
// name ends a quoted identifier that escapes only the backtick (x\\` is
// an escaped backslash, then the closing backtick), after which the
// DELETE ran and committed with Find reporting no error; the second and
// third close it outright and with a backslash of their own
// (dialecttest.HostileNames).
func TestEmulatorHostileNames(t *testing.T) {
	t.Parallel()
	dialecttest.HostileNames(t, openEmulator(t, spannergorm.Config{}), []string{
		"x\\` FROM victims; DELETE FROM victims WHERE TRUE; --",
		"x` FROM victims; DELETE FROM victims WHERE TRUE; --",
		"name\\",
	})
}
