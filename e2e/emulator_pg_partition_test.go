package e2e

import (
	"database/sql"
	"fmt"
	"strings"
	"testing"

	sfdriver "github.com/spannerfast/spannerfast/driver"
	"github.com/spannerfast/spannerfast/internal/emulatortest"
)

// emuPGPartitionDB opens a PostgreSQL database whose table p holds rows
// 1..n (v is the id as text) and returns the ids.
func emuPGPartitionDB(t *testing.T, n int, props ...string) (*sql.DB, *emulatortest.Database, []int64) {
	t.Helper()
	db, edb := emuPGDB(t, []string{"CREATE TABLE p (id bigint primary key, v varchar, flag bool)"}, props...)
	values := make([]string, n)
	want := make([]int64, n)
	for i := range values {
		values[i] = fmt.Sprintf("(%d, '%d', false)", i+1, i+1)
		want[i] = int64(i + 1)
	}
	emuExec(t, emuCtx(t), db, "INSERT INTO p (id, v, flag) VALUES "+strings.Join(values, ", "))
	return db, edb, want
}

// TestEmulatorPGPartitionedQueries: on a PostgreSQL database every way of
// reading through partitions reads every row once: PartitionQuery in a
// batch read-only transaction (with a $1 parameter and MaxPartitions),
// partitions moved between *sql.DBs as bytes, RUN PARTITIONED QUERY,
// AutoPartition, SET spanner.auto_partition_mode and spanner.max_partitions,
// and PARTITION / RUN PARTITION.
func TestEmulatorPGPartitionedQueries(t *testing.T) {
	t.Parallel()
	ctx := emuCtx(t)
	db, _, want := emuPGPartitionDB(t, 100)

	tx, err := sfdriver.BeginBatchReadOnlyTransaction(ctx, db, sfdriver.BatchReadOnlyTransactionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var pq sfdriver.PartitionedQuery
	if err := tx.QueryRowContext(ctx, "SELECT id FROM p WHERE id > $1", 50, sfdriver.PartitionQuery(), sfdriver.MaxPartitions(3)).Scan(&pq); err != nil {
		t.Fatal(err)
	}
	emuSameSet(t, "PartitionQuery with $1", emuReadPartitionBytes(t, ctx, db, &pq), want[50:])
	var got []int64
	for i := range pq.Partitions {
		rows, err := pq.Execute(ctx, i, db)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, scanInt64s(t, rows)...)
	}
	emuSameSet(t, "PartitionedQuery.Execute", got, want[50:])
	tx.Commit()

	emuSameSet(t, "RUN PARTITIONED QUERY", emuInt64s(t, ctx, db, "RUN PARTITIONED QUERY SELECT id FROM p"), want)
	emuSameSet(t, "AutoPartition", emuInt64s(t, ctx, db, "SELECT id FROM p WHERE v <> $1", "x", sfdriver.AutoPartition(2)), want)

	c := dbConn(t, db)
	emuExec(t, ctx, c, "SET spanner.auto_partition_mode = true")
	emuExec(t, ctx, c, "SET spanner.max_partitions = 4")
	emuExec(t, ctx, c, "SET spanner.max_partitioned_parallelism = 2")
	emuSameSet(t, "auto_partition_mode", emuInt64s(t, ctx, c, "SELECT id FROM p"), want)
	if got := showText(t, ctx, c, "max_partitions"); got != "4" {
		t.Fatalf("SHOW VARIABLE max_partitions = %q", got)
	}
	emuExec(t, ctx, c, "RESET spanner.auto_partition_mode")

	emuSameSet(t, "RUN PARTITION", emuRunPartitions(t, ctx, c, "PARTITION SELECT id FROM p"), want)
}

// TestEmulatorPGPartitionedDML: autocommit_dml_mode PARTITIONED_NON_ATOMIC
// set by SET spanner.autocommit_dml_mode, by the GoogleSQL form of the
// statement and in the DSN runs DML as partitioned DML on a PostgreSQL
// database: it reports a row count and changes every row; TRANSACTIONAL
// turns it off; in a transaction DML stays transactional.
func TestEmulatorPGPartitionedDML(t *testing.T) {
	t.Parallel()
	ctx := emuCtx(t)
	db, edb, want := emuPGPartitionDB(t, 30)
	c := dbConn(t, db)
	count := func() int64 {
		return emuInt64s(t, ctx, c, "SELECT count(*) FROM p WHERE flag")[0]
	}
	for _, set := range []string{
		"SET spanner.autocommit_dml_mode = 'PARTITIONED_NON_ATOMIC'",
		"SET AUTOCOMMIT_DML_MODE = 'PARTITIONED_NON_ATOMIC'",
	} {
		emuExec(t, ctx, c, set)
		if got := showText(t, ctx, c, "autocommit_dml_mode"); got != "Partitioned_Non_Atomic" {
			t.Fatalf("%s: SHOW VARIABLE autocommit_dml_mode = %q", set, got)
		}
		// The emulator's partitioned DML reads a PostgreSQL database's
		// statement as GoogleSQL when it has parameters ("Syntax error:
		// Unexpected "$1"", the official client's PartitionedUpdate too),
		// so these statements have none.
		if n := emuExec(t, ctx, c, "UPDATE p SET flag = NOT flag WHERE id > 0"); n != int64(len(want)) {
			t.Fatalf("%s: partitioned UPDATE reports %d rows, want %d", set, n, len(want))
		}
		emuExec(t, ctx, c, "SET spanner.autocommit_dml_mode = 'TRANSACTIONAL'")
		if n := emuExec(t, ctx, c, "UPDATE p SET flag = NOT flag WHERE id = 1"); n != 1 {
			t.Fatalf("transactional UPDATE reports %d rows", n)
		}
		emuExec(t, ctx, c, "UPDATE p SET flag = NOT flag WHERE id = 1")
	}
	if got := count(); got != 0 {
		t.Fatalf("%d rows flagged after two partitioned updates, want 0", got)
	}

	// The mode is for DML outside transactions: in one, DML is part of it
	// and a rollback undoes it.
	emuExec(t, ctx, c, "SET spanner.autocommit_dml_mode = 'PARTITIONED_NON_ATOMIC'")
	tx, err := c.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	emuExec(t, ctx, tx, "UPDATE p SET flag = true WHERE id > 0")
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	if got := count(); got != 0 {
		t.Fatalf("%d rows flagged after a rolled back update, want 0", got)
	}

	// In the DSN: a partitioned DELETE.
	pdml := emuOpen(t, edb.DSN("autocommit_dml_mode=PARTITIONED_NON_ATOMIC"))
	if n := emuExec(t, ctx, pdml, "DELETE FROM p WHERE id > 10"); n != int64(len(want)-10) {
		t.Fatalf("partitioned DELETE reports %d rows, want %d", n, len(want)-10)
	}
	if got := emuInt64s(t, ctx, db, "SELECT count(*) FROM p"); got[0] != 10 {
		t.Fatalf("%d rows left, want 10", got[0])
	}
}
