package driver

import (
	"github.com/spannerfast/spannerfast/internal/connstate"
	"github.com/spannerfast/spannerfast/internal/pgerror"
)

// PostgreSQL SQLSTATE and transaction state, go-sql-spanner's names (its
// ToPGSQLState, WithPGSQLState and connectionstate's TransactionState and
// InErrorTxBehavior). See docs/postgresql.md.

// PGError is an error of a PostgreSQL-dialect database with its SQLSTATE:
// every error the driver returns on such a database is one (the end of
// rows, database/sql's ErrBadConn and ErrSkip excepted). Reach it with
// errors.As:
//
//	var pgErr *driver.PGError
//	if errors.As(err, &pgErr) && pgErr.SQLState() == "23505" { ... }
//
// It wraps the error it was made of (errors.Is and errors.As see through
// it), keeps its gRPC status (status.Code, spanner.ErrCode) and its text,
// which starts with "[SQLSTATE xxxxx] " as go-sql-spanner's does.
type PGError = pgerror.Error

// ToPGSQLState returns err's PostgreSQL SQLSTATE ("" for nil): the one
// Spanner sent in its ErrorInfo, else go-sql-spanner's mapping of gRPC
// codes and messages (23505 unique violation, 23503 foreign-key violation,
// 42P01 undefined table, 42703 undefined column, 40001 abort, 25P02 in a
// failed transaction, ...), else XX000.
func ToPGSQLState(err error) string { return pgerror.SQLState(err) }

// WithPGSQLState returns err as a *PGError (nil stays nil, a *PGError
// stays as it is).
func WithPGSQLState(err error) error { return pgerror.Wrap(err) }

// TransactionState is where a connection stands: SpannerConn.TransactionState.
type TransactionState = connstate.TransactionState

// The transaction states, as PostgreSQL's ReadyForQuery reports them.
const (
	TransactionStateIdle        = connstate.TransactionStateIdle        // 'I': no transaction
	TransactionStateTransaction = connstate.TransactionStateTransaction // 'T': in a transaction
	TransactionStateFailed      = connstate.TransactionStateFailed      // 'E': a statement of the transaction failed
)

// InErrorTxBehavior is what a failed transaction does with the statements
// that follow: SpannerConn.SetInErrorTxBehavior.
type InErrorTxBehavior = connstate.InErrorTxBehavior

// The rules for a failed transaction.
const (
	// InErrorTxBehaviorDefault behaves as InErrorTxBehaviorAllowCommands.
	InErrorTxBehaviorDefault = connstate.InErrorTxBehaviorDefault
	// InErrorTxBehaviorEnforceInErrorState is PostgreSQL's rule: every
	// statement but COMMIT and ROLLBACK fails with FailedPrecondition
	// (SQLSTATE 25P02) until the transaction ends; COMMIT rolls it back
	// and succeeds.
	InErrorTxBehaviorEnforceInErrorState = connstate.InErrorTxBehaviorEnforceInErrorState
	// InErrorTxBehaviorAllowCommands (a connection's initial rule) runs
	// the statements that follow as if nothing had failed.
	InErrorTxBehaviorAllowCommands = connstate.InErrorTxBehaviorAllowCommands
)
