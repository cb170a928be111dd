//go:build race

package telemetry_test

// raceEnabled: the race detector makes sync.Pool drop objects at random,
// so the SDK's allocation counts vary from run to run.
const raceEnabled = true
