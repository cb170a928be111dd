package conn

import (
	"context"
	"database/sql/driver"
	"errors"

	"github.com/spannerfast/spannerfast/internal/multistmt"
	"github.com/spannerfast/spannerfast/rows"
)

// Several statements in one string, separated by semicolons, run by the
// rules of internal/multistmt, which plans them (classes, the implicit
// transaction, batches); here they run on the connection. A query in a
// read-write transaction is read to its end before the next statement
// runs, so that the transaction never commits while its results are still
// streaming. ExecContext runs strings of several statements too
// (go-sql-spanner's ExecContext does not): by the same rules, with a count
// per statement. The parser marks such text (sqlparse.Statement.Multi)
// while scanning it once for the cache, so a single statement costs
// nothing more.

// StatementError is the failure of one statement of a string holding
// several (multistmt.StatementError).
type StatementError = multistmt.StatementError

// execStatement runs statement i through ExecContext's path.
func (c *Conn) execStatement(ctx context.Context, p *multistmt.Plan, i int, args []driver.NamedValue) (driver.Result, error) {
	st, err := c.readyToRun(toStatement(p.Parsed[i]), p.Errs[i])
	if err != nil {
		return nil, err
	}
	return c.execParsed(ctx, st, p.Stmts[i], args)
}

// multiRun is one run of a string of several statements: their results
// (QueryContext) or counts (ExecContext), and the failure that stopped
// them.
type multiRun struct {
	p        *multistmt.Plan
	query    bool
	results  []driver.Rows
	counts   []int64
	err      error // a *StatementError
	implicit bool  // c.tx is the implicit transaction of this run
}

// fail records the failure of statement i (of a batch ending at last).
func (r *multiRun) fail(i, last int, err error) {
	r.err = r.p.Fail(i, last, err)
}

// ran records the outcome of n statements that gave no rows.
func (r *multiRun) ran(counts ...int64) {
	for _, n := range counts {
		if r.query {
			r.results = append(r.results, rows.NoRows())
		} else {
			r.counts = append(r.counts, n)
		}
	}
}

// runMulti runs the statements of query by the rules above. A failure
// that leaves nothing to return (the first statement, or the end of the
// implicit transaction) is returned as the error; a later one is in
// multiRun.err, the results before it kept.
func (c *Conn) runMulti(ctx context.Context, query string, args []driver.NamedValue, queryMode bool, opts QueryOptions) (*multiRun, error) {
	p, err := multistmt.New(c.statements, query)
	if err != nil {
		return nil, err
	}
	r := &multiRun{p: p, query: queryMode}
	for i := 0; i < len(p.Stmts) && r.err == nil; {
		if err := c.implicitBoundary(ctx, r, i); err != nil {
			r.fail(i, i, err)
			break
		}
		if n := p.Batch(i, c.tx != nil, c.inBatch()); n > 0 {
			c.runBatchOf(ctx, r, i, i+n, args)
			i += n
		} else {
			c.runOne(ctx, r, i, args, opts)
			i++
		}
		if c.tx == nil {
			r.implicit = false // ended by COMMIT, ROLLBACK or a failure
		}
	}
	if err := c.endImplicit(ctx, r); err != nil {
		r.close()
		return nil, err
	}
	if r.err != nil && len(r.results)+len(r.counts) == 0 {
		return nil, r.err
	}
	return r, nil
}

// implicitBoundary begins the implicit transaction at statement i, or
// commits it before DDL.
func (c *Conn) implicitBoundary(ctx context.Context, r *multiRun, i int) error {
	switch {
	case c.tx == nil && !c.inBatch() && r.p.StartsImplicit(i):
		if _, err := c.BeginTx(ctx, driver.TxOptions{ReadOnly: r.p.ImplicitReadOnly(i)}); err != nil {
			return err
		}
		r.implicit = true
	case r.implicit && c.tx != nil && r.p.Classes[i] == multistmt.DDL:
		r.implicit = false
		return c.commit(ctx)
	}
	return nil
}

// endImplicit ends the implicit transaction still open after the last
// statement: committed if every statement succeeded, else rolled back.
func (c *Conn) endImplicit(ctx context.Context, r *multiRun) error {
	if !r.implicit || c.tx == nil {
		return nil
	}
	r.implicit = false
	if r.err != nil {
		_ = c.rollback(ctx) // the statement's failure is the error to report
		return nil
	}
	return c.commit(ctx)
}

