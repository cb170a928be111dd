package stream

import (
	"io"
	"sync"
	"time"
)

// Reading the end of a call after a message marked last (drainAfterLast).
//
// A goroutine started per query for this costs more than the read itself:
// its start, the growth of its stack (gRPC's receive path needs more than a
// new goroutine's stack, so every such goroutine copies its stack at least
// once) and a timer for the time limit, about 3 µs and 3 allocations of a
// point query's 50 µs of client CPU. So each connection keeps one
// goroutine (drainer) that reads the ends of its calls one after another:
// its stack has grown once, its timer is reset instead of made, and a call
// is handed to it without an allocation. A connection runs one call at a
// time, and a call's status follows its last message at once, so the
// drainer is nearly always idle when the next end comes. One end may wait
// while the drainer reads another (jobs holds one); past that (the drainer
// waits on a slow server's status and another end already waits), an end
// is read by a goroutine of its own, as before, so at most one call waits
// behind another. A waiting end costs nothing but time: its rows are
// complete and its call holds no HTTP/2 stream once the status arrived.

// lastDrainLimit bounds the wait for the status behind a message marked
// last, against a server that never sends it. A variable for tests.
var lastDrainLimit = time.Minute

// drainJob is one call whose end is to be read.
type drainJob struct {
	src  Source
	call callControl
}

// drainer is a connection's goroutine that reads the ends of its calls
// (the zero value starts it on first use; stop ends it).
type drainer struct {
	mu      sync.Mutex
	started bool          // jobs, quit, limit and fired are set
	stopped bool          // stop was called: jobs takes no more
	jobs    chan drainJob // holds one job
	quit    chan struct{}

	// The time limit of the job under way: limit cancels call, then
	// signals fired, so that a limit that fired late cannot cancel the
	// next job's call.
	limit *time.Timer
	fired chan struct{}
	call  callControl // under mu
}

// submit has src, the attempt of call, read to its end: by the drainer
// unless one end already waits for it or the drainer stopped, else by a
// goroutine of its own. A job is sent only under mu and before stop, so
// the drainer reads every job it was sent.
func (d *drainer) submit(src Source, call callControl) {
	d.mu.Lock()
	sent := false
	if !d.stopped {
		if !d.started {
			d.start()
		}
		select {
		case d.jobs <- drainJob{src: src, call: call}:
			sent = true
		default:
		}
	}
	d.mu.Unlock()
	if !sent {
		go drainAttempt(src, call)
	}
}

// start starts the goroutine; mu is held.
func (d *drainer) start() {
	d.jobs = make(chan drainJob, 1)
	d.quit = make(chan struct{})
	d.fired = make(chan struct{}, 1)
	d.limit = time.AfterFunc(time.Hour, d.expire)
	d.limit.Stop()
	d.started = true
	go d.run()
}

// stop ends the goroutine once it has read the jobs it was sent; later
// ends are read by goroutines of their own.
func (d *drainer) stop() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.started && !d.stopped {
		close(d.quit)
	}
	d.stopped = true
}

func (d *drainer) run() {
	for {
		select {
		case j := <-d.jobs:
			d.drain(j)
		case <-d.quit:
			// A job sent before stop is read all the same.
			select {
			case j := <-d.jobs:
				d.drain(j)
			default:
			}
			return
		}
	}
}

// drain is drainAttempt with the drainer's timer.
func (d *drainer) drain(j drainJob) {
	d.mu.Lock()
	d.call = j.call
	d.mu.Unlock()
	d.limit.Reset(lastDrainLimit)
	err := readToEnd(j.src)
	inTime := d.limit.Stop()
	if !inTime {
		<-d.fired // expire has cancelled j.call
	}
	d.mu.Lock()
	d.call = nil
	d.mu.Unlock()
	if inTime && err == io.EOF {
		j.call.ended()
		return
	}
	j.call.cancel()
}

// expire is the time limit: it cancels the call being read.
func (d *drainer) expire() {
	d.mu.Lock()
	c := d.call
	d.mu.Unlock()
	if c != nil {
		c.cancel()
	}
	d.fired <- struct{}{}
}

// drainAttempt reads src to its end, then reports the call ended (its
// context may be reused) or, when the time limit or an error came first,
// cancels it: the end of one call, read by a goroutine of its own.
func drainAttempt(src Source, call callControl) {
	limit := time.AfterFunc(lastDrainLimit, call.cancel)
	err := readToEnd(src)
	if limit.Stop() && err == io.EOF {
		call.ended()
		return
	}
	call.cancel()
}

// readToEnd reads src until an error (io.EOF at the normal end), dropping
// whatever arrives.
func readToEnd(src Source) error {
	for {
		f, err := src.Recv()
		if err != nil {
			return err
		}
		f.Release(false)
	}
}
