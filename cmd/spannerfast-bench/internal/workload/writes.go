package workload

import "fmt"

// Op is what one operation of a workload does.
type Op int

// The operations. Every write workload's operation is a complete
// read-write transaction, committed.
const (
	// OpQuery is a query outside a transaction (the read workloads).
	OpQuery Op = iota
	// OpInsert is one autocommit INSERT with three parameters (InsertSQL):
	// ExecuteSql beginning the transaction inline, then Commit.
	OpInsert
	// OpTxn is a read-write transaction of Statements statements: the
	// workload's one-row query, then Statements-1 UPDATEs (UpdateSQL).
	OpTxn
	// OpBatchDML is a DML batch of Statements INSERTs (one
	// ExecuteBatchDml beginning the transaction inline), then Commit.
	OpBatchDML
	// OpApply writes Statements insert-or-update mutations
	// (MutationTable): BeginTransaction with a mutation key, then Commit
	// with the mutations.
	OpApply
	// OpTxRead reads every row of the workload's query in a read-write
	// transaction, then commits. RetryAborts says whether the driver
	// replays aborts (and so checksums every row it reads).
	OpTxRead
	// OpROTxn is a read-only transaction of Statements one-row queries
	// (the workload's query with id 1, 2, ...), then its end.
	OpROTxn
)

// Write reports whether the operation is a write or a transaction:
// everything but a plain query (the write workloads; OpROTxn, a read-only
// transaction, is reported with them).
func (o Op) Write() bool { return o != OpQuery }

func (o Op) String() string {
	switch o {
	case OpQuery:
		return "query"
	case OpInsert:
		return "insert"
	case OpTxn:
		return "transaction"
	case OpBatchDML:
		return "batch-dml"
	case OpApply:
		return "apply"
	case OpTxRead:
		return "transaction-read"
	case OpROTxn:
		return "read-only-transaction"
	case OpCopyFrom:
		return "copyfrom"
	}
	return fmt.Sprintf("Op(%d)", int(o))
}

// The statements of the write workloads. The fake server answers any
// INSERT, UPDATE or DELETE with an update count of 1.
const (
	InsertSQL     = "INSERT INTO bench_writes (id, name, score) VALUES (@id, @name, @score)"
	UpdateSQL     = "UPDATE bench_writes SET score = @score WHERE id = @id"
	MutationTable = "bench_writes"
)

// MutationColumns are the columns of the mutations of OpApply, in the
// order of WriteRow's values.
var MutationColumns = []string{"id", "name", "score"}

// Base sizes of the write workloads at scale 1 (operations per
// measurement; the statements of one operation do not scale).
const (
	insertOps   = 2_000
	txnOps      = 500
	txnStmts    = 10
	batchOps    = 200
	batchStmts  = 100
	applyOps    = 50
	applyMuts   = 1_000
	rwtxnOps    = 2_000
	rotxnOps    = 2_000
	batch10Ops  = 2_000
	txReadRows  = narrowRows
	writeNameLn = 16
)

// WriteRow returns the values statement (or mutation) i of an operation
// writes: id, name and score. Every operation writes the same values.
func WriteRow(i int) (id int64, name string, score float64) {
	h := mix(uint64(i) + 0x5eed)
	return int64(i) + 1, randString(h, writeNameLn), float64(h%1_000_000) / 100
}

// HasResult reports whether the server serves a result for the workload's
// SQL (the workloads that read rows).
func (w *Workload) HasResult() bool { return len(w.Columns) > 0 }

// writeCatalog returns the write workloads; narrow and point are the
// columns of the read workloads of those names, whose rows they read.
func writeCatalog(scale float64, narrow, point []Column) []*Workload {
	txRead := func(name, desc string, retry bool) *Workload {
		return &Workload{Name: name, Description: desc, Op: OpTxRead, RetryAborts: retry,
			Columns: narrow, Rows: scaled(txReadRows, scale), Queries: 1, seed: 1,
			SQL: fmt.Sprintf("SELECT id, name, score FROM bench_txread LIMIT %d", scaled(txReadRows, scale))}
	}
	return []*Workload{
		{Name: "insert", Description: "autocommit INSERT of one row with 3 parameters",
			Op: OpInsert, Statements: 1, Queries: scaled(insertOps, scale), PerQuery: true, PerCall: true, SQL: InsertSQL},
		{Name: "txn10", Description: "read-write transaction: a 1-row query and 9 UPDATEs, committed",
			Op: OpTxn, Statements: txnStmts, Queries: scaled(txnOps, scale), PerQuery: true,
			Columns: point, Rows: 1, seed: 4,
			SQL: "SELECT id, name, email, balance, active FROM bench_txn10 WHERE id = @id"},
		{Name: "batchdml100", Description: "DML batch of 100 INSERTs, committed",
			Op: OpBatchDML, Statements: batchStmts, Queries: scaled(batchOps, scale), PerQuery: true, SQL: InsertSQL},
		{Name: "apply1000", Description: "Apply of 1,000 insert-or-update mutations",
			Op: OpApply, Statements: applyMuts, Queries: scaled(applyOps, scale), PerQuery: true},
		// The write and transaction operations of the per-call table
		// (group percall), each against a bare gRPC call.
		{Name: "rwtxn", Description: "read-write transaction: a 1-row query and 1 UPDATE, committed",
			Op: OpTxn, Statements: 2, Queries: scaled(rwtxnOps, scale), PerQuery: true, PerCall: true,
			Columns: point, Rows: 1, seed: 4,
			SQL: "SELECT id, name, email, balance, active FROM bench_rwtxn WHERE id = @id"},
		{Name: "concurrent-rwtxn", Description: "rwtxn from 64 goroutines sharing one *sql.DB, client or connection",
			Op: OpTxn, Statements: 2, Queries: scaled(concurrentQs, scale), PerQuery: true, PerCall: true,
			Concurrency: ConcurrentStreams, Columns: point, Rows: 1, seed: 4,
			SQL: "SELECT id, name, email, balance, active FROM bench_concurrent_rwtxn WHERE id = @id"},
		{Name: "rotxn", Description: "read-only transaction of two 1-row queries",
			Op: OpROTxn, Statements: 2, Queries: scaled(rotxnOps, scale), PerQuery: true, PerCall: true,
			Columns: point, Rows: 1, seed: 4,
			SQL: "SELECT id, name, email, balance, active FROM bench_rotxn WHERE id = @id"},
		{Name: "batchdml10", Description: "DML batch of 10 INSERTs, committed",
			Op: OpBatchDML, Statements: 10, Queries: scaled(batch10Ops, scale), PerQuery: true, PerCall: true, SQL: InsertSQL},
		txRead("txread-checksum", "narrow rows read in a read-write transaction, retry_aborts_internally=true (rows checksummed)", true),
		txRead("txread-nochecksum", "narrow rows read in a read-write transaction, retry_aborts_internally=false (no checksum)", false),
		copyCatalog(scale),
	}
}
