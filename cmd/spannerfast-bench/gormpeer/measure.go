package main

import (
	"context"
	"fmt"
	"runtime"
	"syscall"
	"time"

	"github.com/spannerfast/spannerfast/cmd/spannerfast-bench/internal/gormwork"
)

// measurement is one arm's n operations of one kind in one round.
type measurement struct {
	Ops    int   `json:"ops"`
	CPUNs  int64 `json:"cpu_ns"`
	WallNs int64 `json:"wall_ns"`
	Allocs int64 `json:"allocs"`
	Bytes  int64 `json:"bytes"`
}

func (m measurement) cpuPerOp() float64    { return float64(m.CPUNs) / float64(m.Ops) }
func (m measurement) allocsPerOp() float64 { return float64(m.Allocs) / float64(m.Ops) }
func (m measurement) bytesPerOp() float64  { return float64(m.Bytes) / float64(m.Ops) }

// cpuTime is the process's user+system CPU time.
func cpuTime() (time.Duration, error) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, fmt.Errorf("getrusage: %w", err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), nil
}

// measure runs op n times with a after a forced collection and warmups
// unmeasured operations; *next numbers the operations of the run.
func measure(ctx context.Context, a *arm, op gormwork.Op, n, warmups int, next *int) (measurement, error) {
	do := func() error {
		i := *next
		*next++
		sum, err := op.Run(ctx, a.db, i)
		if err != nil {
			return err
		}
		if sum != op.Want {
			return fmt.Errorf("checksum %d, want %d: the rows read differ from the generator's", sum, op.Want)
		}
		return nil
	}
	runtime.GC()
	for range warmups {
		if err := do(); err != nil {
			return measurement{}, err
		}
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	cpu0, err := cpuTime()
	if err != nil {
		return measurement{}, err
	}
	start := time.Now()
	for range n {
		if err := do(); err != nil {
			return measurement{}, err
		}
	}
	wall := time.Since(start)
	cpu1, err := cpuTime()
	if err != nil {
		return measurement{}, err
	}
	runtime.ReadMemStats(&after)
	return measurement{Ops: n, CPUNs: int64(cpu1 - cpu0), WallNs: wall.Nanoseconds(),
		Allocs: int64(after.Mallocs - before.Mallocs), Bytes: int64(after.TotalAlloc - before.TotalAlloc)}, nil
}
