package spannerfasttest

import (
	"context"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// The engine holds the committed data plus the uncommitted DML of at most
// one read-write transaction: the writer. A read-write transaction becomes
// the writer at its first query, read, DML statement or commit and stays
// it until it commits or rolls back; every other write (another
// read-write transaction, a single-use commit, BatchWrite, a partitioned
// DML statement) waits for it. This is the emulator's rule (one read-write
// transaction per database at a time), except that the emulator aborts a
// second transaction at once where this server first waits a little, as a
// lock on Spanner would.
const (
	// lockWait is how long a write waits for the writer before it is
	// aborted.
	lockWait = 2 * time.Second
	// idleAbort is how long a writer may do nothing before a waiting write
	// aborts it (Spanner aborts transactions idle for ten seconds).
	idleAbort = 10 * time.Second
)

// acquire makes tx the writer, waiting for the current one.
func (s *service) acquire(ctx context.Context, tx *txn) error {
	timer := time.NewTimer(s.lockWait)
	defer timer.Stop()
	for {
		s.mu.Lock()
		if err := tx.usable(); err != nil {
			s.mu.Unlock()
			return err
		}
		tx.lastUsed = time.Now()
		if s.writer == nil || s.writer == tx {
			s.writer = tx
			s.mu.Unlock()
			return nil
		}
		holder, released := s.writer, s.released
		s.mu.Unlock()
		select {
		case <-released:
		case <-ctx.Done():
			return status.FromContextError(ctx.Err()).Err()
		case <-timer.C:
			if s.woundIdle(ctx, holder) {
				continue
			}
			s.mu.Lock()
			tx.state = aborted
			s.mu.Unlock()
			return status.Errorf(codes.Aborted,
				"spannerfasttest: transaction %s aborted: read-write transaction %s is still active, and this server (like the emulator) runs one read-write transaction at a time",
				tx.id, holder.id)
		}
	}
}

// enter makes tx the writer and locks the engine for it. The returned
// function unlocks the engine; tx stays the writer.
func (s *service) enter(ctx context.Context, tx *txn) (func(), error) {
	if err := s.acquire(ctx, tx); err != nil {
		return nil, err
	}
	s.engineMu.Lock()
	s.mu.Lock()
	err := tx.usable()
	if err == nil && s.writer != tx {
		err = status.Errorf(codes.Aborted, "spannerfasttest: transaction %s was aborted", tx.id)
	}
	s.mu.Unlock()
	if err != nil {
		s.engineMu.Unlock()
		return nil, err
	}
	return func() {
		s.mu.Lock()
		tx.lastUsed = time.Now()
		s.mu.Unlock()
		s.engineMu.Unlock()
	}, nil
}

// writeAlone runs fn as a write of its own (a single-use commit, a
// BatchWrite group, a partitioned DML statement): it waits for the writer
// like any other write.
func (s *service) writeAlone(ctx context.Context, fn func() error) error {
	tx := &txn{id: "single-use", kind: readWrite}
	leave, err := s.enter(ctx, tx)
	if err != nil {
		return err
	}
	defer s.release(tx)
	defer leave()
	return fn()
}

// release ends tx's turn as the writer, if it has one.
func (s *service) release(tx *txn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.writer == tx {
		s.writer = nil
		close(s.released)
		s.released = make(chan struct{})
	}
}

// end finishes a transaction that will not commit (rollback, a deleted
// session, an inline begin the client never learned about, a failed
// commit): its DML is undone and its turn as the writer ends.
func (s *service) end(ctx context.Context, tx *txn, state txState) error {
	s.engineMu.Lock()
	defer s.engineMu.Unlock()
	s.mu.Lock()
	if tx.state == active {
		tx.state = state
	}
	writer := s.writer == tx
	s.mu.Unlock()
	if !writer {
		return nil
	}
	defer s.release(tx)
	return s.undo(ctx, tx)
}

// woundIdle aborts the writer when it has been idle too long, so that a
// transaction the client abandoned does not block every later write.
func (s *service) woundIdle(ctx context.Context, holder *txn) bool {
	s.engineMu.Lock()
	defer s.engineMu.Unlock()
	s.mu.Lock()
	idle := s.writer == holder && time.Since(holder.lastUsed) >= s.idleAbort
	if idle {
		holder.state = aborted
	}
	s.mu.Unlock()
	if !idle {
		return false
	}
	defer s.release(holder)
	// A failed undo is reported to no one; the next reads would show it.
	_ = s.undo(ctx, holder)
	return true
}

// usable says whether a transaction may run another request. Call with
// s.mu held.
func (tx *txn) usable() error {
	switch tx.state {
	case committed:
		return status.Errorf(codes.FailedPrecondition, "spannerfasttest: transaction %q has already been committed", tx.id)
	case rolledBack:
		return status.Errorf(codes.FailedPrecondition, "spannerfasttest: transaction %q has already been rolled back", tx.id)
	case aborted:
		return status.Errorf(codes.Aborted, "spannerfasttest: transaction %q was aborted", tx.id)
	}
	return tx.failed
}

// poison makes every later request of a read-write transaction fail as
// its DML statement did, as the emulator does when a statement fails while
// it runs (a duplicate key, a NOT NULL column left NULL); a statement
// refused before it runs (an unknown column, a wrong type:
// InvalidArgument) leaves the transaction usable.
func (s *service) poison(tx *txn, err error) {
	switch status.Code(err) {
	case codes.AlreadyExists, codes.FailedPrecondition, codes.OutOfRange:
	default:
		return
	}
	if tx.kind != readWrite {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if tx.failed == nil {
		tx.failed = err
	}
}