// runOne runs statement i alone, as QueryContext or ExecContext would.
func (c *Conn) runOne(ctx context.Context, r *multiRun, i int, args []driver.NamedValue, opts QueryOptions) {
	q := r.p.Stmts[i]
	if r.p.Classes[i] == multistmt.Begin && r.implicit {
		// BEGIN in the implicit transaction makes it explicit.
		r.implicit = false
		r.ran(0)
		return
	}
	if !r.query {
		res, err := c.execStatement(ctx, r.p, i, args)
		if err != nil {
			r.fail(i, i, err)
			return
		}
		var n int64
		if dr, ok := res.(*Result); ok {
			n = dr.rowsAffected
		}
		r.ran(n)
		return
	}
	st, err := c.readyToRun(toStatement(r.p.Parsed[i]), r.p.Errs[i])
	buffer := c.tx != nil && !c.tx.ReadOnly()
	if buffer {
		// rows.Buffer keeps the values: they must own their memory, which
		// raw mode's do not (they alias memory the next row reuses).
		safe := false
		opts.RawDecode = &safe
	}
	var res driver.Rows
	if err == nil {
		res, err = c.queryParsed(ctx, st, q, args, opts)
	}
	if more, ok := res.(driver.RowsNextResultSet); err == nil && buffer && !(ok && more.HasNextResultSet()) {
		// Read to the end before anything else runs in the transaction
		// (not a statement with extra result sets of its own: ExecOptions'
		// metadata and stats).
		var b *rows.Buffered
		if b, err = rows.Buffer(res); err == nil {
			res = b
		}
	}
	if err != nil {
		r.fail(i, i, err)
		return
	}
	r.results = append(r.results, res)
}

// runBatchOf runs statements i..j-1 (all DML, or all DDL) as one batch,
// START BATCH ... RUN BATCH. A *BatchError says how many ran before the
// failing one.
func (c *Conn) runBatchOf(ctx context.Context, r *multiRun, i, j int, args []driver.NamedValue) {
	var err error
	if r.p.Classes[i] == multistmt.DDL {
		err = c.startBatchDDL()
	} else {
		err = c.startBatchDML()
	}
	if err != nil {
		r.fail(i, j-1, err)
		return
	}
	for k := i; k < j; k++ {
		if _, err := c.execStatement(ctx, r.p, k, args); err != nil {
			c.abortBatch()
			r.fail(k, k, err)
			return
		}
	}
	res, err := c.runBatch(ctx)
	if err != nil {
		var be *BatchError
		done := 0
		if errors.As(err, &be) {
			done = min(len(be.BatchUpdateCounts), j-i-1)
			if r.p.Classes[i] == multistmt.DDL {
				r.ran(make([]int64, done)...)
			} else {
				r.ran(be.BatchUpdateCounts[:done]...)
			}
		}
		r.fail(i+done, j-1, err)
		return
	}
	counts := make([]int64, j-i)
	if dr, ok := res.(*Result); ok && r.p.Classes[i] == multistmt.DML {
		copy(counts, dr.batchCounts)
	}
	r.ran(counts...)
}

// close closes the results of a run that is given up.
func (r *multiRun) close() {
	for _, rows := range r.results {
		_ = rows.Close()
	}
}

// queryMulti runs the statements and returns their results as one Rows
// with a result set per statement (Rows.NextResultSet). A failure of the
// first statement is returned here; a later one ends the result sets
// before it: NextResultSet reports it (sql.Rows.Err after NextResultSet
// returned false).
func (c *Conn) queryMulti(ctx context.Context, query string, args []driver.NamedValue, opts QueryOptions) (driver.Rows, error) {
	r, err := c.runMulti(ctx, query, args, true, opts)
	if err != nil {
		return nil, err
	}
	return rows.Sequence(r.results, c.statementFailed(r.err)), nil
}

// execMulti runs the statements through ExecContext. RowsAffected is the
// sum of the statements' counts and BatchRowsAffected has one count per
// statement (0 for statements that change no rows). Any failure is the
// error.
func (c *Conn) execMulti(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	r, err := c.runMulti(ctx, query, args, false, QueryOptions{})
	if err != nil {
		return nil, err
	}
	if r.err != nil {
		return nil, r.err
	}
	res := &Result{batchCounts: r.counts}
	if res.batchCounts == nil {
		res.batchCounts = []int64{}
	}
	for _, n := range r.counts {
		res.rowsAffected += n
	}
	return res, nil
}
