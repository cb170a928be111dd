package txn

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Savepoints. Spanner has none: they are emulated with the replay log, as
// the JDBC driver and PGAdapter emulate them. A savepoint marks how far the
// log and the buffered mutations went when it was set. Rolling back to it
// rolls the Spanner transaction back, drops the log's statements and the
// mutations after the mark, begins a new transaction and replays the
// statements before the mark, comparing their results as the replay after
// an abort does: a difference means that the data they read changed, and
// the transaction fails with ErrAbortedDueToConcurrentModification.
//
// Names are kept in a stack: a newer savepoint with the name of an older
// one hides it (as in PostgreSQL) until it is released or rolled back
// over; RELEASE removes the savepoint and every later one, ROLLBACK TO
// removes the later ones and keeps the savepoint itself.

// SavepointOp is a savepoint command.
type SavepointOp uint8

const (
	SavepointCreate     SavepointOp = iota + 1 // SAVEPOINT name
	SavepointRollbackTo                        // ROLLBACK TO [SAVEPOINT] name
	SavepointRelease                           // RELEASE [SAVEPOINT] name
)

// SavepointSupport is what savepoints may do (the property savepoint_support,
// with the same values as the JDBC driver's).
type SavepointSupport string

const (
	// SavepointsEnabled: ROLLBACK TO rolls back and replays.
	SavepointsEnabled SavepointSupport = "ENABLED"
	// SavepointsFailAfterRollback: savepoints may be set and released;
	// ROLLBACK TO rolls the read-write transaction back without a replay,
	// and every later statement of the transaction fails (only ROLLBACK
	// ends it). For frameworks that set savepoints they seldom roll back to.
	SavepointsFailAfterRollback SavepointSupport = "FAIL_AFTER_ROLLBACK"
	// SavepointsDisabled: SAVEPOINT fails.
	SavepointsDisabled SavepointSupport = "DISABLED"
)

// SavepointRules are the connection's rules for a savepoint command.
type SavepointRules struct {
	Support SavepointSupport
	// IgnoreCase compares names ignoring case (GoogleSQL, whose
	// identifiers are case-insensitive); otherwise they compare exactly
	// (PostgreSQL: its parser folded plain names to lower case already).
	IgnoreCase bool
	// Before, if set, runs first; an error stops the command (the
	// connection sends its automatic DML batch, whose statements come
	// before the savepoint command).
	Before func(context.Context) error
	// RolledBack, if set, runs after a ROLLBACK TO that succeeded (the
	// connection's failed-transaction state, internal/connstate).
	RolledBack func()
}

// savepoint is a mark in the transaction.
type savepoint struct {
	name      string
	log       int                 // len(t.log) when it was set
	mutations int                 // len(t.mutations) when it was set
	key       *spannerpb.Mutation // t.mutationKey when it was set
}

var (
	// ErrUnknownSavepoint is matched (errors.Is) by the error of ROLLBACK TO
	// or RELEASE of a name no savepoint of the transaction has (code
	// InvalidArgument).
	ErrUnknownSavepoint = errors.New("savepoint does not exist")

	// ErrSavepointNeedsTransaction is the error of a savepoint command
	// outside a transaction, as in PostgreSQL (code FailedPrecondition).
	ErrSavepointNeedsTransaction = status.Error(codes.FailedPrecondition,
		"spannerfast: savepoints need an open transaction (BEGIN or BeginTx first)")

	// ErrSavepointInBatch is the error of a savepoint command while a batch
	// (START BATCH) is active: its statements have not run yet, so no
	// savepoint can mark where they are (code FailedPrecondition).
	ErrSavepointInBatch = status.Error(codes.FailedPrecondition,
		"spannerfast: savepoints cannot be used while a batch is active: RUN BATCH or ABORT BATCH first")

	errSavepointsDisabled = status.Error(codes.FailedPrecondition,
		"spannerfast: savepoints are disabled (savepoint_support=DISABLED)")
	errRollbackToNeedsReplay = status.Error(codes.FailedPrecondition,
		"spannerfast: ROLLBACK TO a savepoint of a read-write transaction needs retry_aborts_internally (the replay log); the transaction is unchanged")
)

// unknownSavepointError is ErrUnknownSavepoint for one name.
type unknownSavepointError struct{ name string }

func (e *unknownSavepointError) Error() string {
	return fmt.Sprintf("spannerfast: savepoint %q does not exist", e.name)
}
func (e *unknownSavepointError) Is(target error) bool { return target == ErrUnknownSavepoint }
func (e *unknownSavepointError) GRPCStatus() *status.Status {
	return status.New(codes.InvalidArgument, e.Error())
}

// failedAfterRollbackError ends a transaction rolled back to a savepoint
// under SavepointsFailAfterRollback.
type failedAfterRollbackError struct{ name string }

func (e *failedAfterRollbackError) Error() string {
	return fmt.Sprintf("spannerfast: the transaction was rolled back to savepoint %q with savepoint_support=FAIL_AFTER_ROLLBACK: it can only be rolled back", e.name)
}
func (e *failedAfterRollbackError) GRPCStatus() *status.Status {
	return status.New(codes.FailedPrecondition, e.Error())
}

