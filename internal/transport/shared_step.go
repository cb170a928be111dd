package transport

import (
	"context"
	"sync"
)

// Shared start-up steps.
//
// A client does some things once for all its callers: the emulator's
// instance and database (EnsureEmulator), the multiplexed session
// (Session), the database's dialect (DialectConfig). The first caller
// starts such a step, and callers that come while it runs wait for it. A
// step never runs on one caller's context: a caller with a short deadline
// would end it for everyone (or hand its own DEADLINE_EXCEEDED to callers
// whose deadlines are far off, when gRPC reports the deadline before the
// context does). So a step runs on a context of its own, with the first
// caller's values (its span) but none of its cancellation or deadline, and
// every caller, the first included, waits for it only as long as its own
// context allows. The step's context ends when its own bound passes (the
// step sets it, e.g. connect_timeout), when the client closes, or when no
// caller waits for it any more; the next caller then starts it again. A
// failure is returned to the callers waiting for that run and not kept; a
// step keeps its success itself (it stores the session, the dialect).

// sharedStep is one shared step; the zero value is ready. T is what a run
// gives its callers.
type sharedStep[T any] struct {
	mu  sync.Mutex
	run *stepRun[T] // the run in progress, if any
}

// stepRun is one run of a step.
type stepRun[T any] struct {
	done     chan struct{} // closed when val and err are set
	val      T
	err      error
	waiters  int                // callers waiting (under sharedStep.mu)
	cancel   context.CancelFunc // ends the run's context
	progress *stepProgress
}

// stepProgress is what a run met so far that its callers should hear of
// when they stop waiting: its latest transient failure
// (RetryStoppedError.Last). A step that runs inside another one (the
// session inside the dialect question) reports to that one too.
type stepProgress struct {
	mu     sync.Mutex
	last   error
	parent *stepProgress
}

type progressKey struct{}

// noteStepFailure records err, a transient failure that a step running on
// ctx retries, for the callers of that step and of the steps around it.
func noteStepFailure(ctx context.Context, err error) {
	p, _ := ctx.Value(progressKey{}).(*stepProgress)
	for ; p != nil; p = p.parent {
		p.mu.Lock()
		p.last = err
		p.mu.Unlock()
	}
}

func (p *stepProgress) latest() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.last
}

// do returns the result of the step: of the run in progress, or of a new
// one that runs fn on a context of its own (see above), which also ends
// when life (the client's) does. The caller waits until the run ends or
// its own ctx ends; then it gets a *RetryStoppedError with ctx's error,
// what it waited for (what) and the run's latest transient failure.
func (s *sharedStep[T]) do(ctx, life context.Context, what string, fn func(context.Context) (T, error)) (T, error) {
	var zero T
	if err := ctx.Err(); err != nil {
		return zero, &RetryStoppedError{Context: err, Step: what}
	}
	s.mu.Lock()
	r := s.run
	if r == nil {
		r = s.start(ctx, life, fn)
	}
	r.waiters++
	s.mu.Unlock()
	select {
	case <-r.done:
		return r.val, r.err
	case <-ctx.Done():
	}
	s.mu.Lock()
	if r.waiters--; r.waiters == 0 {
		// Nobody waits for this run any more: it ends, and the next
		// caller starts another.
		r.cancel()
		if s.run == r {
			s.run = nil
		}
	}
	s.mu.Unlock()
	return zero, &RetryStoppedError{Context: ctx.Err(), Step: what, Last: r.progress.latest()}
}

// start begins a run of fn (s.mu held).
func (s *sharedStep[T]) start(ctx, life context.Context, fn func(context.Context) (T, error)) *stepRun[T] {
	parent, _ := ctx.Value(progressKey{}).(*stepProgress)
	r := &stepRun[T]{done: make(chan struct{}), progress: &stepProgress{parent: parent}}
	rctx, cancel := context.WithCancel(context.WithValue(context.WithoutCancel(ctx), progressKey{}, r.progress))
	if life == nil { // a Client not made by NewClient (tests)
		life = context.Background()
	}
	stop := context.AfterFunc(life, cancel)
	r.cancel = cancel
	s.run = r
	go func() {
		val, err := fn(rctx)
		stop()
		cancel()
		s.mu.Lock()
		r.val, r.err = val, err
		if s.run == r {
			s.run = nil
		}
		close(r.done)
		s.mu.Unlock()
	}()
	return r
}
