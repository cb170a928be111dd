package conn

import (
	"context"
	"database/sql/driver"
	"runtime"
	"strings"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/spannerfast/spannerfast/dsn"
	"github.com/spannerfast/spannerfast/internal/connstate"
	"github.com/spannerfast/spannerfast/internal/partition"
	"github.com/spannerfast/spannerfast/internal/sqlparse"
	"github.com/spannerfast/spannerfast/internal/telemetry"
	"github.com/spannerfast/spannerfast/internal/transport"
	"github.com/spannerfast/spannerfast/rows"
)

// Partitioned queries read one query through several streams: Spanner
// splits the query (PartitionQuery) in a batch read-only transaction, and
// every partition runs as its own ExecuteStreamingSql carrying the
// partition token, optionally on Data Boost (data_boost_enabled).
//
// The ways in, as go-sql-spanner's:
//
//   - BeginTx with ReadOnly and IsolationBatchReadOnly: a batch read-only
//     transaction, begun at once with BeginTransaction at
//     read_only_staleness (or the bound SetNextBatchBound gave). Plain
//     queries in it run in the transaction.
//   - QueryOptions.PartitionQuery in that transaction: one row, one column
//     (PartitionedQuery) holding a *PartitionedQuery, whose partitions run
//     anywhere (PartitionedQuery.Execute, RUN PARTITION, or bytes).
//   - QueryOptions.AutoPartition, auto_partition_mode, or RUN PARTITIONED
//     QUERY <query>: the query is partitioned and all partitions are read
//     into one Rows (partition.Rows), in the batch transaction if one is
//     open, else in a batch read-only transaction of its own at
//     read_only_staleness.
//   - PARTITION <query>: one row per partition, column PARTITION, holding
//     the partition id (Partition.ID); RUN PARTITION '<id>' reads one.
//
// In a read-only or read-write transaction that is not a batch one, all of
// these fail with FailedPrecondition (RUN PARTITION excepted: a partition
// carries its own transaction).
//
// The partition itself (its encoding, PartitionedQuery) and the reader of
// several partitions at once are package internal/partition's.

// Partition, PartitionedQuery and Queryer are
// internal/partition's; these names keep conn's API (driver re-exports
// them from there).
type (
	Partition        = partition.Partition
	PartitionedQuery = partition.PartitionedQuery
	Queryer          = partition.Queryer
)

// SetNextBatchBound sets the timestamp bound of the next batch read-only
// transaction begun on the connection (instead of read_only_staleness).
// BeginTx takes it whether or not the begin succeeds.
func (c *Conn) SetNextBatchBound(b dsn.Staleness) error {
	if b.SingleUseOnly() {
		return status.Errorf(codes.InvalidArgument,
			"spannerfast: timestamp bound %s is for single queries only; a batch read-only transaction needs STRONG, EXACT_STALENESS or READ_TIMESTAMP", b)
	}
	c.state.SetNextBatchBound(b)
	return nil
}

// beginBatchReadOnly runs BeginTx for a batch read-only transaction: it
// begins at once (BeginTransaction), so its id and read timestamp exist
// before any partition is asked for.
func (c *Conn) beginBatchReadOnly(ctx context.Context) (driver.Tx, error) {
	bound := c.state.TakeNextBatchBound()
	t, err := c.newBatchTxn(ctx, bound)
	if err != nil {
		return nil, err
	}
	t.ctx = ctx
	c.tx, c.batchRO = t, t
	c.state.BeginTransaction()
	c.state.NoteStart()
	return Tx{c}, nil
}

// newBatchTxn begins a read-only transaction at bound (nil:
// read_only_staleness) with an explicit BeginTransaction.
func (c *Conn) newBatchTxn(ctx context.Context, bound *dsn.Staleness) (*txn, error) {
	session, err := c.session(ctx)
	if err != nil {
		return nil, err
	}
	t, err := c.newReadOnly(session)
	if err != nil {
		return nil, err
	}
	if bound != nil {
		ro := bound.ReadOnly()
		ro.ReturnReadTimestamp = true
		t.Options.Begin = &spannerpb.TransactionOptions{Mode: &spannerpb.TransactionOptions_ReadOnly_{ReadOnly: ro}}
	}
	if err := t.Begin(ctx); err != nil {
		return nil, err
	}
	return t, nil
}

// activeBatchRO returns the open batch read-only transaction, or nil.
func (c *Conn) activeBatchRO() *txn {
	if c.batchRO != nil && c.batchRO != c.tx {
		c.batchRO = nil // it ended through Commit or Rollback
	}
	return c.batchRO
}

// batchFor returns the batch transaction a partitioned statement runs in:
// the open one, or (no transaction open) a new one at read_only_staleness.
func (c *Conn) batchFor(ctx context.Context, what string) (*txn, error) {
	if t := c.activeBatchRO(); t != nil {
		return t, nil
	}
	if c.tx != nil {
		return nil, status.Errorf(codes.FailedPrecondition,
			"spannerfast: %s needs a batch read-only transaction or no transaction, not a regular one", what)
	}
	return c.newBatchTxn(ctx, nil)
}

