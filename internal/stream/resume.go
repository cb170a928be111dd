package stream

import (
	"bytes"
	"context"
	"io"
	"sync/atomic"

	"github.com/spannerfast/spannerfast/internal/wire"
)

// Source is one gRPC attempt of a streaming query.
type Source interface {
	Recv() (*wire.Frame, error)
	Close() error
}

// opener starts an attempt that continues after resumeToken (nil: from the
// beginning). An interface rather than a func so that the streaming query
// (Query) can be its own opener without a closure per query.
type opener interface {
	open(ctx context.Context, resumeToken []byte) (Source, error)
}

// OpenFunc starts an attempt that continues after resumeToken (nil: from
// the beginning): the opener of a Resumable.
type OpenFunc func(ctx context.Context, resumeToken []byte) (Source, error)

func (f OpenFunc) open(ctx context.Context, resumeToken []byte) (Source, error) {
	return f(ctx, resumeToken)
}

// Backoff is the retry policy of one stream and its state (the wait, which
// grows while attempts fail and starts over after progress). The engine
// decides when to resume; which failures are transient and how long to wait
// are the caller's (conn hands it internal/transport's rules).
type Backoff interface {
	// Transient reports whether err, the failure of an attempt, may be
	// retried by resuming the stream.
	Transient(err error) bool
	// Pause decides what follows the failure err of an attempt: nil after
	// waiting when err is transient (the stream makes another attempt,
	// which continues after resumeToken: nil, from the beginning), else
	// the error that ends the stream. A resumption is reported here
	// (conn reports it to the connector's telemetry).
	Pause(ctx context.Context, err error, resumeToken []byte) error
	// Final returns the error that ends the stream on err, which will not
	// be retried (a failure, not the normal end).
	Final(ctx context.Context, err error) error
	// Reset makes the next wait start over: the stream made progress.
	Reset()
}

// resumableStream makes a streaming query survive transient failures.
//
// A frame is handed out only once a resume token covers it (the token comes
// on that frame or a later one) or the stream has ended; uncovered frames
// wait in pending. On a retryable error the pending frames are dropped and
// the query restarts from the last token, so no row is lost or repeated.
// When more than maxBuffered bytes wait without a token the stream gives up
// resumability and hands frames out as they come; the next resume token
// makes it resumable again from that token, as the official client's
// decoder returns to its retryable state. A failure while it is not
// resumable ends the stream.
//
// Attempts are opened lazily: the first Recv opens the first one. Opening
// (and a failure before the first response, which is the same to the
// caller) is retried like a failure mid-stream; the wait between attempts
// grows until an attempt makes progress (a new resume token).
type resumableStream struct {
	ctx         context.Context
	call        callControl
	open        opener
	src         Source // nil: the next Recv opens an attempt
	maxBuffered int64

	pending      []*wire.Frame
	pendingBytes int64
	ready        []*wire.Frame // covered frames not yet returned
	pendingBuf   [2]*wire.Frame
	readyBuf     [2]*wire.Frame // short results need no slice allocations
	readyHead    int
	token        []byte // nil until the first resume token
	tokenBuf     [64]byte
	resumable    bool
	done         bool  // src ended (EOF or error)
	finalErr     error // returned after ready drains; io.EOF at normal end
	backoff      Backoff
	closed       bool
	// detached: the call ended with a message marked last and a goroutine
	// reads its end (drainAfterLast), which owns call from then on.
	detached atomic.Bool
}

// callControl ends the call a resumableStream reads, whose attempts all
// run under one context. An interface rather than a CancelFunc so that a
// streaming query can hand its context back for reuse once the call ended
// normally (Query, streamctx.go).
type callControl interface {
	// cancel aborts the call, from any goroutine; calling it again, or
	// after ended, does nothing.
	cancel()
	// ended says the call was read to its end: no attempt is running and
	// none will start.
	ended()
}

// cancelOnly is the callControl of a context that is never reused.
type cancelOnly context.CancelFunc

func (f cancelOnly) cancel() { f() }
func (f cancelOnly) ended()  { f() }

// Resumable is a resumable stream over attempts that any function opens
// (a Query opens ExecuteStreamingSql calls itself). Its methods are
// resumableStream's: Recv, Cancel and Close.
type Resumable struct {
	resumableStream
}

// NewResumable returns a stream whose attempts open runs with ctx; cancel
// cancels ctx and so every attempt; retry decides on failures. Nothing is
// sent before the first Recv.
func NewResumable(ctx context.Context, cancel context.CancelFunc, open OpenFunc, maxBuffered int64, retry Backoff) *Resumable {
	s := new(Resumable)
	s.init(ctx, cancelOnly(cancel), open, maxBuffered, retry)
	return s
}

// init is NewResumable for a stream embedded in a bigger object.
func (s *resumableStream) init(ctx context.Context, call callControl, open opener, maxBuffered int64, retry Backoff) {
	*s = resumableStream{ctx: ctx, call: call, open: open, maxBuffered: maxBuffered, resumable: true, backoff: retry}
	s.pending, s.ready = s.pendingBuf[:0], s.readyBuf[:0]
}

// Cancel aborts the query from any goroutine. A call that already ended
// with a message marked last is left to end normally.
func (s *resumableStream) Cancel() {
	if !s.detached.Load() {
		s.call.cancel()
	}
}

