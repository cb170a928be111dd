package main

import (
	"context"
	"fmt"

	"cloud.google.com/go/spanner"

	"github.com/spannerfast/spannerfast/cmd/spannerfast-bench/internal/workload"
)

// The official client's writes, each what go-sql-spanner does for the
// same database/sql calls: DML in ReadWriteTransaction with tx.Update (an
// autocommit INSERT too), a batch with tx.BatchUpdate, mutations with
// Client.Apply.

// clientWrites are the statements and mutations, built once (building
// them is the application's cost, the same for every arm).
type clientWrites struct {
	inserts   []spanner.Statement // InsertSQL with the values of WriteRow(i)
	updates   []spanner.Statement // UpdateSQL
	mutations []*spanner.Mutation
}

// maxStatements is the largest statement count of the workloads of op.
func maxStatements(ws []*workload.Workload, ops ...workload.Op) int {
	n := 0
	for _, w := range ws {
		for _, op := range ops {
			if w.Op == op {
				n = max(n, w.Statements)
			}
		}
	}
	return n
}

func newClientWrites(ws []*workload.Workload) clientWrites {
	var c clientWrites
	for i := range maxStatements(ws, workload.OpInsert, workload.OpBatchDML) {
		id, name, score := workload.WriteRow(i)
		c.inserts = append(c.inserts, spanner.Statement{SQL: workload.InsertSQL,
			Params: map[string]any{"id": id, "name": name, "score": score}})
	}
	for i := range maxStatements(ws, workload.OpTxn) {
		id, _, score := workload.WriteRow(i)
		c.updates = append(c.updates, spanner.Statement{SQL: workload.UpdateSQL,
			Params: map[string]any{"id": id, "score": score}})
	}
	for i := range maxStatements(ws, workload.OpApply) {
		id, name, score := workload.WriteRow(i)
		c.mutations = append(c.mutations, spanner.InsertOrUpdate(workload.MutationTable, workload.MutationColumns,
			[]any{id, name, score}))
	}
	return c
}

// runWrite runs w.Queries operations of a write workload.
func (a *clientArm) runWrite(ctx context.Context, w *workload.Workload, hs *heapSampler) (uint64, error) {
	var total uint64
	for q := 0; q < w.Queries; q++ {
		var sum uint64
		var err error
		switch w.Op {
		case workload.OpCopyFrom:
			sum, err = a.copyFrom(ctx, w)
		case workload.OpApply:
			_, err = a.c.Apply(ctx, a.writes.mutations[:w.Statements])
			sum = uint64(w.Statements)
		case workload.OpROTxn:
			sum, err = a.readOnly(ctx, w)
		default:
			// The body may run again after an abort: only the last run counts.
			_, err = a.c.ReadWriteTransaction(ctx, func(ctx context.Context, tx *spanner.ReadWriteTransaction) error {
				var berr error
				sum, berr = a.txBody(ctx, tx, w, hs)
				return berr
			})
		}
		if err != nil {
			return 0, fmt.Errorf("%s %d: %w", w.Op, q, err)
		}
		total += sum
	}
	return total, nil
}

// readOnly is go-sql-spanner's read-only transaction: a multi-use
// ReadOnlyTransaction that begins inline with its first query (the
// driver's default), w.Statements one-row queries (ids 1, 2, ...), then
// Close (its Commit).
func (a *clientArm) readOnly(ctx context.Context, w *workload.Workload) (uint64, error) {
	ro := a.c.ReadOnlyTransaction().WithBeginTransactionOption(spanner.InlinedBeginTransaction)
	defer ro.Close()
	var sum uint64
	for i := range w.Statements {
		q := spanner.Statement{SQL: w.SQL, Params: map[string]any{"id": int64(i + 1)}}
		n, err := a.readRows(ro.Query(ctx, q), w, nil)
		if err != nil {
			return 0, err
		}
		sum += n
	}
	return sum, nil
}

// txBody is one transaction's statements; it returns the checksum of what
// they returned (rows read, update counts).
func (a *clientArm) txBody(ctx context.Context, tx *spanner.ReadWriteTransaction, w *workload.Workload, hs *heapSampler) (uint64, error) {
	switch w.Op {
	case workload.OpInsert:
		n, err := tx.Update(ctx, a.writes.inserts[0])
		return uint64(n), err
	case workload.OpBatchDML:
		counts, err := tx.BatchUpdate(ctx, a.writes.inserts[:w.Statements])
		var sum uint64
		for _, n := range counts {
			sum += uint64(n)
		}
		return sum, err
	case workload.OpTxn:
		q := spanner.Statement{SQL: w.SQL, Params: map[string]any{"id": int64(1)}}
		sum, err := a.readRows(tx.Query(ctx, q), w, nil)
		if err != nil {
			return 0, err
		}
		for _, u := range a.writes.updates[:w.Statements-1] {
			n, err := tx.Update(ctx, u)
			if err != nil {
				return 0, err
			}
			sum += uint64(n)
		}
		return sum, nil
	case workload.OpTxRead:
		return a.readRows(tx.Query(ctx, spanner.Statement{SQL: w.SQL}), w, hs)
	}
	return 0, fmt.Errorf("client arm: no way to run %s", w.Op)
}
