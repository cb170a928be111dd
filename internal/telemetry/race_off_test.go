//go:build !race

package telemetry_test

// raceEnabled: see race_on_test.go.
const raceEnabled = false