// queryPartitioned runs a query partitioned (ok true) when its options or
// auto_partition_mode say so. The partition statements (PARTITION, RUN
// PARTITION, RUN PARTITIONED QUERY) are routed as client-side statements
// (router.go) to partitionStatement and runStatement.
func (c *Conn) queryPartitioned(ctx context.Context, st statement, args []driver.NamedValue, opts QueryOptions) (r driver.Rows, ok bool, err error) {
	switch {
	case st.kind == kindQuery && opts.PartitionQuery:
		r, err = c.partitionOnly(ctx, st, args, opts)
	case st.kind == kindQuery && c.autoPartition(opts):
		r, err = c.readAll(ctx, "an auto-partitioned query", st, args, opts, opts.AutoPartition != nil)
	default:
		return nil, false, nil
	}
	return r, true, err
}

// autoPartition reports whether a query is read partitioned: the option
// says so, or auto_partition_mode outside a regular transaction.
func (c *Conn) autoPartition(opts QueryOptions) bool {
	if opts.AutoPartition != nil {
		return *opts.AutoPartition
	}
	return c.props().AutoPartitionMode && (c.tx == nil || c.activeBatchRO() != nil)
}

// runStatement runs RUN PARTITIONED QUERY <query> and RUN PARTITION '<id>'.
func (c *Conn) runStatement(ctx context.Context, st statement, args []driver.NamedValue, opts QueryOptions) (driver.Rows, error) {
	cs := st.client
	if cs.Command == sqlparse.CmdRunPartition {
		c.takeStatementTag()
		p, err := partition.ParsePartitionID(cs.Value)
		if err != nil {
			return nil, err
		}
		return c.runPartition(ctx, p, opts)
	}
	q, err := c.innerQuery(st)
	if err != nil {
		return nil, err
	}
	return c.readAll(ctx, "RUN PARTITIONED QUERY", q, args, opts, false)
}

// innerQuery is the query of a partition statement. A malformed statement
// (no query, or not a query) spends the statement tag.
func (c *Conn) innerQuery(st statement) (statement, error) {
	if st.invalid != nil {
		c.takeStatementTag()
		return statement{}, st.invalid
	}
	return toStatement(*st.client.Query), nil
}

// partitionOnly answers QueryOptions.PartitionQuery: one row holding the
// *PartitionedQuery.
func (c *Conn) partitionOnly(ctx context.Context, st statement, args []driver.NamedValue, opts QueryOptions) (driver.Rows, error) {
	tag := c.takeStatementTag()
	t := c.activeBatchRO()
	if t == nil {
		return nil, status.Error(codes.FailedPrecondition,
			"spannerfast: PartitionQuery needs a batch read-only transaction (BeginBatchReadOnlyTransaction, or BeginTx with WithBatchReadOnly)")
	}
	pq, err := c.partitionQuery(ctx, t, st, args, opts, tag)
	if err != nil {
		return nil, err
	}
	return rows.OneRow([]string{"PartitionedQuery"}, pq), nil
}

// partitionStatement answers PARTITION <query>: one row per partition id.
func (c *Conn) partitionStatement(ctx context.Context, ps statement, args []driver.NamedValue, opts QueryOptions) (driver.Rows, error) {
	st, err := c.innerQuery(ps)
	if err != nil {
		return nil, err
	}
	tag := c.takeStatementTag()
	t, err := c.batchFor(ctx, "PARTITION")
	if err != nil {
		return nil, err
	}
	pq, err := c.partitionQuery(ctx, t, st, args, opts, tag)
	if err != nil {
		return nil, err
	}
	out := rows.NewList([]string{"PARTITION"})
	for _, p := range pq.Partitions {
		id, err := p.ID()
		if err != nil {
			return nil, err
		}
		out.Append([]driver.Value{id})
	}
	return out, nil
}

