package e2e

import (
	"context"
	"database/sql"
	"testing"

	"github.com/spannerfast/spannerfast/internal/fakespanner"
)

// TestWriteAllocations holds the allocations of the write operations of
// cmd/spannerfast-bench's per-call workloads, counted against the
// in-process fake server (whose own allocations, decoding the requests and
// building the responses, are in the counts): an autocommit INSERT of three
// parameters (ExecuteSql and Commit), a read-write transaction (a one-row
// query, an UPDATE of two parameters, the commit) and a DML batch of ten
// such INSERTs (START BATCH DML ... RUN BATCH: ExecuteBatchDml and
// Commit). The limits are the counts measured when the unary calls began
// encoding their requests into pooled buffers (wire.UnaryCodec), putting
// the session's metadata on their context in one allocation, arguments
// were encoded in one allocation each, a batch's statements shared one
// result and one slice and a read-write transaction's begin options became
// one allocation, plus writeAllocSlack; the code before made 22, 20 and 182
// more (435, 661 and 1125; docs/performance.md, "What a call
// costs"). The race detector's instrumentation adds about 25 to 40
// allocations per operation, so its builds have limits of their own,
// measured the same way.
func TestWriteAllocations(t *testing.T) {
	const (
		writeInsert = "INSERT INTO t (id, name, score) VALUES (@id, @name, @score)"
		writeUpdate = "UPDATE t SET score = @score WHERE id = @id"
		writeQuery  = "SELECT s FROM t WHERE id = @id"
		// writeAllocSlack covers a garbage collection emptying a buffer
		// pool during the run.
		writeAllocSlack = 3 + raceAllocs
	)
	s := fakespanner.Start(t)
	s.AddResult(writeInsert, fakespanner.DML(1))
	s.AddResult(writeUpdate, fakespanner.DML(1))
	s.AddResult(writeQuery, &fakespanner.Result{ResultSet: stringRows("a")})
	s.SetRecording(false)
	db := openFake(t, s)
	ctx := context.Background()
	insertArgs := []any{sql.Named("id", int64(1234)), sql.Named("name", "name-1234"), sql.Named("score", 12.5)}
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		name        string
		limit, race float64 // race: the limit under the race detector
		op          func()
	}{
		{"insert", 413, 438, func() {
			_, err := db.ExecContext(ctx, writeInsert, insertArgs...)
			must(err)
		}},
		{"rwtxn", 641, 679, func() {
			tx, err := db.BeginTx(ctx, nil)
			must(err)
			rows, err := tx.QueryContext(ctx, writeQuery, sql.Named("id", int64(1)))
			must(err)
			for rows.Next() {
			}
			must(rows.Close())
			_, err = tx.ExecContext(ctx, writeUpdate, sql.Named("id", int64(1234)), sql.Named("score", 2.5))
			must(err)
			must(tx.Commit())
		}},
		{"batchdml10", 943, 976, func() {
			c, err := db.Conn(ctx)
			must(err)
			defer c.Close()
			_, err = c.ExecContext(ctx, "START BATCH DML")
			must(err)
			for range 10 {
				_, err = c.ExecContext(ctx, writeInsert, insertArgs...)
				must(err)
			}
			_, err = c.ExecContext(ctx, "RUN BATCH")
			must(err)
		}},
	} {
		c.op() // warm the statement cache and the pools
		got := testing.AllocsPerRun(200, c.op)
		if raceAllocs > 0 {
			c.limit = c.race
		}
		t.Logf("%s: %.1f allocations per operation (limit %.0f + %d)", c.name, got, c.limit, writeAllocSlack)
		if got > c.limit+writeAllocSlack {
			t.Errorf("%s: %.1f allocations per operation, over the limit of %.0f + %d", c.name, got, c.limit, writeAllocSlack)
		}
	}
}
