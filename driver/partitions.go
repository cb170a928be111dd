package driver

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"

	"cloud.google.com/go/spanner"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/spannerfast/spannerfast/conn"
	"github.com/spannerfast/spannerfast/dsn"
)

// Partitioned queries (see the README's "Partitioned queries and Data
// Boost" section and package conn).

// PartitionedQuery is a query partitioned in a batch read-only transaction:
// scan the one row of a query run with PartitionQuery() into it, then read
// each of its Partitions with Execute (or send a partition elsewhere with
// Partition.MarshalBinary or Partition.ID).
type PartitionedQuery = conn.PartitionedQuery

// Partition is one partition of a PartitionedQuery. Its MarshalBinary and
// ID encode it (a versioned encoding) so that another *sql.DB or process
// can read it with ExecutePartition or RUN PARTITION '<id>'.
type Partition = conn.Partition

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
func ParsePartitionID(id string) (*Partition, error) { return conn.ParsePartitionID(id) }

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
	bound, err := stalenessOf(options.TimestampBound)
	if err != nil {
		return nil, err
	}
	c, err := db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	err = c.Raw(func(dc any) error {
		sc, ok := dc.(*conn.Conn)
		if !ok {
			return status.Errorf(codes.FailedPrecondition, "spannerfast: BeginBatchReadOnlyTransaction needs a spannerfast database, got a %T connection", dc)
		}
		return sc.SetNextBatchBound(bound)
	})
	var tx *sql.Tx
	if err == nil {
		tx, err = c.BeginTx(ctx, &sql.TxOptions{ReadOnly: true, Isolation: WithBatchReadOnly(sql.LevelDefault)})
	}
	if err != nil {
		c.Close()
		return nil, err
	}
	// The transaction holds the connection; this Close waits until the
	// transaction ends and then gives the connection back to the pool.
	go c.Close()
	return tx, nil
}

// stalenessOf converts the official client's TimestampBound, whose fields
// are unexported, through its String form ("(strong)",
// "(exactStaleness: 10s)", "(readTimestamp: 2006-01-02 15:04:05.999999999
// -0700 MST)").
func stalenessOf(tb spanner.TimestampBound) (dsn.Staleness, error) {
	text := tb.String()
	kind, value, _ := strings.Cut(strings.Trim(text, "()"), ": ")
	bad := func(err error) (dsn.Staleness, error) {
		return dsn.Staleness{}, status.Errorf(codes.InvalidArgument, "spannerfast: timestamp bound %s: %v", text, err)
	}
	switch kind {
	case "strong":
		return dsn.StrongRead(), nil
	case "exactStaleness", "maxStaleness":
		d, err := time.ParseDuration(value)
		if err != nil {
			return bad(err)
		}
		if kind == "maxStaleness" {
			return dsn.MaxStaleness(d), nil
		}
		return dsn.ExactStaleness(d), nil
	case "readTimestamp", "minReadTimestamp":
		// Date, clock and offset; the zone name and a monotonic
		// reading (m=...) that may follow add nothing.
		f := strings.Fields(value)
		if len(f) < 3 {
			return bad(errNoOffset)
		}
		t, err := time.Parse("2006-01-02 15:04:05.999999999 -0700", strings.Join(f[:3], " "))
		if err != nil {
			return bad(err)
		}
		if kind == "minReadTimestamp" {
			return dsn.MinReadTimestamp(t), nil
		}
		return dsn.ReadTimestamp(t), nil
	}
	return dsn.Staleness{}, status.Errorf(codes.InvalidArgument, "spannerfast: unknown timestamp bound %s", text)
}

var errNoOffset = errors.New("no date, clock and UTC offset")
