package main

import (
	"context"
	"fmt"
	"runtime"
	"syscall"
	"time"

	"github.com/spannerfast/spannerfast/cmd/spannerfast-bench/internal/workload"
)

// cpuTime is the CPU time (user + system) of the whole process so far.
func cpuTime() (time.Duration, error) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, fmt.Errorf("getrusage: %w", err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), nil
}

// heapSampler records the peak heap while rows are read: every `every`
// rows it reads HeapInuse (live data plus garbage not yet collected), then
// forces a collection and reads HeapAlloc (what the reader really keeps).
type heapSampler struct {
	every     int
	n         int
	samples   int
	peakInuse uint64
	peakLive  uint64
	ms        runtime.MemStats
}

func newHeapSampler(rows int) *heapSampler {
	every := rows / 25
	if every < 1000 {
		every = 1000
	}
	return &heapSampler{every: every}
}

// tick counts one row and samples every h.every rows.
func (h *heapSampler) tick() {
	h.n++
	if h.n >= h.every {
		h.n = 0
		h.sample()
	}
}

// sample takes one measurement now.
func (h *heapSampler) sample() {
	runtime.ReadMemStats(&h.ms)
	h.peakInuse = max(h.peakInuse, h.ms.HeapInuse)
	runtime.GC()
	runtime.ReadMemStats(&h.ms)
	h.peakLive = max(h.peakLive, h.ms.HeapAlloc)
	h.samples++
}

// measurement is one run of one arm over one workload.
type measurement struct {
	CPU       time.Duration `json:"cpu_ns"`
	Wall      time.Duration `json:"wall_ns"`
	Mallocs   uint64        `json:"mallocs"`
	Bytes     uint64        `json:"alloc_bytes"`
	PeakHeap  uint64        `json:"peak_heap_bytes,omitempty"`
	PeakLive  uint64        `json:"peak_live_heap_bytes,omitempty"`
	HeapStart uint64        `json:"heap_start_bytes,omitempty"`
	Checksum  uint64        `json:"checksum"`
}

// measure runs a over w once and records the process CPU time, wall time
// and allocation deltas around it. Before, it collects garbage (so that no
// arm pays for another's) and then reads warm, the workload's small warm-up
// variant, unmeasured (so that pools emptied by that collection are filled
// again and the measurement sees the reader's steady state).
func measure(ctx context.Context, a arm, w, warm *workload.Workload) (measurement, error) {
	var hs *heapSampler
	if w.PeakHeap {
		hs = newHeapSampler(w.TotalRows())
	}
	var m0, m1 runtime.MemStats
	runtime.GC()
	if warm != nil {
		if _, err := runWorkload(ctx, a, warm, nil); err != nil {
			return measurement{}, fmt.Errorf("warm-up: %w", err)
		}
	}
	runtime.ReadMemStats(&m0)
	c0, err := cpuTime()
	if err != nil {
		return measurement{}, err
	}
	t0 := time.Now()
	sum, err := runWorkload(ctx, a, w, hs)
	wall := time.Since(t0)
	c1, cerr := cpuTime()
	runtime.ReadMemStats(&m1)
	if err != nil {
		return measurement{}, err
	}
	if cerr != nil {
		return measurement{}, cerr
	}
	m := measurement{
		CPU:      c1 - c0,
		Wall:     wall,
		Mallocs:  m1.Mallocs - m0.Mallocs,
		Bytes:    m1.TotalAlloc - m0.TotalAlloc,
		Checksum: sum,
	}
	if hs != nil {
		hs.sample() // the end of the stream counts too
		m.PeakHeap = max(hs.peakInuse, m1.HeapInuse)
		m.PeakLive = hs.peakLive
		m.HeapStart = m0.HeapInuse
	}
	return m, nil
}
