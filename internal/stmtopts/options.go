package stmtopts

import (
	"context"
	"database/sql/driver"

	"cloud.google.com/go/spanner/apiv1/spannerpb"

	"github.com/spannerfast/spannerfast/dsn"
	"github.com/spannerfast/spannerfast/internal/partition"
)

// QueryOptions change how one statement runs. Pass a QueryOptions as one of
// the statement's arguments: the driver takes it out of the parameter list
// (it is never sent to Spanner) and applies it to that statement only.
type QueryOptions struct {
	// RawDecode, when not nil, overrides the connection's raw_decode for
	// this query.
	RawDecode *bool

	// Partitioned queries (package conn's partitions.go).

	// PartitionQuery only partitions the query: the result is one row with
	// one column, PartitionedQuery, holding a *PartitionedQuery. It needs a
	// batch read-only transaction.
	PartitionQuery bool
	// AutoPartition, when not nil, overrides auto_partition_mode: the query
	// is partitioned and all partitions are read into one Rows.
	AutoPartition *bool
	// DataBoost, when not nil, overrides data_boost_enabled.
	DataBoost *bool
	// MaxPartitions, when > 0, overrides max_partitions.
	MaxPartitions int64
	// PartitionBytes, when > 0, is the partition size hint sent with the
	// partitioning request (Spanner may ignore it).
	PartitionBytes int64
	// MaxParallelism, when > 0, is how many partitions are read at once.
	MaxParallelism int
	// Partition, when not nil, runs that partition instead of the query
	// (PartitionedQuery.Execute).
	Partition *partition.Partition

	// Settings that stand in for connection properties for this statement
	// (execoptions.go; go-sql-spanner's ExecOptions). Zero keeps the
	// connection's.

	RequestTag        string                                    // statement_tag
	Priority          dsn.Priority                              // rpc_priority
	Optimizer         *spannerpb.ExecuteSqlRequest_QueryOptions // optimizer_version, optimizer_statistics_package
	Staleness         *dsn.Staleness                            // read_only_staleness of a query outside a transaction
	AutocommitDMLMode dsn.AutocommitDMLMode                     // autocommit_dml_mode
	NativeArrays      *bool                                     // decode_to_native_arrays
	Txn               *TxnOptions                               // the transaction the statement begins (autocommit DML)

	// Request fields without a connection property.

	DirectedRead  *spannerpb.DirectedReadOptions
	LastStatement bool
	Mode          *spannerpb.ExecuteSqlRequest_QueryMode // PLAN, PROFILE, WITH_STATS
	// ClientContext goes into the request options of the statement's
	// requests (go-sql-spanner's QueryOptions.ClientContext).
	ClientContext *spannerpb.RequestOptions_ClientContext

	// For the caller (direct.go): the context that bounds the wait for a
	// query's first response, and the metadata QueryContext fills in.
	DirectContext context.Context
	Metadata      *QueryMetadata

	// go-sql-spanner's result shapes (resultsets.go).

	ReturnMetadata bool // a first result set: one row, the *spannerpb.ResultSetMetadata
	ReturnStats    bool // a last result set: one row, the *spannerpb.ResultSetStats
	Proto          bool // every column a spanner.GenericColumnValue

	props *[]PropertyValue // ExecOptions.PropertyValues; a pointer keeps QueryOptions comparable

	err error // an ExecOptions that could not be converted (direct use)
}

// merge lays o over the options given before it in the same statement.
func (q *QueryOptions) merge(o QueryOptions) {
	if o.RawDecode != nil {
		q.RawDecode = o.RawDecode
	}
	q.mergePartitioned(o)
	q.mergeSettings(o)
}

// mergePartitioned lays the partitioned-query options of o over q's.
func (q *QueryOptions) mergePartitioned(o QueryOptions) {
	q.PartitionQuery = q.PartitionQuery || o.PartitionQuery
	if o.AutoPartition != nil {
		q.AutoPartition = o.AutoPartition
	}
	if o.DataBoost != nil {
		q.DataBoost = o.DataBoost
	}
	if o.MaxPartitions > 0 {
		q.MaxPartitions = o.MaxPartitions
	}
	if o.PartitionBytes > 0 {
		q.PartitionBytes = o.PartitionBytes
	}
	if o.MaxParallelism > 0 {
		q.MaxParallelism = o.MaxParallelism
	}
	if o.Partition != nil {
		q.Partition = o.Partition
	}
}

