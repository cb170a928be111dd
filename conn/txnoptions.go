package conn

import (
	"database/sql"
	"reflect"
	"time"

	"cloud.google.com/go/spanner"
	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/spannerfast/spannerfast/dsn"
)

// TxnOptions are transaction settings given in code rather than through
// connection properties: go-sql-spanner's spanner.TransactionOptions,
// ReadWriteTransactionOptions and ReadOnlyTransactionOptions. They are not
// a second implementation: while the transaction they belong to is set up,
// each one set stands in for the connection property of the same meaning
// (overlay), so the code that reads the properties applies them.
type TxnOptions struct {
	Tag                string                     // transaction_tag
	CommitPriority     dsn.Priority               // commit_priority ("" keeps the connection's)
	ReturnCommitStats  bool                       // return_commit_stats (true only)
	MaxCommitDelay     *time.Duration             // max_commit_delay
	ReadLockMode       dsn.ReadLockMode           // read_lock_mode ("" keeps)
	Isolation          sql.IsolationLevel         // isolation_level (LevelDefault keeps)
	ExcludeFromStreams bool                       // exclude_txn_from_change_streams (true only)
	BeginOption        dsn.BeginTransactionOption // begin_transaction_option ("" keeps)
	DisableRetryAborts bool                       // retry_aborts_internally=false
	ReadOnlyBound      *dsn.Staleness             // read_only_staleness of a read-only transaction
}

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

// apply lays the options that are set over cfg.
func (o *TxnOptions) apply(cfg *dsn.Config) {
	if o.Tag != "" {
		cfg.TransactionTag = o.Tag
	}
	if o.CommitPriority != "" {
		cfg.CommitPriority = o.CommitPriority
	}
	cfg.ReturnCommitStats = cfg.ReturnCommitStats || o.ReturnCommitStats
	if o.MaxCommitDelay != nil {
		cfg.MaxCommitDelay = *o.MaxCommitDelay
	}
	if o.ReadLockMode != "" {
		cfg.ReadLockMode = o.ReadLockMode
	}
	if o.Isolation != sql.LevelDefault {
		cfg.IsolationLevel = o.Isolation
	}
	cfg.ExcludeTxnFromChangeStreams = cfg.ExcludeTxnFromChangeStreams || o.ExcludeFromStreams
	if o.BeginOption != "" {
		cfg.BeginTransactionOption = o.BeginOption
	}
	if o.DisableRetryAborts {
		cfg.RetryAbortsInternally = false
	}
	if o.ReadOnlyBound != nil {
		cfg.ReadOnlyStaleness = *o.ReadOnlyBound
	}
}

// SetNextTxnOptions sets options for the next transaction begun on the
// connection (go-sql-spanner's BeginReadWriteTransaction and
// BeginReadOnlyTransaction set them through sql.Conn.Raw just before
// BeginTx). BeginTx takes them whether or not the begin succeeds, and
// ResetSession forgets them.
func (c *Conn) SetNextTxnOptions(o TxnOptions) error {
	if o.ReadOnlyBound != nil && o.ReadOnlyBound.SingleUseOnly() {
		return status.Errorf(codes.InvalidArgument,
			"spannerfast: timestamp bound %s is for single queries only; a read-only transaction needs STRONG, EXACT_STALENESS or READ_TIMESTAMP", *o.ReadOnlyBound)
	}
	c.nextTxn = &o
	return nil
}

// overlay runs set on the connection's settings for the time one statement
// or one BeginTx runs; the returned function undoes it. A setting that the
// statement itself changed meanwhile keeps its new value: a one-shot tag it
// used stays used, a SET it ran stays set.
func (c *Conn) overlay(set func(*dsn.Config)) (restore func()) {
	saved := c.cfg
	set(&c.cfg)
	applied := c.cfg
	return func() {
		cur := reflect.ValueOf(&c.cfg).Elem()
		was, over := reflect.ValueOf(saved), reflect.ValueOf(applied)
		for i := 0; i < cur.NumField(); i++ {
			o := over.Field(i).Interface()
			if reflect.DeepEqual(was.Field(i).Interface(), o) || !reflect.DeepEqual(cur.Field(i).Interface(), o) {
				continue // not overlaid, or changed since
			}
			cur.Field(i).Set(was.Field(i))
		}
	}
}

// takeNextTxn returns the options SetNextTxnOptions left and forgets them.
func (c *Conn) takeNextTxn() *TxnOptions {
	o := c.nextTxn
	c.nextTxn = nil
	return o
}
