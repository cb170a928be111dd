//go:build !race

package e2e

// raceAllocs: see race_on_test.go.
const raceAllocs = 0