// Recv returns the next covered frame.
func (s *resumableStream) Recv() (*wire.Frame, error) {
	for {
		if s.readyHead < len(s.ready) {
			f := s.ready[s.readyHead]
			s.ready[s.readyHead] = nil
			s.readyHead++
			return f, nil
		}
		s.ready, s.readyHead = s.ready[:0], 0
		if s.done {
			return nil, s.finalErr
		}
		if err := s.fill(); err != nil {
			return nil, err
		}
	}
}

// fill reads from the current attempt, opening one if needed, until some
// frames are covered, the stream ends, or an error that cannot be retried.
func (s *resumableStream) fill() error {
	if s.src == nil {
		s.connect()
		return nil
	}
	f, err := s.src.Recv()
	if err == nil {
		return s.accept(f)
	}
	// io.EOF, the normal end, is checked first: Transient would build a
	// status for it on every query.
	if err != io.EOF && s.resumable {
		if s.backoff.Transient(err) {
			s.restart(err)
			return nil
		}
	}
	// End of stream, or a failure that will not be retried: what was read is
	// final either way, so hand it out before reporting the end.
	if err != io.EOF {
		err = s.backoff.Final(s.ctx, err)
	}
	s.end(err)
	if err == io.EOF {
		s.call.ended()
	}
	s.flushPending()
	return nil
}

func (s *resumableStream) accept(f *wire.Frame) error {
	if err := f.Scan(); err != nil {
		f.Release(false)
		s.done, s.finalErr = true, err
		s.call.cancel() // the attempt is still running
		s.flushPending()
		return nil
	}
	s.pending = append(s.pending, f)
	s.pendingBytes += int64(len(f.Data))
	if f.Msg.Last {
		// Nothing follows: the rows are complete now, without waiting
		// for the call's status.
		s.flushPending()
		s.done, s.finalErr = true, io.EOF
		s.drainAfterLast()
		return nil
	}
	switch {
	case len(f.Msg.ResumeToken) > 0 && !bytes.Equal(f.Msg.ResumeToken, s.token):
		// Progress: everything so far is covered, so a failure from now on
		// resumes here (again, if the stream had given that up) and waits
		// as after a first failure. A repeated token covers nothing new
		// (resuming at it would repeat what followed it), so it counts as
		// no token, as in the official client.
		if s.token == nil {
			s.token = s.tokenBuf[:0] // tokens this short need no allocation
		}
		s.token = append(s.token[:0], f.Msg.ResumeToken...)
		s.resumable = true
		s.backoff.Reset()
		s.flushPending()
	case s.pendingBytes > s.maxBuffered:
		s.resumable = false
		s.flushPending()
	case !s.resumable:
		s.flushPending()
	}
	return nil
}

// drainAfterLast hands the current attempt, whose server marked the
// message just read as the last, to a goroutine that reads the end of the
// call (the status the server sends right behind it) and then releases the
// call's context: the connection's drainer when the stream is a query of a
// connection, else a goroutine of its own (drain.go). The rows need not
// wait for that status, and the call ends normally on the server instead
// of as cancelled, which server-side monitoring would count; the official
// client ends such calls the same way. Whatever arrives after the last
// message is dropped.
func (s *resumableStream) drainAfterLast() {
	src := s.src
	if src == nil {
		return
	}
	s.src = nil
	s.detached.Store(true)
	if q, ok := s.call.(*Query); ok && q.conn != nil {
		q.conn.drains.submit(src, s.call)
		return
	}
	go drainAttempt(src, s.call)
}

func (s *resumableStream) flushPending() {
	s.ready = append(s.ready, s.pending...)
	clear(s.pending)
	s.pending, s.pendingBytes = s.pending[:0], 0
}

// restart drops uncovered frames after the transient failure err of the
// current attempt and opens the next one after the last token, waiting
// first as the server or the backoff says.
func (s *resumableStream) restart(err error) {
	s.src.Close()
	s.src = nil
	for _, f := range s.pending {
		f.Release(false)
	}
	clear(s.pending)
	s.pending, s.pendingBytes = s.pending[:0], 0
	if err := s.backoff.Pause(s.ctx, err, s.token); err != nil {
		s.end(err)
		return
	}
	s.connect()
}

// connect opens an attempt after the last token, retrying transient
// failures to open, until one starts or the stream ends.
func (s *resumableStream) connect() {
	for {
		src, err := s.open.open(s.ctx, s.token)
		if err == nil {
			s.src = src
			return
		}
		if err := s.backoff.Pause(s.ctx, err, s.token); err != nil {
			s.end(err)
			return
		}
	}
}

// end records the stream's final error (io.EOF at a normal end) and ends
// the current attempt.
func (s *resumableStream) end(err error) {
	s.done, s.finalErr = true, err
	if s.src != nil {
		s.src.Close()
	}
}

// Close ends the current attempt and releases buffered frames.
func (s *resumableStream) Close() error {
	if s.closed {
		return nil
	}
	s.closed = true
	s.Cancel()
	if s.src != nil {
		s.src.Close()
	}
	for _, f := range s.pending {
		f.Release(false)
	}
	for _, f := range s.ready[s.readyHead:] {
		f.Release(false)
	}
	s.pending, s.ready = nil, nil
	s.done = true
	if s.finalErr == nil {
		s.finalErr = io.EOF
	}
	return nil
}
