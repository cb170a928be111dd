package e2e

import (
	"context"
	"database/sql"
	"errors"
	"reflect"
	"sort"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"

	sfdriver "github.com/spannerfast/spannerfast/driver"
)

// TestEmulatorDDL: a DDL batch, several DDL statements in one string, and
// INFORMATION_SCHEMA showing the result.
func TestEmulatorDDL(t *testing.T) {
	t.Parallel()
	ctx := emuCtx(t)
	db, _ := emuDB(t, nil)
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	emuExec(t, ctx, c, "START BATCH DDL")
	emuExec(t, ctx, c, "CREATE TABLE A (Id INT64 NOT NULL, Name STRING(100)) PRIMARY KEY (Id)")
	emuExec(t, ctx, c, "CREATE INDEX AByName ON A (Name)")
	emuExec(t, ctx, c, "RUN BATCH")
	emuExec(t, ctx, c, "CREATE TABLE B (Id INT64 NOT NULL) PRIMARY KEY (Id); ALTER TABLE A ADD COLUMN Extra BOOL; CREATE VIEW V SQL SECURITY INVOKER AS SELECT A.Id FROM A")

	tables := emuStrings(t, ctx, c, "SELECT TABLE_NAME FROM INFORMATION_SCHEMA.TABLES WHERE TABLE_SCHEMA = '' ORDER BY TABLE_NAME")
	if want := []string{"A", "B", "V"}; !reflect.DeepEqual(tables, want) {
		t.Fatalf("tables %q, want %q", tables, want)
	}
	cols := emuStrings(t, ctx, c, "SELECT CONCAT(COLUMN_NAME, ' ', SPANNER_TYPE) FROM INFORMATION_SCHEMA.COLUMNS WHERE TABLE_NAME = @t ORDER BY ORDINAL_POSITION", sql.Named("t", "A"))
	if want := []string{"Id INT64", "Name STRING(100)", "Extra BOOL"}; !reflect.DeepEqual(cols, want) {
		t.Fatalf("columns %q, want %q", cols, want)
	}
	idx := emuStrings(t, ctx, c, "SELECT INDEX_NAME FROM INFORMATION_SCHEMA.INDEXES WHERE TABLE_NAME = 'A' AND INDEX_TYPE = 'INDEX'")
	if !reflect.DeepEqual(idx, []string{"AByName"}) {
		t.Fatalf("indexes %q", idx)
	}
	// A failing statement in a batch: a BatchError with the failure's code
	// whose count of applied statements matches the schema (the emulator
	// validates the whole batch first and applies none of it).
	emuExec(t, ctx, c, "START BATCH DDL")
	emuExec(t, ctx, c, "CREATE TABLE C (Id INT64 NOT NULL) PRIMARY KEY (Id)")
	emuExec(t, ctx, c, "CREATE TABLE A (Id INT64 NOT NULL) PRIMARY KEY (Id)")
	_, err = c.ExecContext(ctx, "RUN BATCH")
	emuWantCode(t, err, codes.FailedPrecondition)
	var be *sfdriver.BatchError
	if !errors.As(err, &be) {
		t.Fatalf("error %v is not a BatchError", err)
	}
	emuExec(t, ctx, c, "DROP VIEW V")
	tables = emuStrings(t, ctx, c, "SELECT TABLE_NAME FROM INFORMATION_SCHEMA.TABLES WHERE TABLE_SCHEMA = '' ORDER BY TABLE_NAME")
	want := []string{"A", "B"}
	if len(be.BatchUpdateCounts) == 1 {
		want = []string{"A", "B", "C"}
	}
	if !reflect.DeepEqual(tables, want) {
		t.Fatalf("tables after the failed batch (%d applied) %q, want %q", len(be.BatchUpdateCounts), tables, want)
	}
}