// mergeSettings lays the property settings and request fields of o over
// q's.
func (q *QueryOptions) mergeSettings(o QueryOptions) {
	if o.RequestTag != "" {
		q.RequestTag = o.RequestTag
	}
	if o.Priority != "" {
		q.Priority = o.Priority
	}
	if o.Optimizer != nil {
		q.Optimizer = o.Optimizer
	}
	if o.Staleness != nil {
		q.Staleness = o.Staleness
	}
	if o.AutocommitDMLMode != "" {
		q.AutocommitDMLMode = o.AutocommitDMLMode
	}
	if o.NativeArrays != nil {
		q.NativeArrays = o.NativeArrays
	}
	if o.Txn != nil {
		q.Txn = o.Txn
	}
	if o.props != nil {
		var all []PropertyValue
		if q.props != nil {
			all = append(all, *q.props...)
		}
		all = append(all, *o.props...)
		q.props = &all
	}
	if o.DirectedRead != nil {
		q.DirectedRead = o.DirectedRead
	}
	q.LastStatement = q.LastStatement || o.LastStatement
	if o.Mode != nil {
		q.Mode = o.Mode
	}
	if o.ClientContext != nil {
		q.ClientContext = o.ClientContext
	}
	if o.DirectContext != nil {
		q.DirectContext = o.DirectContext
	}
	if o.Metadata != nil {
		q.Metadata = o.Metadata
	}
	q.ReturnMetadata = q.ReturnMetadata || o.ReturnMetadata
	q.ReturnStats = q.ReturnStats || o.ReturnStats
	q.Proto = q.Proto || o.Proto
	if q.err == nil {
		q.err = o.err
	}
}

// Err is why an ExecOptions given directly (without database/sql's checks)
// could not be converted; the statement fails with it before it runs.
func (q *QueryOptions) Err() error { return q.err }

// asQueryOptions returns the QueryOptions an argument value stands for:
// a QueryOptions, go-sql-spanner's ExecOptions (by value or pointer), or
// the partition.Read that PartitionedQuery.Execute passes.
func asQueryOptions(v any) (QueryOptions, bool, error) {
	switch o := v.(type) {
	case QueryOptions:
		return o, true, nil
	case partition.Read:
		return QueryOptions{Partition: o.Partition}, true, nil
	case ExecOptions:
		q, err := o.queryOptions()
		return q, true, err
	case *ExecOptions:
		if o == nil {
			return QueryOptions{}, true, nil
		}
		q, err := o.queryOptions()
		return q, true, err
	}
	return QueryOptions{}, false, nil
}

// Pending carries QueryOptions from CheckNamedValue, which removes
// them from the arguments, to the statement that the arguments belong to.
//
// database/sql checks a statement's arguments in order and then runs the
// statement, all while holding the connection. It can also stop in
// between: a later argument fails its check, or a prepared statement gets
// the wrong number of arguments. The options must then die with that
// statement rather than reach the next one.
//
// So the options are tied to the argument list they came in. database/sql
// builds a new []driver.NamedValue for every call and hands CheckNamedValue
// pointers into it, numbering kept arguments from 1 (Ordinal): an argument
// with Ordinal 1 sits at the start of the list, so its address identifies
// the list. The statement later receives that same list, cut to the kept
// arguments, and take applies the options only if it starts at that
// address. Holding the pointer keeps the old list alive, so a new list can
// never reuse its address.
//
// The zero Pending holds nothing; a connection and each of its prepared
// statements keep one.
type Pending struct {
	opts QueryOptions
	list *driver.NamedValue // first element of the checked argument list
	kept int                // arguments checked and kept in that list
	set  bool               // opts came with that list
}

// Check is CheckNamedValue's part for one argument: options are kept and
// removed; anything else goes to convert, whose failure drops the options.
func (p *Pending) Check(nv *driver.NamedValue, convert func(*driver.NamedValue) error) error {
	if nv.Ordinal == 1 && nv != p.list {
		*p = Pending{list: nv}
	}
	if o, ok, err := asQueryOptions(nv.Value); ok {
		if err != nil {
			*p = Pending{}
			return err
		}
		p.opts.merge(o)
		p.set = true
		return driver.ErrRemoveArgument
	}
	if err := convert(nv); err != nil {
		*p = Pending{}
		return err
	}
	p.kept++
	return nil
}

// Take returns the options that came with args and forgets them, whatever
// the statement does next. QueryOptions still among args (a caller using
// the driver directly, without database/sql's checks) are taken out too.
func (p *Pending) Take(args []driver.NamedValue) (QueryOptions, []driver.NamedValue) {
	var o QueryOptions
	if p.set && len(args) == p.kept && cap(args) > 0 && &args[:1][0] == p.list {
		o = p.opts
	}
	*p = Pending{}
	for i := 0; i < len(args); i++ {
		if qo, ok, err := asQueryOptions(args[i].Value); ok {
			qo.err = err
			o.merge(qo)
			args = append(args[:i:i], args[i+1:]...)
			i--
		}
	}
	return o, args
}
