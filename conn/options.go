package conn

import "database/sql/driver"

// QueryOptions change how one statement runs. Pass a QueryOptions as one of
// the statement's arguments: the driver takes it out of the parameter list
// (it is never sent to Spanner) and applies it to that statement only.
type QueryOptions struct {
	// RawDecode, when not nil, overrides the connection's raw_decode for
	// this query.
	RawDecode *bool

	// Partitioned queries (partitions.go).

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
	// MaxParallelism, when > 0, is how many partitions are read at once.
	MaxParallelism int
	// Partition, when not nil, runs that partition instead of the query
	// (PartitionedQuery.Execute).
	Partition *Partition
}

// merge lays o over the options given before it in the same statement.
func (q *QueryOptions) merge(o QueryOptions) {
	if o.RawDecode != nil {
		q.RawDecode = o.RawDecode
	}
	q.mergePartitioned(o)
}

// pendingOptions carries QueryOptions from CheckNamedValue, which removes
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
type pendingOptions struct {
	opts QueryOptions
	list *driver.NamedValue // first element of the checked argument list
	kept int                // arguments checked and kept in that list
	set  bool               // opts came with that list
}

// check is CheckNamedValue's part for one argument: options are kept and
// removed; anything else goes to convert, whose failure drops the options.
func (p *pendingOptions) check(nv *driver.NamedValue, convert func(*driver.NamedValue) error) error {
	if nv.Ordinal == 1 && nv != p.list {
		*p = pendingOptions{list: nv}
	}
	if o, ok := nv.Value.(QueryOptions); ok {
		p.opts.merge(o)
		p.set = true
		return driver.ErrRemoveArgument
	}
	if err := convert(nv); err != nil {
		*p = pendingOptions{}
		return err
	}
	p.kept++
	return nil
}

// take returns the options that came with args and forgets them, whatever
// the statement does next. QueryOptions still among args (a caller using
// the driver directly, without database/sql's checks) are taken out too.
func (p *pendingOptions) take(args []driver.NamedValue) (QueryOptions, []driver.NamedValue) {
	var o QueryOptions
	if p.set && len(args) == p.kept && cap(args) > 0 && &args[:1][0] == p.list {
		o = p.opts
	}
	*p = pendingOptions{}
	for i := 0; i < len(args); i++ {
		if qo, ok := args[i].Value.(QueryOptions); ok {
			o.merge(qo)
			args = append(args[:i:i], args[i+1:]...)
			i--
		}
	}
	return o, args
}
