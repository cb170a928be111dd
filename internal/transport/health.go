package transport

import (
	"sync"
	"sync/atomic"

	"google.golang.org/grpc"
	"google.golang.org/grpc/connectivity"
)

// Channel health. A channel whose connection keeps failing
// (TRANSIENT_FAILURE: its last attempt to connect failed and it is waiting
// to try again) is passed over by Channel and Spanner until it connects
// again, so that the calls go to the channels that work instead of failing
// and being retried. A goroutine per channel follows its state; the pick
// itself reads one atomic counter while every channel is well, and looks
// at the channels' flags only while one is failing. When every channel is
// failing, the round-robin choice stands (the call fails or waits as the
// channel decides, and is retried as ever).

// channelHealth holds what the watchers learned.
type channelHealth struct {
	failing atomic.Int32  // how many channels are in TRANSIENT_FAILURE
	down    []atomic.Bool // per channel: in TRANSIENT_FAILURE
	wg      sync.WaitGroup
}

// watch follows the state of channel i until the client's life ends.
func (c *Client) watch(i int, cc *grpc.ClientConn) {
	defer c.health.wg.Done()
	for {
		s := cc.GetState()
		c.setDown(i, s == connectivity.TransientFailure)
		if s == connectivity.Shutdown || !cc.WaitForStateChange(c.life, s) {
			c.setDown(i, false)
			return
		}
	}
}

func (c *Client) setDown(i int, down bool) {
	if c.health.down[i].Swap(down) == down {
		return
	}
	if down {
		c.health.failing.Add(1)
	} else {
		c.health.failing.Add(-1)
	}
}

// healthyFrom returns the first channel from i on (round the ring) that is
// not failing, or i when all are.
func (c *Client) healthyFrom(i int) int {
	n := len(c.conns)
	for k := range n {
		j := (i + k) % n
		if !c.health.down[j].Load() {
			return j
		}
	}
	return i
}

// channelOption is a dial option that differs per channel (tests: a
// dialer that fails for one channel). NewClient applies f(i) to channel i.
type channelOption struct {
	grpc.EmptyDialOption
	f func(channel int) []grpc.DialOption
}
