package driver

import (
	"context"
	"database/sql"

	"cloud.google.com/go/spanner"

	"github.com/spannerfast/spannerfast/conn"
	"github.com/spannerfast/spannerfast/internal/stmtopts"
)

// go-sql-spanner's Go API, with its names and types: code written for it
// changes only the import path and the driver name. See
// docs/go-sql-spanner.md.

// ExecOptions is go-sql-spanner's per-statement argument: pass one among a
// statement's arguments and it applies to that statement only.
//
//	rows, err := db.QueryContext(ctx, "SELECT ...", driver.ExecOptions{
//		QueryOptions: spanner.QueryOptions{RequestTag: "report", Priority: spannerpb.RequestOptions_PRIORITY_LOW},
//	})
//
// Each option set stands in for the connection property of the same
// meaning (RequestTag: statement_tag, Priority: rpc_priority, Options:
// optimizer_version and optimizer_statistics_package, TimestampBound:
// read_only_staleness of a query outside a transaction,
// AutocommitDMLMode, DecodeToNativeArrays, TransactionOptions: the
// transaction properties of autocommit DML). DirectedReadOptions,
// LastStatement and QueryOptions.Mode go onto the request.
// DecodeOptionProto, ReturnResultSetMetadata and ReturnResultSetStats shape
// the result as in go-sql-spanner (GenericColumnValue columns; a metadata
// result set first, a stats result set last). QueryOptions.ClientContext
// goes into the statement's request options, as the official client sends
// it. DirectExecuteQuery is always so here; with it, DirectExecuteContext
// bounds the wait for the query's first response. QueryContext fills in a
// QueryMetadata given in QueryMetadata.
type ExecOptions = stmtopts.ExecOptions

// QueryMetadata is ExecOptions.QueryMetadata: IsMulti reports a query
// string of several statements.
type QueryMetadata = stmtopts.QueryMetadata

// SpannerNamedArg binds a parameter whose name database/sql refuses (one
// that starts with an underscore): sql.Named("p", SpannerNamedArg{NameInQuery:
// "__name", Value: v}) binds v to @__name.
type SpannerNamedArg = conn.SpannerNamedArg

// PropertyValue is an element of ExecOptions.PropertyValues: a connection
// property set for that statement only.
type PropertyValue = stmtopts.PropertyValue

// Identifier is PropertyValue.Identifier.
type Identifier = stmtopts.Identifier

// CreatePropertyValue returns the PropertyValue that sets property name to
// value (SET's text form) for one statement.
func CreatePropertyValue(name, value string) PropertyValue {
	return stmtopts.CreatePropertyValue(name, value)
}

// DecodeOption is ExecOptions.DecodeOption.
type DecodeOption = stmtopts.DecodeOption

// DecodeOption values.
const (
	DecodeOptionNormal = stmtopts.DecodeOptionNormal
	DecodeOptionProto  = stmtopts.DecodeOptionProto
)

// AutocommitDMLMode is ExecOptions.AutocommitDMLMode.
type AutocommitDMLMode = stmtopts.AutocommitDMLMode

// AutocommitDMLMode values.
const (
	Unspecified          = stmtopts.Unspecified
	Transactional        = stmtopts.Transactional
	PartitionedNonAtomic = stmtopts.PartitionedNonAtomic
)

// PartitionedQueryOptions is ExecOptions.PartitionedQueryOptions.
type PartitionedQueryOptions = stmtopts.PartitionedQueryOptions

// ExecutePartitionOptions is PartitionedQueryOptions.ExecutePartition,
// go-sql-spanner's type ExecutePartition (in spannerfast that name is the
// function that reads a partition).
type ExecutePartitionOptions = stmtopts.ExecutePartition

// ReadOnlyTransactionOptions are the options of BeginReadOnlyTransaction.
type ReadOnlyTransactionOptions struct {
	// TimestampBound is the transaction's staleness: strong (the zero
	// value), exact staleness or a read timestamp.
	TimestampBound spanner.TimestampBound
	// BeginTransactionOption chooses an inline or explicit begin.
	BeginTransactionOption spanner.BeginTransactionOption
}

// ReadWriteTransactionOptions are the options of BeginReadWriteTransaction.
type ReadWriteTransactionOptions struct {
	// TransactionOptions: tag, commit priority and options, read lock
	// mode, isolation level, change-stream exclusion, begin option.
	TransactionOptions spanner.TransactionOptions
	// DisableInternalRetries turns off the replay of an aborted
	// transaction: Commit or the statement returns the ABORTED error.
	DisableInternalRetries bool
}

// BeginReadOnlyTransaction begins a read-only transaction on a connection
// of db with options. End it with Commit or Rollback: that returns the
// connection to db (until then it stays taken).
func BeginReadOnlyTransaction(ctx context.Context, db *sql.DB, options ReadOnlyTransactionOptions) (*sql.Tx, error) {
	bound, err := stmtopts.StalenessOf(options.TimestampBound)
	if err != nil {
		return nil, err
	}
	to, err := stmtopts.TxnOptionsOf(spanner.TransactionOptions{BeginTransactionOption: options.BeginTransactionOption})
	if err != nil {
		return nil, err
	}
	to.ReadOnlyBound = &bound
	return beginWith(ctx, db, &sql.TxOptions{ReadOnly: true}, to)
}

// BeginReadWriteTransaction begins a read-write transaction on a
// connection of db with options. End it with Commit or Rollback: that
// returns the connection to db.
func BeginReadWriteTransaction(ctx context.Context, db *sql.DB, options ReadWriteTransactionOptions) (*sql.Tx, error) {
	to, err := stmtopts.TxnOptionsOf(options.TransactionOptions)
	if err != nil {
		return nil, err
	}
	to.DisableRetryAborts = options.DisableInternalRetries
	return beginWith(ctx, db, &sql.TxOptions{}, to)
}

// beginWith begins a transaction on a connection of db after setting the
// connection's next-transaction options to to.
func beginWith(ctx context.Context, db *sql.DB, opts *sql.TxOptions, to stmtopts.TxnOptions) (*sql.Tx, error) {
	return beginOnConn(ctx, db, opts, func(c *conn.Conn) error { return c.SetNextTxnOptions(to) })
}

// beginOnConn takes a connection of db, prepares it with set (through
// sql.Conn.Raw) and begins a transaction on it. The connection goes back
// to db when the transaction ends.
func beginOnConn(ctx context.Context, db *sql.DB, opts *sql.TxOptions, set func(*conn.Conn) error) (*sql.Tx, error) {
	c, err := db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	err = withConn(c, set)
	var tx *sql.Tx
	if err == nil {
		tx, err = c.BeginTx(ctx, opts)
	}
	if err != nil {
		c.Close() // ResetSession forgets options a failed begin left
		return nil, err
	}
	// The transaction holds the connection; this Close waits until the
	// transaction ends and then gives the connection back to the pool.
	go c.Close()
	return tx, nil
}
