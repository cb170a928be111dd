package connstate

import (
	"database/sql"
	"reflect"
	"time"

	"github.com/spannerfast/spannerfast/dsn"
)

// TxnOptions are transaction settings given in code rather than through
// connection properties: go-sql-spanner's spanner.TransactionOptions,
// ReadWriteTransactionOptions and ReadOnlyTransactionOptions. They are not
// a second implementation: while the transaction they belong to is set up,
// each one set stands in for the connection property of the same meaning
// (Overlay with Apply), so the code that reads the properties applies them.
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

// Apply lays the options that are set over cfg.
func (o *TxnOptions) Apply(cfg *dsn.Config) {
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

// nextShots are the one-shot options of the next transaction.
type nextShots struct {
	txn   *TxnOptions    // SetNextTxn
	bound *dsn.Staleness // SetNextBatchBound
}

// SetNextTxn keeps options for the next transaction begun on the
// connection; TakeNextTxn takes them.
func (s *Store) SetNextTxn(o TxnOptions) { s.next.txn = &o }

// TakeNextTxn returns the options SetNextTxn left (nil: none) and forgets
// them.
func (s *Store) TakeNextTxn() *TxnOptions {
	o := s.next.txn
	s.next.txn = nil
	return o
}

// SetNextBatchBound keeps the timestamp bound of the next batch read-only
// transaction (instead of read_only_staleness); TakeNextBatchBound takes
// it.
func (s *Store) SetNextBatchBound(b dsn.Staleness) { s.next.bound = &b }

// TakeNextBatchBound returns the bound SetNextBatchBound left (nil: none)
// and forgets it.
func (s *Store) TakeNextBatchBound() *dsn.Staleness {
	b := s.next.bound
	s.next.bound = nil
	return b
}

// Overlay runs set on the values for the time one statement or one
// transaction's set-up runs; the returned function undoes it. A value that
// changed meanwhile keeps its new value: a one-shot tag the statement used
// stays used, a SET it ran stays set.
func (s *Store) Overlay(set func(*dsn.Config)) (restore func()) {
	saved := s.cur
	set(&s.cur)
	applied := s.cur
	return func() {
		cur := reflect.ValueOf(&s.cur).Elem()
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
