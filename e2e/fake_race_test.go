//go:build race

package e2e

// raceEnabled reports whether the tests run under the race detector, which
// makes the heavy fake-server tests choose smaller sizes.
const raceEnabled = true
