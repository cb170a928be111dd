package stmtopts

import (
	"database/sql"

	"cloud.google.com/go/spanner"
	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/spannerfast/spannerfast/dsn"
	"github.com/spannerfast/spannerfast/internal/connstate"
	"github.com/spannerfast/spannerfast/internal/sqlparse"
)

// TxnOptions are transaction settings given in code rather than through
// connection properties (go-sql-spanner's spanner.TransactionOptions,
// ReadWriteTransactionOptions and ReadOnlyTransactionOptions); see
// connstate.TxnOptions.
type TxnOptions = connstate.TxnOptions

// TxnOptionsOf converts the official client's TransactionOptions. Options
// spannerfast cannot send are refused (InvalidArgument or Unimplemented,
// naming the field) rather than dropped.
func TxnOptionsOf(o spanner.TransactionOptions) (TxnOptions, error) {
	var t TxnOptions
	var err error
	t.Tag = o.TransactionTag
	if t.CommitPriority, err = priorityOf("CommitPriority", o.CommitPriority); err != nil {
		return t, err
	}
	t.ReturnCommitStats = o.CommitOptions.ReturnCommitStats
	if d := o.CommitOptions.MaxCommitDelay; d != nil {
		// Negative is refused here; the upper bound is Spanner's to judge at
		// commit, one rule with SET max_commit_delay (dsn).
		if *d < 0 {
			return t, status.Errorf(codes.InvalidArgument, "spannerfast: CommitOptions.MaxCommitDelay %v is negative", *d)
		}
		t.MaxCommitDelay = d
	}
	switch o.ReadLockMode {
	case spannerpb.TransactionOptions_ReadWrite_READ_LOCK_MODE_UNSPECIFIED:
	case spannerpb.TransactionOptions_ReadWrite_PESSIMISTIC:
		t.ReadLockMode = dsn.ReadLockModePessimistic
	case spannerpb.TransactionOptions_ReadWrite_OPTIMISTIC:
		t.ReadLockMode = dsn.ReadLockModeOptimistic
	default:
		return t, status.Errorf(codes.InvalidArgument, "spannerfast: TransactionOptions.ReadLockMode %v is not supported", o.ReadLockMode)
	}
	switch o.IsolationLevel {
	case spannerpb.TransactionOptions_ISOLATION_LEVEL_UNSPECIFIED:
	case spannerpb.TransactionOptions_SERIALIZABLE:
		t.Isolation = sql.LevelSerializable
	case spannerpb.TransactionOptions_REPEATABLE_READ:
		t.Isolation = sql.LevelRepeatableRead
	default:
		return t, status.Errorf(codes.InvalidArgument, "spannerfast: TransactionOptions.IsolationLevel %v is not supported", o.IsolationLevel)
	}
	t.ExcludeFromStreams = o.ExcludeTxnFromChangeStreams
	if t.BeginOption, err = beginOptionOf(o.BeginTransactionOption); err != nil {
		return t, err
	}
	if o.ClientContext != nil {
		return t, status.Error(codes.Unimplemented, "spannerfast: TransactionOptions.ClientContext is not supported yet")
	}
	return t, nil
}

// IsolationOf maps a database/sql isolation level to Spanner's, refusing
// the levels Spanner does not have.
func IsolationOf(l sql.IsolationLevel) (spannerpb.TransactionOptions_IsolationLevel, error) {
	switch l {
	case sql.LevelDefault:
		return spannerpb.TransactionOptions_ISOLATION_LEVEL_UNSPECIFIED, nil
	case sql.LevelSerializable:
		return spannerpb.TransactionOptions_SERIALIZABLE, nil
	case sql.LevelRepeatableRead, sql.LevelSnapshot:
		return spannerpb.TransactionOptions_REPEATABLE_READ, nil
	}
	return 0, status.Errorf(codes.InvalidArgument,
		"spannerfast: isolation level %v is not supported by Spanner (use Default, Serializable, Repeatable Read or Snapshot)", l)
}

// isolationLevels are the ISOLATION LEVEL options of BEGIN and SET
// TRANSACTION as database/sql names them.
var isolationLevels = [...]sql.IsolationLevel{
	sqlparse.IsolationDefault:        sql.LevelDefault,
	sqlparse.IsolationSerializable:   sql.LevelSerializable,
	sqlparse.IsolationRepeatableRead: sql.LevelRepeatableRead,
}

// IsolationLevelOf is the database/sql isolation level of a parsed
// ISOLATION LEVEL option.
func IsolationLevelOf(i sqlparse.Isolation) sql.IsolationLevel { return isolationLevels[i] }

// priorityOf maps a request priority onto rpc_priority / commit_priority
// values; field names the option for the error.
func priorityOf(field string, p spannerpb.RequestOptions_Priority) (dsn.Priority, error) {
	switch p {
	case spannerpb.RequestOptions_PRIORITY_UNSPECIFIED:
		return "", nil
	case spannerpb.RequestOptions_PRIORITY_LOW:
		return dsn.PriorityLow, nil
	case spannerpb.RequestOptions_PRIORITY_MEDIUM:
		return dsn.PriorityMedium, nil
	case spannerpb.RequestOptions_PRIORITY_HIGH:
		return dsn.PriorityHigh, nil
	}
	return "", status.Errorf(codes.InvalidArgument, "spannerfast: %s %v is not a known priority", field, p)
}

// beginOptionOf maps the official client's BeginTransactionOption.
func beginOptionOf(b spanner.BeginTransactionOption) (dsn.BeginTransactionOption, error) {
	switch b {
	case spanner.DefaultBeginTransaction:
		return "", nil
	case spanner.InlinedBeginTransaction:
		return dsn.BeginTransactionInline, nil
	case spanner.ExplicitBeginTransaction:
		return dsn.BeginTransactionExplicit, nil
	}
	return "", status.Errorf(codes.InvalidArgument, "spannerfast: BeginTransactionOption %v is not supported", b)
}
