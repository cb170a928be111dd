package conn

import (
	"database/sql"
	"strconv"
	"time"

	"cloud.google.com/go/spanner"
	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/spannerfast/spannerfast/dsn"
	"github.com/spannerfast/spannerfast/internal/stmtopts"
)

// go-sql-spanner's SpannerConn getters and setters of connection
// properties. Each setter is the SET statement of its property: it goes
// through setAssigned with the value in SET's text form, so the two can
// never differ (validation, SET LOCAL in a transaction, transactional
// connection state, the open transaction). The getters read the same
// settings SHOW VARIABLE reads.

// setTyped runs SET name = text.
func (c *Conn) setTyped(name, text string) error { return c.setAssigned(name, text) }

// AutoBatchDml is auto_batch_dml.
func (c *Conn) AutoBatchDml() bool { return c.props().AutoBatchDML }

// SetAutoBatchDml is SET auto_batch_dml.
func (c *Conn) SetAutoBatchDml(on bool) error {
	return c.setTyped("auto_batch_dml", strconv.FormatBool(on))
}

// AutoBatchDmlUpdateCount is auto_batch_dml_update_count.
func (c *Conn) AutoBatchDmlUpdateCount() int64 { return c.props().AutoBatchDMLUpdateCount }

// SetAutoBatchDmlUpdateCount is SET auto_batch_dml_update_count.
func (c *Conn) SetAutoBatchDmlUpdateCount(n int64) error {
	return c.setTyped("auto_batch_dml_update_count", strconv.FormatInt(n, 10))
}

// AutoBatchDmlUpdateCountVerification is
// auto_batch_dml_update_count_verification.
func (c *Conn) AutoBatchDmlUpdateCountVerification() bool {
	return c.props().AutoBatchDMLUpdateCountVerification
}

// SetAutoBatchDmlUpdateCountVerification is SET
// auto_batch_dml_update_count_verification.
func (c *Conn) SetAutoBatchDmlUpdateCountVerification(on bool) error {
	return c.setTyped("auto_batch_dml_update_count_verification", strconv.FormatBool(on))
}

// RetryAbortsInternally is retry_aborts_internally.
func (c *Conn) RetryAbortsInternally() bool { return c.props().RetryAbortsInternally }

// SetRetryAbortsInternally is SET retry_aborts_internally.
func (c *Conn) SetRetryAbortsInternally(on bool) error {
	return c.setTyped("retry_aborts_internally", strconv.FormatBool(on))
}

// AutocommitDMLMode is autocommit_dml_mode, in go-sql-spanner's numbering.
func (c *Conn) AutocommitDMLMode() AutocommitDMLMode {
	if c.props().AutocommitDMLMode == dsn.AutocommitPartitionedNonAtomic {
		return PartitionedNonAtomic
	}
	return Transactional
}

// SetAutocommitDMLMode is SET autocommit_dml_mode (Unspecified:
// TRANSACTIONAL, what an unset mode means).
func (c *Conn) SetAutocommitDMLMode(m AutocommitDMLMode) error {
	switch m {
	case Unspecified, Transactional:
		return c.setTyped("autocommit_dml_mode", string(dsn.AutocommitTransactional))
	case PartitionedNonAtomic:
		return c.setTyped("autocommit_dml_mode", string(dsn.AutocommitPartitionedNonAtomic))
	}
	return status.Errorf(codes.InvalidArgument, "spannerfast: AutocommitDMLMode %d is not a known mode", m)
}

// ReadOnlyStaleness is read_only_staleness.
func (c *Conn) ReadOnlyStaleness() spanner.TimestampBound {
	return stmtopts.TimestampBoundOf(c.props().ReadOnlyStaleness)
}

// SetReadOnlyStaleness is SET read_only_staleness.
func (c *Conn) SetReadOnlyStaleness(tb spanner.TimestampBound) error {
	s, err := stmtopts.StalenessOf(tb)
	if err != nil {
		return err
	}
	return c.setTyped("read_only_staleness", s.String())
}

// DirectedReadOptions is directed_read (nil when unset or not readable).
func (c *Conn) DirectedReadOptions() *spannerpb.DirectedReadOptions {
	o, _ := c.directedRead()
	return o
}

