//go:build race

package e2e

// raceAllocs is what the race detector adds to allocation counts: it makes
// sync.Pool drop pooled objects at random (see TestPointQueryAllocations).
const raceAllocs = 8
