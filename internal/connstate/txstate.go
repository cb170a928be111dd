package connstate

import (
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// TransactionState is where a connection stands with respect to
// transactions, as PostgreSQL's ReadyForQuery message reports it (and
// go-sql-spanner's connectionstate.TransactionState, with the same rune
// values).
type TransactionState rune

const (
	// TransactionStateIdle ('I'): no transaction is open.
	TransactionStateIdle TransactionState = 'I'
	// TransactionStateTransaction ('T'): a transaction is open and no
	// statement in it has failed.
	TransactionStateTransaction TransactionState = 'T'
	// TransactionStateFailed ('E'): a statement of the open transaction
	// failed.
	TransactionStateFailed TransactionState = 'E'
)

// InErrorTxBehavior is what a connection does with the statements of a
// transaction in which a statement failed (go-sql-spanner's
// connectionstate.InErrorTxBehavior, with the same values).
type InErrorTxBehavior int

const (
	// InErrorTxBehaviorDefault behaves as InErrorTxBehaviorAllowCommands.
	InErrorTxBehaviorDefault InErrorTxBehavior = iota
	// InErrorTxBehaviorEnforceInErrorState is PostgreSQL's rule: every
	// statement but COMMIT and ROLLBACK fails with FailedPrecondition
	// (SQLSTATE 25P02) until the transaction ends, and COMMIT rolls it
	// back.
	InErrorTxBehaviorEnforceInErrorState
	// InErrorTxBehaviorAllowCommands (a connection's initial setting) runs
	// the statements as if nothing had failed; Spanner decides.
	InErrorTxBehaviorAllowCommands
)

// TransactionState reports whether a transaction is open and whether a
// statement in it failed.
func (s *Store) TransactionState() TransactionState {
	switch {
	case !s.inTxn:
		return TransactionStateIdle
	case s.txFailed:
		return TransactionStateFailed
	}
	return TransactionStateTransaction
}

// InErrorTxBehavior returns the connection's rule for a failed transaction.
func (s *Store) InErrorTxBehavior() InErrorTxBehavior { return s.inErrorTx }

// SetInErrorTxBehavior sets the connection's rule for a failed
// transaction; it outlives ResetAll, as a setting of the driver
// connection rather than of its user. A value that is none of the
// constants is refused with InvalidArgument.
func (s *Store) SetInErrorTxBehavior(b InErrorTxBehavior) error {
	if b < InErrorTxBehaviorDefault || b > InErrorTxBehaviorAllowCommands {
		return status.Errorf(codes.InvalidArgument, "spannerfast: unknown InErrorTxBehavior %d", b)
	}
	s.inErrorTx = b
	return nil
}

// NoteStatementFailed records that a statement failed; in an open
// transaction the transaction is failed from now on.
func (s *Store) NoteStatementFailed() {
	if s.inTxn {
		s.txFailed = true
	}
}

// RolledBackToSavepoint records a successful ROLLBACK TO a savepoint.
// Under EnforceInErrorState it ends the failed state, as in PostgreSQL: no
// savepoint can be set once the transaction failed, so the statement that
// failed came after the savepoint and is undone with the rest. Under the
// other rules a savepoint may follow the failure, and the state stays.
func (s *Store) RolledBackToSavepoint() {
	if s.EnforcingFailed() {
		s.txFailed = false
	}
}

// EnforcingFailed reports whether the open transaction failed and the
// connection enforces PostgreSQL's rule for it: statements are refused
// (CheckRunnable) and COMMIT rolls back.
func (s *Store) EnforcingFailed() bool {
	return s.txFailed && s.inTxn && s.inErrorTx == InErrorTxBehaviorEnforceInErrorState
}

// errInFailedTransaction is the error of a statement refused in a failed
// transaction: PostgreSQL's message, whose SQLSTATE is 25P02
// (internal/pgerror).
var errInFailedTransaction = status.Error(codes.FailedPrecondition,
	"current transaction is failed, commands ignored until end of transaction block")

// CheckRunnable refuses a statement other than one that ends the
// transaction (endsTxn: COMMIT, ROLLBACK) while EnforcingFailed.
func (s *Store) CheckRunnable(endsTxn bool) error {
	if !endsTxn && s.EnforcingFailed() {
		return errInFailedTransaction
	}
	return nil
}