// readAll partitions a query and reads every partition into one Rows.
// optionGiven: the caller asked through QueryOptions, whose parallelism
// defaults to the number of CPUs (go-sql-spanner's ExecOptions).
func (c *Conn) readAll(ctx context.Context, what string, st statement, args []driver.NamedValue, opts QueryOptions, optionGiven bool) (driver.Rows, error) {
	tag := c.takeStatementTag()
	t, err := c.batchFor(ctx, what)
	if err != nil {
		return nil, err
	}
	pq, err := c.partitionQuery(ctx, t, st, args, opts, tag)
	if err != nil {
		return nil, err
	}
	if c.tx == nil {
		c.state.NoteRead(t.ReadTimestamp())
	}
	if len(pq.Partitions) == 0 {
		return rows.NewList(nil), nil
	}
	ro := c.rowsOptions(opts)
	ro.Decode.Raw = false // see partition.Rows: workers decode ahead of Next
	ro.Errors = nil       // the workers' errors reach the connection through the Rows
	// The workers read these settings while the connection goes on with
	// other statements (SET may change them): they get a copy.
	snap := &Conn{client: c.client, state: connstate.New(c.props().Clone()), sessions: c.client.MultiplexedLease()}
	open := func(ctx context.Context, p *Partition) (*rows.Rows, error) {
		return snap.stream(ctx, partition.Request(p), false, ro)
	}
	closeSnap := func() { snap.Close() } // its streams' drainer and lease
	pr, err := partition.Open(ctx, pq.Partitions, c.parallelism(opts, optionGiven), c.client.Telemetry(), open, closeSnap)
	if err != nil {
		closeSnap()
		return nil, err
	}
	pr.Errors = (*rowsErrors)(c)
	return pr, nil
}

// parallelism is how many partitions are read at once: the option's
// MaxParallelism, else max_partitioned_parallelism (0: one per CPU), else
// one per CPU when the query came with QueryOptions.
func (c *Conn) parallelism(opts QueryOptions, optionGiven bool) int {
	switch {
	case opts.MaxParallelism > 0:
		return opts.MaxParallelism
	case !optionGiven && c.props().MaxPartitionedParallelism > 0:
		return int(c.props().MaxPartitionedParallelism)
	}
	return runtime.NumCPU()
}

// partitionQuery runs PartitionQuery for st in batch transaction t and
// returns the partitions, each with the request that reads it, in a
// PartitionQuery span, child of the span in ctx.
func (c *Conn) partitionQuery(ctx context.Context, t *txn, st statement, args []driver.NamedValue, opts QueryOptions, tag string) (pq *PartitionedQuery, err error) {
	ctx, op := c.client.Telemetry().Start(ctx, telemetry.PartitionQuery, st.sql)
	defer func() {
		if err == nil && op.Recording() {
			op.SetAttributes(telemetry.KeyPartitionCount.Int(len(pq.Partitions)))
		}
		op.End(err)
	}()
	req, err := c.requestFor(ctx, st, args)
	if err != nil {
		return nil, err
	}
	req.Session = t.Session()
	req.Transaction = &spannerpb.TransactionSelector{Selector: &spannerpb.TransactionSelector_Id{Id: t.ID()}}
	req.RequestOptions = c.stmtReq.WithClientContext(c.requestOptions(tag))
	req.DataBoostEnabled = c.props().DataBoostEnabled
	if req.DirectedReadOptions, err = c.directedRead(); err != nil {
		return nil, err
	}
	if opts.DataBoost != nil {
		req.DataBoostEnabled = *opts.DataBoost
	}
	preq := &spannerpb.PartitionQueryRequest{
		Session:     t.Session(),
		Transaction: req.Transaction,
		Sql:         req.Sql,
		Params:      req.Params,
		ParamTypes:  req.ParamTypes,
		// Always sent, zero fields and all, as the official client does
		// (some servers read it without a nil check).
		PartitionOptions: &spannerpb.PartitionOptions{MaxPartitions: c.maxPartitions(opts), PartitionSizeBytes: opts.PartitionBytes},
	}
	resp, err := transport.CallUnary(c.client.SessionContext(ctx, t.Session(), false), c.report("PartitionQuery"), func(ctx context.Context) (*spannerpb.PartitionResponse, error) {
		return c.client.Spanner().PartitionQuery(ctx, preq)
	})
	if err != nil {
		return nil, err
	}
	pq = &PartitionedQuery{SQL: req.Sql, ReadTimestamp: t.ReadTimestamp()}
	for _, part := range resp.GetPartitions() {
		r := proto.Clone(req).(*spannerpb.ExecuteSqlRequest)
		r.PartitionToken = part.GetPartitionToken()
		pq.Partitions = append(pq.Partitions, partition.New(r, t.ReadTimestamp()))
	}
	return pq, nil
}

func (c *Conn) maxPartitions(opts QueryOptions) int64 {
	if opts.MaxPartitions > 0 {
		return opts.MaxPartitions
	}
	return c.props().MaxPartitions
}

// runPartition reads one partition. It may come from another connection or
// process, but must belong to this connection's database.
func (c *Conn) runPartition(ctx context.Context, p *Partition, opts QueryOptions) (driver.Rows, error) {
	if db := c.client.DatabasePath(); !strings.HasPrefix(partition.Request(p).GetSession(), db+"/sessions/") {
		return nil, status.Errorf(codes.FailedPrecondition,
			"spannerfast: the partition belongs to session %q, not to this connection's database %q", partition.Request(p).GetSession(), db)
	}
	return c.stream(ctx, partition.Request(p), false, c.rowsOptions(opts))
}
