//go:build !nospannerfast

package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"cloud.google.com/go/spanner"

	"github.com/spannerfast/spannerfast/cmd/spannerfast-bench/internal/workload"
)

// spannerfast's writes through database/sql, as an application using
// go-sql-spanner writes them: ExecContext with parameters (autocommit),
// BeginTx / QueryContext / ExecContext / Commit, START BATCH DML ... RUN
// BATCH on one sql.Conn, and Apply on the driver connection (sql.Conn.Raw).
// The batch statements and Apply are found at run time, so that the tool
// builds with a driver that lacks them; such a workload is then reported
// as unavailable.

// applier is go-sql-spanner's SpannerConn.Apply, looked for on the driver
// connection.
type applier interface {
	Apply(ctx context.Context, ms []*spanner.Mutation, opts ...spanner.ApplyOption) (time.Time, error)
}

// sqlWrites are the arguments and mutations, built once.
type sqlWrites struct {
	inserts   [][]any // InsertSQL's arguments with the values of WriteRow(i)
	updates   [][]any // UpdateSQL's
	mutations []*spanner.Mutation
}

func newSQLWrites(ws []*workload.Workload) sqlWrites {
	var s sqlWrites
	for i := range maxStatements(ws, workload.OpInsert, workload.OpBatchDML) {
		id, name, score := workload.WriteRow(i)
		s.inserts = append(s.inserts, []any{sql.Named("id", id), sql.Named("name", name), sql.Named("score", score)})
	}
	for i := range maxStatements(ws, workload.OpTxn) {
		id, _, score := workload.WriteRow(i)
		s.updates = append(s.updates, []any{sql.Named("id", id), sql.Named("score", score)})
	}
	// The same mutations as the client arm's: Apply takes the official
	// client's type.
	s.mutations = newClientWrites(ws).mutations
	return s
}

// runWrite runs w.Queries operations of a write workload.
func (a *spannerfastArm) runWrite(ctx context.Context, w *workload.Workload, hs *heapSampler) (uint64, error) {
	var total uint64
	for q := 0; q < w.Queries; q++ {
		var (
			sum uint64
			err error
		)
		switch w.Op {
		case workload.OpInsert:
			sum, err = execCount(a.db.ExecContext(ctx, workload.InsertSQL, a.writes.inserts[0]...))
		case workload.OpTxn, workload.OpTxRead:
			sum, err = a.transaction(ctx, w, hs)
		case workload.OpBatchDML:
			sum, err = a.batch(ctx, w)
		case workload.OpApply:
			sum, err = a.apply(ctx, w)
		case workload.OpROTxn:
			sum, err = a.readOnly(ctx, w)
		case workload.OpCopyFrom:
			sum, err = a.copyFrom(ctx, w)
		default:
			err = fmt.Errorf("spannerfast arm: no way to run %s", w.Op)
		}
		var unavailable *unavailableError
		if errors.As(err, &unavailable) {
			return 0, err
		}
		if err != nil {
			return 0, fmt.Errorf("%s %d: %w", w.Op, q, err)
		}
		total += sum
	}
	return total, nil
}

// execCount is the update count of an ExecContext.
func execCount(res sql.Result, err error) (uint64, error) {
	if err != nil {
		return 0, err
	}
	n, err := res.RowsAffected()
	return uint64(n), err
}

// transaction runs OpTxn (a one-row query, then UPDATEs) or OpTxRead (all
// rows of the query; without RetryAborts on the DSN that replays nothing).
func (a *spannerfastArm) transaction(ctx context.Context, w *workload.Workload, hs *heapSampler) (uint64, error) {
	db := a.db
	if w.Op == workload.OpTxRead && !w.RetryAborts {
		db = a.noRetry
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	var sum uint64
	if w.Op == workload.OpTxRead {
		sum, err = runSQL(ctx, tx, w, a.dests.get(w), hs)
	} else {
		// One query (runSQL would run w.Queries, the operation count).
		var rows *sql.Rows
		if rows, err = tx.QueryContext(ctx, w.SQL, sql.Named("id", int64(1))); err == nil {
			sum, err = scanRows(rows, w, a.dests.get(w), nil)
		}
		for _, args := range a.writes.updates[:w.Statements-1] {
			if err != nil {
				break
			}
			var n uint64
			n, err = execCount(tx.ExecContext(ctx, workload.UpdateSQL, args...))
			sum += n
		}
	}
	if err != nil {
		_ = tx.Rollback()
		return 0, err
	}
	return sum, tx.Commit()
}

// readOnly runs a read-only transaction of w.Statements one-row queries
// (ids 1, 2, ...).
func (a *spannerfastArm) readOnly(ctx context.Context, w *workload.Workload) (uint64, error) {
	tx, err := a.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return 0, err
	}
	var sum uint64
	for i := range w.Statements {
		rows, err := tx.QueryContext(ctx, w.SQL, sql.Named("id", int64(i+1)))
		var n uint64
		if err == nil {
			n, err = scanRows(rows, w, a.dests.get(w), nil)
		}
		if err != nil {
			_ = tx.Rollback()
			return 0, err
		}
		sum += n
	}
	return sum, tx.Commit()
}

// batch runs START BATCH DML, the INSERTs and RUN BATCH on one connection.
func (a *spannerfastArm) batch(ctx context.Context, w *workload.Workload) (uint64, error) {
	conn, err := a.db.Conn(ctx)
	if err != nil {
		return 0, err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "START BATCH DML"); err != nil {
		return 0, &unavailableError{reason: "START BATCH DML: " + err.Error()}
	}
	for i, args := range a.writes.inserts[:w.Statements] {
		if _, err := conn.ExecContext(ctx, workload.InsertSQL, args...); err != nil {
			_, _ = conn.ExecContext(ctx, "ABORT BATCH")
			return 0, fmt.Errorf("batched statement %d: %w", i, err)
		}
	}
	return execCount(conn.ExecContext(ctx, "RUN BATCH"))
}

// apply writes the mutations with the driver connection's Apply.
func (a *spannerfastArm) apply(ctx context.Context, w *workload.Workload) (uint64, error) {
	conn, err := a.db.Conn(ctx)
	if err != nil {
		return 0, err
	}
	defer conn.Close()
	err = conn.Raw(func(dc any) error {
		ap, ok := dc.(applier)
		if !ok {
			return &unavailableError{reason: fmt.Sprintf("the driver connection (%T) has no Apply method", dc)}
		}
		_, err := ap.Apply(ctx, a.writes.mutations[:w.Statements])
		return err
	})
	if err != nil {
		return 0, err
	}
	return uint64(w.Statements), nil
}
