package workload

// The bulk load: OpCopyFrom writes Rows rows of CopyColumns into
// CopyTable, spannerfast with driver.CopyFrom, the official client with
// Client.Apply of insert mutations in batches of CopyBatchRows rows, the
// rows of one of CopyFrom's commits. The table has one secondary index of
// one column (the fake server answers CopyFrom's question for the index
// columns with 1), so a row counts 6 mutations and a commit holds 13,333
// rows.

// OpCopyFrom is the bulk load.
const OpCopyFrom = OpROTxn + 1

// CopyTable and CopyColumns are what the load writes.
const CopyTable = "bench_copy"

var CopyColumns = []string{"id", "name", "score", "active", "note"}

const (
	copyRows = 1_000_000
	// CopyBatchRows is the rows of one commit: 80,000 mutations over
	// (5 columns + 1 index column) a row.
	CopyBatchRows = 80_000 / 6
	copyNoteLen   = 32
)

// CopyRow returns the values of row i of the load.
func CopyRow(i int) []any {
	id, name, score := WriteRow(i)
	return []any{id, name, score, i%2 == 0, randString(mix(uint64(i)+0xc0b1), copyNoteLen)}
}

func copyCatalog(scale float64) *Workload {
	n := scaled(copyRows, scale)
	return &Workload{Name: "copyfrom", Description: "bulk load of 1,000,000 rows of 5 columns: CopyFrom, or Apply in batches of the same size",
		Op: OpCopyFrom, Statements: n, Rows: n, Queries: 1}
}
