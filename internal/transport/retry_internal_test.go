package transport

import (
	"math/rand/v2"
	"testing"
	"time"
)

// ceilings are the first backoff ceilings: 20 ms, x1.3 each.
func ceilings(n int) []time.Duration {
	out := []time.Duration{backoffInitial}
	for len(out) < n {
		out = append(out, time.Duration(float64(out[len(out)-1])*backoffMultiplier))
	}
	return out
}

func TestBackoffJitterBounds(t *testing.T) {
	// The largest draw gives the ceiling itself, the smallest 1ns.
	high := Backoff{Rand: func(n int64) int64 { return n - 1 }}
	low := Backoff{Rand: func(int64) int64 { return 0 }}
	for i, c := range ceilings(8) {
		if d := high.Delay(0); d != c {
			t.Fatalf("attempt %d: largest delay %v, want the ceiling %v", i, d, c)
		}
		if d := low.Delay(0); d != 1 {
			t.Fatalf("attempt %d: smallest delay %v, want 1ns", i, d)
		}
	}
	// With a real random source every delay is in (0, ceiling] and they
	// are not all the same.
	rng := rand.New(rand.NewPCG(1, 2))
	seen := map[time.Duration]bool{}
	for range 200 {
		b := Backoff{Rand: rng.Int64N}
		for i, c := range ceilings(5) {
			d := b.Delay(0)
			if d <= 0 || d > c {
				t.Fatalf("attempt %d: delay %v outside (0, %v]", i, d, c)
			}
			if i == 0 {
				seen[d] = true
			}
		}
	}
	if len(seen) < 100 {
		t.Fatalf("only %d distinct first delays in 200 draws: no jitter", len(seen))
	}
}

func TestBackoffCapServerDelayAndReset(t *testing.T) {
	b := Backoff{Rand: func(n int64) int64 { return n - 1 }}
	var last time.Duration
	for range 100 {
		last = b.Delay(0)
	}
	if last != backoffMax {
		t.Fatalf("delay after 100 attempts %v, want the cap %v", last, backoffMax)
	}
	// A server delay is used as it is, and the ceiling still advances.
	b.Reset()
	if d := b.Delay(3 * time.Second); d != 3*time.Second {
		t.Fatalf("server delay: %v, want 3s", d)
	}
	if d := b.Delay(0); d != ceilings(2)[1] {
		t.Fatalf("after a server delay: %v, want %v", d, ceilings(2)[1])
	}
	b.Reset()
	if d := b.Delay(0); d != backoffInitial {
		t.Fatalf("after reset: %v, want %v", d, backoffInitial)
	}
}