// SetDirectedReadOptions is SET directed_read; nil clears it.
func (c *Conn) SetDirectedReadOptions(o *spannerpb.DirectedReadOptions) error {
	if o == nil {
		return c.setTyped("directed_read", "")
	}
	b, err := protojson.Marshal(o)
	if err != nil {
		return status.Errorf(codes.InvalidArgument, "spannerfast: DirectedReadOptions: %v", err)
	}
	return c.setTyped("directed_read", string(b))
}

// IsolationLevel is isolation_level.
func (c *Conn) IsolationLevel() sql.IsolationLevel { return c.props().IsolationLevel }

// SetIsolationLevel is SET isolation_level.
func (c *Conn) SetIsolationLevel(level sql.IsolationLevel) error {
	name := dsn.IsolationLevelName(level)
	if name == "" {
		return status.Errorf(codes.InvalidArgument, "spannerfast: isolation level %v is not supported by Spanner (want Default, Serializable, Repeatable Read or Snapshot)", level)
	}
	return c.setTyped("isolation_level", name)
}

// ReadLockMode is read_lock_mode.
func (c *Conn) ReadLockMode() spannerpb.TransactionOptions_ReadWrite_ReadLockMode {
	return c.props().ReadLockMode.Proto()
}

// SetReadLockMode is SET read_lock_mode.
func (c *Conn) SetReadLockMode(m spannerpb.TransactionOptions_ReadWrite_ReadLockMode) error {
	switch m {
	case spannerpb.TransactionOptions_ReadWrite_READ_LOCK_MODE_UNSPECIFIED:
		return c.setTyped("read_lock_mode", string(dsn.ReadLockModeUnspecified))
	case spannerpb.TransactionOptions_ReadWrite_PESSIMISTIC:
		return c.setTyped("read_lock_mode", string(dsn.ReadLockModePessimistic))
	case spannerpb.TransactionOptions_ReadWrite_OPTIMISTIC:
		return c.setTyped("read_lock_mode", string(dsn.ReadLockModeOptimistic))
	}
	return status.Errorf(codes.InvalidArgument, "spannerfast: read lock mode %d is not a known mode", m)
}

// TransactionTag is transaction_tag.
func (c *Conn) TransactionTag() string { return c.props().TransactionTag }

// SetTransactionTag is SET transaction_tag.
func (c *Conn) SetTransactionTag(tag string) error { return c.setTyped("transaction_tag", tag) }

// MaxCommitDelay is max_commit_delay (0 when unset).
func (c *Conn) MaxCommitDelay() time.Duration { return c.props().MaxCommitDelay }

// SetMaxCommitDelay is SET max_commit_delay.
func (c *Conn) SetMaxCommitDelay(d time.Duration) error {
	return c.setTyped("max_commit_delay", d.String())
}

// ExcludeTxnFromChangeStreams is exclude_txn_from_change_streams.
func (c *Conn) ExcludeTxnFromChangeStreams() bool { return c.props().ExcludeTxnFromChangeStreams }

// SetExcludeTxnFromChangeStreams is SET exclude_txn_from_change_streams.
func (c *Conn) SetExcludeTxnFromChangeStreams(on bool) error {
	return c.setTyped("exclude_txn_from_change_streams", strconv.FormatBool(on))
}

// DecodeToNativeArrays is decode_to_native_arrays.
func (c *Conn) DecodeToNativeArrays() bool { return c.props().DecodeToNativeArrays }

// SetDecodeToNativeArrays is SET decode_to_native_arrays.
func (c *Conn) SetDecodeToNativeArrays(on bool) error {
	return c.setTyped("decode_to_native_arrays", strconv.FormatBool(on))
}

// ReadOnlyTransactionTimestamp is SHOW VARIABLE read_timestamp: the read
// timestamp of the last read-only transaction or query, FailedPrecondition
// when there is none.
func (c *Conn) ReadOnlyTransactionTimestamp() (time.Time, error) {
	ts := c.state.LastReadTimestamp()
	if ts.IsZero() {
		return time.Time{}, failedPrecondition("no read-only transaction or query has returned a read timestamp on this connection")
	}
	return ts, nil
}
