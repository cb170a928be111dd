package driver

import (
	"context"
	"database/sql"

	"cloud.google.com/go/spanner"

	"github.com/spannerfast/spannerfast/conn"
	"github.com/spannerfast/spannerfast/internal/partition"
	"github.com/spannerfast/spannerfast/internal/stmtopts"
)

// Partitioned queries (see docs/partitioned.md and package conn).

// PartitionedQuery is a query partitioned in a batch read-only transaction:
// scan the one row of a query run with PartitionQuery() into it, then read
// each of its Partitions with Execute (or send a partition elsewhere with
// Partition.MarshalBinary or Partition.ID).
type PartitionedQuery = partition.PartitionedQuery

// Partition is one partition of a PartitionedQuery. Its MarshalBinary and
// ID encode it (a versioned encoding) so that another *sql.DB or process
// can read it with ExecutePartition or RUN PARTITION '<id>'.
type Partition = partition.Partition

// PartitionQuery returns a statement argument that only partitions the
// query (go-sql-spanner's PartitionedQueryOptions.PartitionQuery): the
// result is one row with one column, PartitionedQuery. It needs a batch
// read-only transaction.
func PartitionQuery() QueryOptions { return QueryOptions{PartitionQuery: true} }

// AutoPartition returns a statement argument that partitions the query and
// reads every partition into the one *sql.Rows, maxParallelism partitions
// at a time (0: one per CPU), as go-sql-spanner's AutoPartitionQuery.
func AutoPartition(maxParallelism int) QueryOptions {
	on := true
	return QueryOptions{AutoPartition: &on, MaxParallelism: maxParallelism}
}

// DataBoost returns a statement argument that turns Data Boost on or off for
// the partitions of that query, whatever data_boost_enabled says.
func DataBoost(on bool) QueryOptions { return QueryOptions{DataBoost: &on} }

// MaxPartitions returns a statement argument that sets the partition count
// hint of that query, whatever max_partitions says.
func MaxPartitions(n int64) QueryOptions { return QueryOptions{MaxPartitions: n} }

// DecodePartition decodes a partition encoded by Partition.MarshalBinary.
func DecodePartition(b []byte) (*Partition, error) {
	p := &Partition{}
	if err := p.UnmarshalBinary(b); err != nil {
		return nil, err
	}
	return p, nil
}

// ParsePartitionID decodes a partition id (Partition.ID, or a row of
// PARTITION <query>).
func ParsePartitionID(id string) (*Partition, error) { return partition.ParsePartitionID(id) }

// ExecutePartition reads partition p through db (any spannerfast *sql.DB,
// *sql.Conn or *sql.Tx on the partition's database).
func ExecutePartition(ctx context.Context, db conn.Queryer, p *Partition) (*sql.Rows, error) {
	return db.QueryContext(ctx, p.SQL(), QueryOptions{Partition: p})
}

// BatchReadOnlyTransactionOptions are the options of
// BeginBatchReadOnlyTransaction. The zero value reads strong.
type BatchReadOnlyTransactionOptions struct {
	// TimestampBound is the transaction's staleness: spanner.StrongRead(),
	// spanner.ExactStaleness(d) or spanner.ReadTimestamp(t). The zero
	// value is strong.
	TimestampBound spanner.TimestampBound
}

// BeginBatchReadOnlyTransaction begins a batch read-only transaction on a
// connection of db at options.TimestampBound, as go-sql-spanner's function
// of that name: queries in it can be partitioned (PartitionQuery(),
// AutoPartition, RUN PARTITIONED QUERY, PARTITION). End it with Commit or
// Rollback (neither sends anything); that returns the connection to db.
func BeginBatchReadOnlyTransaction(ctx context.Context, db *sql.DB, options BatchReadOnlyTransactionOptions) (*sql.Tx, error) {
	bound, err := stmtopts.StalenessOf(options.TimestampBound)
	if err != nil {
		return nil, err
	}
	return beginOnConn(ctx, db, &sql.TxOptions{ReadOnly: true, Isolation: WithBatchReadOnly(sql.LevelDefault)},
		func(c *conn.Conn) error { return c.SetNextBatchBound(bound) })
}
