package workload

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
)

// Kind is the Spanner type of a benchmark column.
type Kind int

// The column kinds the workloads use.
const (
	Int64 Kind = iota
	String
	Float64
	Bool
	Timestamp
	Date
	Bytes
	Numeric
	JSON
	ArrayInt64
)

// String returns the Spanner spelling of the kind.
func (k Kind) String() string {
	switch k {
	case Int64:
		return "INT64"
	case String:
		return "STRING"
	case Float64:
		return "FLOAT64"
	case Bool:
		return "BOOL"
	case Timestamp:
		return "TIMESTAMP"
	case Date:
		return "DATE"
	case Bytes:
		return "BYTES"
	case Numeric:
		return "NUMERIC"
	case JSON:
		return "JSON"
	case ArrayInt64:
		return "ARRAY<INT64>"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// spannerType returns the Type of the kind in ResultSetMetadata.
func (k Kind) spannerType() *spannerpb.Type {
	switch k {
	case Int64:
		return &spannerpb.Type{Code: spannerpb.TypeCode_INT64}
	case String:
		return &spannerpb.Type{Code: spannerpb.TypeCode_STRING}
	case Float64:
		return &spannerpb.Type{Code: spannerpb.TypeCode_FLOAT64}
	case Bool:
		return &spannerpb.Type{Code: spannerpb.TypeCode_BOOL}
	case Timestamp:
		return &spannerpb.Type{Code: spannerpb.TypeCode_TIMESTAMP}
	case Date:
		return &spannerpb.Type{Code: spannerpb.TypeCode_DATE}
	case Bytes:
		return &spannerpb.Type{Code: spannerpb.TypeCode_BYTES}
	case Numeric:
		return &spannerpb.Type{Code: spannerpb.TypeCode_NUMERIC}
	case JSON:
		return &spannerpb.Type{Code: spannerpb.TypeCode_JSON}
	case ArrayInt64:
		return &spannerpb.Type{Code: spannerpb.TypeCode_ARRAY,
			ArrayElementType: &spannerpb.Type{Code: spannerpb.TypeCode_INT64}}
	}
	return &spannerpb.Type{Code: spannerpb.TypeCode_TYPE_CODE_UNSPECIFIED}
}

// Column is one result column.
type Column struct {
	Name string
	Kind Kind
	// Len is the length of a STRING (characters) or BYTES (bytes) value, or
	// the element count of an ARRAY.
	Len int
	// VarLen makes STRING lengths vary between Len/4 and Len.
	VarLen bool
	// Sequence, for an INT64 column, makes the value of row r r/Sequence+1
	// instead of a random one: 1 numbers the rows (a key), k > 1 gives
	// each run of k rows the key of one row of another result (a foreign
	// key, for GORM's Preload of has-many children).
	Sequence int
}

// Workload is one result shape, the number of rows one query returns and the
// number of queries one measurement runs.
type Workload struct {
	// Name selects the workload on the command line (-workloads).
	Name string
	// Description is a one-line explanation for reports.
	Description string
	// SQL is the query text; the server picks the result by it.
	SQL     string
	Columns []Column
	// Rows is the number of rows of one query.
	Rows int
	// Queries is the number of queries of one measurement.
	Queries int
	// Chunked makes every message of the result end in the middle of a
	// value (chunked_value), so that values continue in the next message.
	Chunked bool
	// PerQuery reports CPU and allocations per query instead of per row.
	PerQuery bool
	// PeakHeap samples the heap while the rows are read.
	PeakHeap bool
	// Cycle makes the rows repeat after CyclePeriod rows, so that the server
	// can send the same encoded message bodies again and again (the rows of
	// a 5 M row result need not all be held in memory).
	Cycle bool
	// Hidden workloads are served but not run by default.
	Hidden bool
	// GormTable, when set, makes SQL the query GORM sends for
	// db.Table(GormTable).Limit(Rows).Find(&structs) (see GormSQL), so
	// that a GORM arm and the other arms read the same result.
	GormTable string

	// Op is what one operation of the workload does: a query read outside
	// a transaction (the read workloads) or a write or transaction (see
	// writes.go). Queries counts the operations of one measurement.
	Op Op
	// Statements is the number of DML statements (or mutations, for
	// OpApply) of one operation of a write workload.
	Statements int
	// RetryAborts is retry_aborts_internally of an OpTxRead workload.
	RetryAborts bool
	// Partitions, when > 0, makes the query a partitioned one: it is read
	// in a batch read-only transaction as that many partitions, in
	// parallel (see partitioned.go).
	Partitions int
	// MessageDelay, when > 0, makes the server wait that long before each
	// message of the result it streams (a latency-bound stream, see
	// partitioned.go); MessageRows, when > 0, caps the rows of a message.
	MessageDelay time.Duration
	MessageRows  int
	// Concurrency, when above 1, splits the Queries of a measurement
	// between that many goroutines that share the arm's one *sql.DB,
	// client or gRPC connection (see concurrent.go in the tool).
	Concurrency int
	// PerCall puts the workload in the per-call table (group percall):
	// one operation's CPU and allocations against a bare gRPC call making
	// the same RPCs with the same request bytes.
	PerCall bool
	// Share marks one goroutine's part of a concurrent workload: an arm
	// must not use state it keeps per workload (scan targets) for it.
	Share bool

	seed uint64
	memo *periodMemo // shared by copies: the rows are the same
}

// periodMemo memoizes CyclePeriod.
type periodMemo struct {
	once   sync.Once
	period int
}

// TotalRows is the number of rows one measurement reads.
func (w *Workload) TotalRows() int { return w.Rows * w.Queries }

// MessageTarget is the size at which the encoder ends a PartialResultSet.
const MessageTarget = 1 << 20

// MaxValuesPerMessage caps the values of one message (narrow messages end
// there, below MessageTarget bytes). The official client's borrow mode
// reuses a received PartialResultSet only while its value slice has a
// capacity of at most 65,536; with more values per message it allocates
// every value, and the bar spannerfast is measured against would look
// worse than it is.
const MaxValuesPerMessage = 50_000

// cycleMessages is the number of distinct message bodies of a cyclic result.
const cycleMessages = 8

// Base sizes at scale 1.
const (
	narrowRows     = 200_000
	wideRows       = 100_000
	strings800Rows = 100
	strings800Qs   = 2_000
	pointQs        = 2_000
	manycolsQs     = 2_000
	concurrentQs   = 6_400 // 100 per goroutine
	// ConcurrentStreams is the number of goroutines of concurrent-point.
	ConcurrentStreams = 64
	narrow5mRows      = 5_000_000
	gormRows          = 10_000
	gormQs            = 20
	// PreloadParents is the parent rows of the GORM Preload workload and
	// PreloadChildren the child rows of each.
	PreloadParents  = 100
	PreloadChildren = 10
)

// The tables of the GORM Preload workload.
const (
	PreloadParentTable = "bench_singers"
	PreloadChildTable  = "bench_albums"
)

// preloadCatalog returns the two results of GORM's
// db.Preload("Albums").Limit(PreloadParents).Find(&singers) (hidden: the
// GORM comparison in gormpeer selects them by name): the parents, keyed
// 1 to PreloadParents, and their children, PreloadChildren per parent,
// under the SQL GORM sends for them with the parameters bound into the
// text (the server binds them, see benchserver's resultKey).
func preloadCatalog(gormCols []Column) []*Workload {
	parents := slices.Clone(gormCols)
	parents[0].Sequence = 1
	keys := make([]string, PreloadParents)
	for i := range keys {
		keys[i] = strconv.Itoa(i + 1)
	}
	children := []Column{
		{Name: "id", Kind: Int64, Sequence: 1},
		{Name: "singer_id", Kind: Int64, Sequence: PreloadChildren},
		{Name: "title", Kind: String, Len: 32},
		{Name: "price", Kind: Float64},
		{Name: "created_at", Kind: Timestamp},
		{Name: "updated_at", Kind: Timestamp},
	}
	return []*Workload{
		{Name: "gorm-preload-parents", Description: "the parents GORM's Preload reads",
			Columns: parents, Rows: PreloadParents, Queries: 1, Hidden: true, seed: 8,
			SQL: GormSQL(PreloadParentTable, PreloadParents)},
		{Name: "gorm-preload-children", Description: "the children GORM's Preload reads, PreloadChildren per parent",
			Columns: children, Rows: PreloadParents * PreloadChildren, Queries: 1, Hidden: true, seed: 9,
			SQL: fmt.Sprintf("SELECT * FROM `%s` WHERE `%s`.`singer_id` IN (%s)",
				PreloadChildTable, PreloadChildTable, strings.Join(keys, ","))},
	}
}

// GormSQL is the SQL text of GORM's db.Table(table).Limit(rows).Find(...)
// with the spannergorm dialector, with the LIMIT written into the text.
// spannergorm sends LIMIT @p1 with rows as the parameter; the server binds
// it into the text to find this result, which the other arms read under
// this text.
func GormSQL(table string, rows int) string {
	return fmt.Sprintf("SELECT * FROM `%s` LIMIT %d", table, rows)
}

// Names lists the workloads in report order (hidden ones excluded).
func Names() []string {
	var names []string
	for _, w := range Catalog(1) {
		if !w.Hidden {
			names = append(names, w.Name)
		}
	}
	return names
}

func scaled(n int, scale float64) int {
	v := int(math.Round(float64(n) * scale))
	if v < 1 {
		v = 1
	}
	return v
}

// Catalog returns every workload with row or query counts multiplied by
// scale. The same scale gives the same workloads, SQL texts and values in
// every process.
func Catalog(scale float64) []*Workload {
	narrowCols := []Column{
		{Name: "id", Kind: Int64},
		{Name: "name", Kind: String, Len: 16},
		{Name: "score", Kind: Float64},
	}
	wideCols := []Column{
		{Name: "id", Kind: Int64},
		{Name: "code", Kind: String, Len: 16},
		{Name: "title", Kind: String, Len: 64},
		{Name: "price", Kind: Float64},
		{Name: "active", Kind: Bool},
		{Name: "created_at", Kind: Timestamp},
		{Name: "birth_date", Kind: Date},
		{Name: "token", Kind: Bytes, Len: 24},
		{Name: "amount", Kind: Numeric},
		{Name: "attrs", Kind: JSON},
		{Name: "version", Kind: Int64},
		{Name: "description", Kind: String, Len: 64},
		{Name: "region", Kind: String, Len: 16},
		{Name: "weight", Kind: Float64},
		{Name: "scores", Kind: ArrayInt64, Len: 4},
		{Name: "notes", Kind: String, Len: 64},
	}
	var s800 []Column
	for i := 1; i <= 8; i++ {
		s800 = append(s800, Column{Name: fmt.Sprintf("s%d", i), Kind: String, Len: 56, VarLen: true})
	}
	pointCols := []Column{
		{Name: "id", Kind: Int64},
		{Name: "name", Kind: String, Len: 16},
		{Name: "email", Kind: String, Len: 32},
		{Name: "balance", Kind: Float64},
		{Name: "active", Kind: Bool},
	}
	// The columns of a typical GORM model (gorm.Model-like timestamps).
	gormCols := []Column{
		{Name: "id", Kind: Int64},
		{Name: "name", Kind: String, Len: 16},
		{Name: "email", Kind: String, Len: 32},
		{Name: "balance", Kind: Float64},
		{Name: "active", Kind: Bool},
		{Name: "created_at", Kind: Timestamp},
		{Name: "updated_at", Kind: Timestamp},
	}
	var many []Column
	for i := 0; i <= 100; i++ {
		many = append(many, Column{Name: fmt.Sprintf("c%03d", i), Kind: String, Len: 16})
	}
	ws := []*Workload{
		{Name: "narrow", Description: "rows of (INT64, STRING(16), FLOAT64)",
			Columns: narrowCols, Rows: scaled(narrowRows, scale), Queries: 1, seed: 1},
		{Name: "narrow-chunked", Description: "narrow, every message ends inside a value (chunked_value)",
			Columns: narrowCols, Rows: scaled(narrowRows, scale), Queries: 1, Chunked: true, seed: 1},
		{Name: "wide", Description: "rows of 16 columns of mixed types",
			Columns: wideCols, Rows: scaled(wideRows, scale), Queries: 1, seed: 2},
		{Name: "wide-chunked", Description: "wide, every message ends inside a value (chunked_value)",
			Columns: wideCols, Rows: scaled(wideRows, scale), Queries: 1, Chunked: true, seed: 2},
		{Name: "strings800", Description: "queries of 100 rows x 8 STRING columns",
			Columns: s800, Rows: strings800Rows, Queries: scaled(strings800Qs, scale), seed: 3},
		{Name: "point", Description: "queries of 1 row (INT64, STRING, STRING, FLOAT64, BOOL)",
			Columns: pointCols, Rows: 1, Queries: scaled(pointQs, scale), PerQuery: true, PerCall: true, seed: 4},
		{Name: "manycols", Description: "queries of 1 row of 101 STRING columns",
			Columns: many, Rows: 1, Queries: scaled(manycolsQs, scale), PerQuery: true, PerCall: true, seed: 5},
		{Name: "concurrent-point", Description: "point queries from 64 goroutines sharing one *sql.DB, client or connection",
			Columns: pointCols, Rows: 1, Queries: scaled(concurrentQs, scale), PerQuery: true, PerCall: true,
			Concurrency: ConcurrentStreams, seed: 4},
		{Name: "narrow5m", Description: "one query of narrow rows (5 M at scale 1), heap sampled",
			Columns: narrowCols, Rows: scaled(narrow5mRows, scale), Queries: 1, PeakHeap: true, Cycle: true, seed: 1},
		{Name: "gorm10k", Description: "queries of 10,000 rows of a 7-column model, read by GORM's Find into structs",
			Columns: gormCols, Rows: scaled(gormRows, scale), Queries: scaled(gormQs, scale), GormTable: "bench_gorm", seed: 7},
	}
	ws = append(ws, writeCatalog(scale, narrowCols, pointCols)...)
	ws = append(ws, partitionedCatalog(scale, narrowCols)...)
	ws = append(ws, latencyCatalog(scale, narrowCols)...)
	ws = append(ws, preloadCatalog(gormCols)...)
	ws = append(ws, []*Workload{
		// Its value is 1, as a driver's Ping may check (go-sql-spanner does).
		{Name: "select1", Description: "SELECT 1, for connection checks",
			Columns: []Column{{Name: "one", Kind: Int64, Sequence: 1}}, Rows: 1, Queries: 1, Hidden: true, seed: 6},
	}...)
	for _, w := range ws {
		w.memo = &periodMemo{}
		switch {
		case w.Name == "select1":
			w.SQL = "SELECT 1"
			continue
		case w.SQL != "" || !w.HasResult():
			continue // set by writeCatalog
		case w.GormTable != "":
			w.SQL = GormSQL(w.GormTable, w.Rows)
			continue
		}
		names := make([]string, len(w.Columns))
		for i, c := range w.Columns {
			names[i] = c.Name
		}
		w.SQL = fmt.Sprintf("SELECT %s FROM bench_%s LIMIT %d",
			strings.Join(names, ", "), strings.ReplaceAll(w.Name, "-", "_"), w.Rows)
	}
	return ws
}

// ListNames splits a comma-separated flag value into its trimmed, non-empty
// names (the -workloads and -arms flags).
func ListNames(list string) []string {
	var out []string
	for _, n := range strings.Split(list, ",") {
		if n = strings.TrimSpace(n); n != "" {
			out = append(out, n)
		}
	}
	return out
}

// Workload groups that -workloads accepts besides single names.
const (
	GroupAll    = "all"
	GroupReads  = "reads"
	GroupWrites = "writes"
	// GroupPartitioned is the partitioned reads (partitioned.go).
	GroupPartitioned = "partitioned"
	// GroupPartitionedLatency is the latency-bound single stream and
	// partitioned reads (partitioned.go).
	GroupPartitionedLatency = "partitioned-latency"
	// GroupPerCall is the operations of the per-call table (PerCall).
	GroupPerCall = "percall"
)

// isGroup reports whether name is a workload group.
func isGroup(name string) bool {
	return name == GroupAll || name == GroupReads || name == GroupWrites ||
		name == GroupPartitioned || name == GroupPartitionedLatency || name == GroupPerCall
}

// inGroup reports whether a visible workload belongs to group.
func (w *Workload) inGroup(group string) bool {
	switch group {
	case GroupAll:
		return !w.Hidden
	case GroupReads:
		return !w.Hidden && !w.Op.Write()
	case GroupWrites:
		return !w.Hidden && w.Op.Write()
	case GroupPartitioned:
		return !w.Hidden && w.Partitions > 0 && w.MessageDelay == 0
	case GroupPartitionedLatency:
		return !w.Hidden && w.MessageDelay > 0
	case GroupPerCall:
		return !w.Hidden && w.PerCall
	}
	return false
}

// Select returns the workloads named in list (comma separated names, or
// the groups "all" (also ""), "reads", "writes", "partitioned",
// "partitioned-latency" and "percall"), in catalog order.
func Select(list string, scale float64) ([]*Workload, error) {
	all := Catalog(scale)
	if list == "" {
		list = GroupAll
	}
	want := map[string]bool{}
	for _, n := range ListNames(list) {
		if isGroup(n) {
			for _, w := range all {
				want[w.Name] = want[w.Name] || w.inGroup(n)
			}
			continue
		}
		if !slices.ContainsFunc(all, func(w *Workload) bool { return w.Name == n }) {
			return nil, fmt.Errorf("unknown workload %q (known: %s, or the groups all, reads, writes, partitioned, partitioned-latency, percall)", n, strings.Join(Names(), ", "))
		}
		want[n] = true
	}
	var out []*Workload
	for _, w := range all {
		if want[w.Name] {
			out = append(out, w)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no workload selected in %q", list)
	}
	return out, nil
}

// Metadata returns the ResultSetMetadata of the workload's result.
func (w *Workload) Metadata() *spannerpb.ResultSetMetadata {
	fields := make([]*spannerpb.StructType_Field, len(w.Columns))
	for i, c := range w.Columns {
		fields[i] = &spannerpb.StructType_Field{Name: c.Name, Type: c.Kind.spannerType()}
	}
	return &spannerpb.ResultSetMetadata{RowType: &spannerpb.StructType{Fields: fields}}
}

// Kinds returns the column kinds, sorted and without duplicates (for reports).
func (w *Workload) Kinds() []string {
	seen := map[string]bool{}
	for _, c := range w.Columns {
		seen[c.Kind.String()] = true
	}
	out := make([]string, 0, len(seen))
	for k := range seen {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// warmMessages is the number of full messages a warm-up query reads.
const warmMessages = 3

// WarmUp returns the workload's warm-up variant: the same columns and
// values, a few messages' worth of rows and at most 20 queries, under its
// own SQL text. Reading it before a measurement fills the pools and caches
// of the reader (the official client's borrow mode reuses decoded messages
// through a sync.Pool that garbage collections empty), so that the
// measurement sees the steady state rather than a cold start.
func (w *Workload) WarmUp() *Workload {
	c := *w
	// A concurrent workload warms every goroutine's connection or stream.
	c.Queries = min(w.Queries, max(20, w.Concurrency))
	c.Hidden = true
	c.Name = w.Name + "-warmup"
	if !w.HasResult() {
		return &c // writes only: the same statements, fewer times
	}
	perMsg := MaxValuesPerMessage / len(w.Columns)
	if size := w.rowSize(0); size > 0 {
		perMsg = min(perMsg, MessageTarget/size+1)
	}
	if w.MessageRows > 0 {
		perMsg = min(perMsg, w.MessageRows)
	}
	c.Rows = min(w.Rows, warmMessages*perMsg)
	c.PeakHeap = false
	c.SQL = w.SQL + " /* warm-up */"
	if w.GormTable != "" {
		// GORM writes no comments: the warm-up differs by its LIMIT, or is
		// the same query when the workload is no larger than a warm-up.
		c.SQL = GormSQL(w.GormTable, c.Rows)
	}
	return &c
}