// TestEmulatorPartitionedQueries: the three ways to read through
// partitions read every row once.
func TestEmulatorPartitionedQueries(t *testing.T) {
	t.Parallel()
	ctx := emuCtx(t)
	db, edb := emuDB(t, []string{"CREATE TABLE P (Id INT64 NOT NULL, V STRING(MAX)) PRIMARY KEY (Id)"})
	emuExec(t, ctx, db, "INSERT INTO P (Id, V) SELECT x, CAST(x AS STRING) FROM UNNEST(GENERATE_ARRAY(1, 100)) AS x")
	want := make([]int64, 100)
	for i := range want {
		want[i] = int64(i + 1)
	}

	// 1. PartitionQuery in a batch read-only transaction; partitions read
	// by another *sql.DB from their bytes.
	tx, err := sfdriver.BeginBatchReadOnlyTransaction(ctx, db, sfdriver.BatchReadOnlyTransactionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var pq sfdriver.PartitionedQuery
	if err := tx.QueryRowContext(ctx, "SELECT Id FROM P", sfdriver.PartitionQuery()).Scan(&pq); err != nil {
		t.Fatal(err)
	}
	other := emuOpen(t, edb.DSN())
	got := emuReadPartitionBytes(t, ctx, other, &pq)
	tx.Commit()
	emuSameSet(t, "PartitionQuery", got, want)

	// 2. RUN PARTITIONED QUERY and AutoPartition: one *sql.Rows.
	emuSameSet(t, "RUN PARTITIONED QUERY", emuInt64s(t, ctx, db, "RUN PARTITIONED QUERY SELECT Id FROM P"), want)
	emuSameSet(t, "AutoPartition", emuInt64s(t, ctx, db, "SELECT Id FROM P", sfdriver.AutoPartition(2)), want)

	// 3. PARTITION and RUN PARTITION with partition ids.
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	emuSameSet(t, "RUN PARTITION", emuRunPartitions(t, ctx, c, "PARTITION SELECT Id FROM P"), want)
}

// emuReadPartitionBytes reads every partition of pq on reader the way
// another process would: from the partition's bytes (MarshalBinary,
// DecodePartition, ExecutePartition). It returns the ids read.
func emuReadPartitionBytes(t *testing.T, ctx context.Context, reader *sql.DB, pq *sfdriver.PartitionedQuery) []int64 {
	t.Helper()
	var got []int64
	for _, p := range pq.Partitions {
		b, err := p.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		dp, err := sfdriver.DecodePartition(b)
		if err != nil {
			t.Fatal(err)
		}
		rows, err := sfdriver.ExecutePartition(ctx, reader, dp)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, scanInt64s(t, rows)...)
	}
	return got
}

// emuRunPartitions runs partitionStmt (PARTITION <query>) on c and then
// RUN PARTITION with each partition id it returned; it returns the ids read.
func emuRunPartitions(t *testing.T, ctx context.Context, c *sql.Conn, partitionStmt string) []int64 {
	t.Helper()
	var got []int64
	for _, id := range emuStrings(t, ctx, c, partitionStmt) {
		rows, err := c.QueryContext(ctx, "RUN PARTITION '"+id+"'")
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, scanInt64s(t, rows)...)
	}
	return got
}

func scanInt64s(t *testing.T, rows *sql.Rows) []int64 {
	t.Helper()
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var v int64
		if err := rows.Scan(&v); err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func emuSameSet(t *testing.T, label string, got, want []int64) {
	t.Helper()
	got = append([]int64(nil), got...)
	sort.Slice(got, func(i, j int) bool { return got[i] < got[j] })
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s: %d rows (%v...), want %d rows each once", label, len(got), got[:min(len(got), 5)], len(want))
	}
}

// emuStrings runs a query of one STRING column, each value trimmed.
func emuStrings(t *testing.T, ctx context.Context, db emuQuerier, query string, args ...any) []string {
	t.Helper()
	out := emuColumn[string](t, ctx, db, query, args...)
	for i, v := range out {
		out[i] = strings.TrimSpace(v)
	}
	return out
}
