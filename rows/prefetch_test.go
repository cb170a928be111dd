package rows

import (
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/spannerfast/spannerfast/internal/wire"
)

// chanStream is a Stream fed by a test through a channel, so Recv can block
// like a network read.
type chanStream struct {
	frames   chan *wire.Frame
	canceled chan struct{}
	once     sync.Once
	closed   atomic.Int32
	err      error
}

func newChanStream() *chanStream {
	return &chanStream{frames: make(chan *wire.Frame), canceled: make(chan struct{})}
}

func (s *chanStream) Recv() (*wire.Frame, error) {
	select {
	case f, ok := <-s.frames:
		if !ok {
			if s.err != nil {
				return nil, s.err
			}
			return nil, io.EOF
		}
		return f, nil
	case <-s.canceled:
		return nil, errors.New("canceled")
	}
}

func (s *chanStream) Close() error { s.closed.Add(1); s.Cancel(); return nil }
func (s *chanStream) Cancel()      { s.once.Do(func() { close(s.canceled) }) }

func TestPrefetchDeliversInOrder(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	for _, depth := range []int{1, 2, 3, 8} {
		t.Run(fmt.Sprint(depth), func(t *testing.T) {
			src := newChanStream()
			const n = 500
			go func() {
				rng := rand.New(rand.NewPCG(uint64(depth), 1))
				for i := range n {
					if rng.IntN(10) == 0 {
						time.Sleep(time.Duration(rng.IntN(50)) * time.Microsecond)
					}
					src.frames <- wire.NewFrame([]byte(fmt.Sprint(i)))
				}
				close(src.frames)
			}()
			p := startPrefetch(src, depth)
			rng := rand.New(rand.NewPCG(uint64(depth), 2))
			for i := range n {
				if rng.IntN(10) == 0 {
					time.Sleep(time.Duration(rng.IntN(50)) * time.Microsecond)
				}
				f, err := p.Recv()
				if err != nil {
					t.Fatalf("frame %d: %v", i, err)
				}
				if got := string(f.Data); got != fmt.Sprint(i) {
					t.Fatalf("frame %d: got %q", i, got)
				}
			}
			if _, err := p.Recv(); err != io.EOF {
				t.Fatalf("after last frame: %v, want io.EOF", err)
			}
			p.Close()
			if src.closed.Load() != 1 {
				t.Fatalf("source closed %d times, want 1", src.closed.Load())
			}
		})
	}
}

func TestPrefetchBoundedAndClosable(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	src := newChanStream()
	p := startPrefetch(src, 4)
	sent := 0
	// The producer takes at most depth frames plus the one it holds.
	for sent < 10 {
		select {
		case src.frames <- wire.NewFrame([]byte("x")):
			sent++
			continue
		case <-time.After(50 * time.Millisecond):
		}
		break
	}
	if sent > 5 {
		t.Fatalf("producer accepted %d frames with depth 4", sent)
	}
	// Close while the producer is blocked on a full ring or in Recv.
	p.Close()
	p.Close()
	if src.closed.Load() != 1 {
		t.Fatalf("source closed %d times, want 1", src.closed.Load())
	}
}

func TestPrefetchPassesError(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	src := newChanStream()
	src.err = errors.New("boom")
	go func() {
		src.frames <- wire.NewFrame([]byte("a"))
		close(src.frames)
	}()
	p := startPrefetch(src, 2)
	defer p.Close()
	if f, err := p.Recv(); err != nil || string(f.Data) != "a" {
		t.Fatalf("first: %v %v", f, err)
	}
	if _, err := p.Recv(); err == nil || err.Error() != "boom" {
		t.Fatalf("second: %v, want boom", err)
	}
}