// RunSavepoint runs a savepoint command in the transaction: the one code
// path of the SQL statements and of the connection's Go API.
func (t *Txn) RunSavepoint(ctx context.Context, op SavepointOp, name string, r SavepointRules) error {
	if r.Before != nil {
		if err := r.Before(ctx); err != nil {
			return err
		}
	}
	if op == SavepointCreate {
		if r.Support == SavepointsDisabled {
			return errSavepointsDisabled
		}
		if t.failed != nil {
			return t.failed
		}
		t.savepoints = append(t.savepoints, savepoint{name: name, log: len(t.log), mutations: len(t.mutations), key: t.mutationKey})
		return nil
	}
	i := len(t.savepoints) - 1
	for i >= 0 && !(t.savepoints[i].name == name || r.IgnoreCase && strings.EqualFold(t.savepoints[i].name, name)) {
		i--
	}
	if i < 0 {
		return &unknownSavepointError{name: name}
	}
	if op == SavepointRelease {
		t.savepoints = t.savepoints[:i]
		return nil
	}
	err := t.rollbackTo(ctx, i, r)
	if err == nil && r.RolledBack != nil {
		r.RolledBack()
	}
	return err
}

// rollbackTo rolls the transaction back to its savepoint i.
func (t *Txn) rollbackTo(ctx context.Context, i int, r SavepointRules) error {
	if t.failed != nil {
		return t.failed
	}
	if t.readOnly {
		// Reads undo nothing, and the transaction reads at one timestamp:
		// there is nothing to roll back.
		t.savepoints = t.savepoints[:i+1]
		return nil
	}
	sp := t.savepoints[i]
	if r.Support != SavepointsFailAfterRollback && !t.Options.RetryAborts {
		return errRollbackToNeedsReplay
	}
	t.savepoints = t.savepoints[:i+1]
	if t.Options.RetryAborts && len(t.log) == sp.log && len(t.mutations) == sp.mutations {
		return nil // nothing ran or was buffered since: nothing to undo
	}
	if err := t.Rollback(ctx); err != nil {
		return err // the transaction is as it was: ROLLBACK TO may run again
	}
	if r.Support == SavepointsFailAfterRollback {
		t.id = nil
		t.failed = &failedAfterRollbackError{name: sp.name}
		return nil // the statements that follow fail, as in the JDBC driver
	}
	return t.replayTo(ctx, sp)
}

// replayTo makes the transaction what it was at sp, in a new Spanner
// transaction: the log and the mutations are cut at the mark and the log
// is replayed, as after an abort (begun with BeginTransaction, started
// over when the replay itself is aborted). A replay that does not complete
// ends the transaction: every later statement and the commit return its
// error.
func (t *Txn) replayTo(ctx context.Context, sp savepoint) error {
	clear(t.log[sp.log:])
	t.log = t.log[:sp.log]
	clear(t.mutations[sp.mutations:])
	t.mutations, t.mutationKey = t.mutations[:sp.mutations], sp.key
	t.id, t.precommit, t.beginFailed = nil, nil, false
	if len(t.log) == 0 {
		return nil // the next statement begins the new transaction
	}
	// Begun first, as the replay after an abort begins, so that a failure
	// to begin is reported as itself, not as a replayed statement's.
	err := t.begin(ctx, nil)
	if err == nil {
		err = t.replayReported(ctx, 1)
	}
	if IsAborted(err) && !errors.Is(err, ErrAbortedDueToConcurrentModification) {
		err = t.replayAfter(ctx, err)
	}
	if err != nil {
		// The new transaction lacks some of the statements before the
		// savepoint: it must not commit.
		t.failed = err
	}
	return err
}

// Savepoints is the Go API of savepoints. The connection embeds it, so its
// methods are the connection's (reached through sql.Conn.Raw); each runs
// the connection's savepoint path, the one the SQL statements take. A name
// here is the savepoint's name itself, not an identifier: it is not
// unquoted or folded.
type Savepoints struct {
	run func(ctx context.Context, op SavepointOp, name string) error
}

// NewSavepoints returns the Go API that runs run.
func NewSavepoints(run func(ctx context.Context, op SavepointOp, name string) error) Savepoints {
	return Savepoints{run: run}
}

func (s Savepoints) do(ctx context.Context, op SavepointOp, name string) error {
	if s.run == nil {
		return ErrSavepointNeedsTransaction
	}
	return s.run(ctx, op, name)
}

// Savepoint sets a savepoint in the connection's transaction (SAVEPOINT).
func (s Savepoints) Savepoint(ctx context.Context, name string) error {
	return s.do(ctx, SavepointCreate, name)
}

// RollbackToSavepoint undoes what the transaction did after the savepoint
// and keeps the savepoint (ROLLBACK TO SAVEPOINT).
func (s Savepoints) RollbackToSavepoint(ctx context.Context, name string) error {
	return s.do(ctx, SavepointRollbackTo, name)
}

// ReleaseSavepoint removes the savepoint and those set after it, keeping
// what the transaction did (RELEASE SAVEPOINT).
func (s Savepoints) ReleaseSavepoint(ctx context.Context, name string) error {
	return s.do(ctx, SavepointRelease, name)
}
