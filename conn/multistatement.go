package conn

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"

	"google.golang.org/grpc/status"

	"github.com/spannerfast/spannerfast/internal/sqlparse"
	"github.com/spannerfast/spannerfast/rows"
)

// Several statements in one string, separated by semicolons, as
// go-sql-spanner runs them (its rules, PostgreSQL's in spirit):
//
//   - They run in order on the connection; BEGIN, COMMIT, SET ... among them
//     act on the statements after them.
//   - Outside a transaction, the statements run in an implicit transaction:
//     it begins at a query, DML or unknown statement that is not the last
//     of the string and is not followed directly by DDL; it is read-only
//     when only queries follow up to the next COMMIT, ROLLBACK or DDL (and
//     no BEGIN leaves a transaction open at the end), else read-write. It
//     is committed before DDL (DDL is not transactional), by a COMMIT or
//     ROLLBACK in the string, or at the end of the string when every
//     statement succeeded; a failure rolls it back. BEGIN in it makes it
//     explicit: it then stays open after the string, like a transaction
//     begun by BEGIN. An open transaction (BeginTx, BEGIN) is used as it
//     is and never ended by the string itself.
//   - Consecutive DML statements without THEN RETURN go as one
//     ExecuteBatchDml (a DML batch: START BATCH DML ... RUN BATCH), and
//     consecutive DDL statements as one DDL batch (one UpdateDatabaseDdl, or
//     a CreateDatabase with extra statements), unless a batch is already
//     active (then each statement goes into it).
//   - Every statement receives the whole argument list, go-sql-spanner's
//     rule: named arguments bind by name in whichever statements use them,
//     and `?` numbers from 1 again in each statement.
//   - The first failure stops the rest; its *StatementError says which
//     statement failed and keeps the gRPC code (and unwraps to a
//     *BatchError when a batch failed).
//
// Unlike go-sql-spanner, a client-side statement other than BEGIN, COMMIT
// and ROLLBACK (SET, SHOW, START BATCH...) does not begin the implicit
// transaction: it begins at the next query or DML statement instead, so
// that e.g. `SET autocommit_dml_mode = 'PARTITIONED_NON_ATOMIC'; UPDATE
// ...` runs the UPDATE as it would run alone. A query in a read-write
// transaction is read to its end before the next statement runs, so that
// the transaction never commits while its results are still streaming.
// ExecContext runs strings of several statements too (go-sql-spanner's
// ExecContext does not): by the same rules, with a count per statement.
//
// The parser marks such text (sqlparse.Statement.Multi) while scanning it
// once for the cache, so a single statement costs nothing more.

// StatementError is the failure of one statement of a string holding
// several. The statements before it ran (those of an implicit transaction
// were rolled back).
type StatementError struct {
	Index int    // the failing statement, from 0
	Last  int    // the last statement of the batch it was sent in; Index otherwise
	Count int    // statements in the string
	SQL   string // the failing statement
	Err   error
}

func (e *StatementError) Error() string {
	which := fmt.Sprintf("statement %d of %d", e.Index+1, e.Count)
	if e.Last > e.Index {
		which = fmt.Sprintf("statements %d-%d of %d (sent as one batch)", e.Index+1, e.Last+1, e.Count)
	}
	return fmt.Sprintf("spannerfast: %s failed: %v (statement: %q)", which, e.Err, e.SQL)
}

func (e *StatementError) Unwrap() error { return e.Err }

// GRPCStatus keeps the failing statement's code.
func (e *StatementError) GRPCStatus() *status.Status {
	return status.New(status.Code(e.Err), e.Error())
}

// stmtClass is what a statement of a string of several is, for the rules
// above.
type stmtClass uint8

const (
	classQuery        stmtClass = iota // SELECT, WITH, GRAPH, FROM
	classDML                           // INSERT, UPDATE, DELETE without THEN RETURN
	classDMLReturning                  // DML with THEN RETURN
	classDDL
	classBegin
	classEnd    // COMMIT, ROLLBACK
	classClient // other client-side statements
	classOther  // a keyword the driver does not know (sent as a query), or unparsable
)

// multiPlan is the statements of one string, parsed once, and their
// classes.
type multiPlan struct {
	stmts   []string
	classes []stmtClass
	parsed  []statement
	errs    []error // why statement i does not parse; reported when it runs
}

func (c *Conn) splitMulti(query string) (multiPlan, error) {
	stmts, err := sqlparse.SplitDialect(c.statements.Dialect(), query)
	if err != nil {
		return multiPlan{}, err
	}
	n := len(stmts)
	p := multiPlan{stmts: stmts, classes: make([]stmtClass, n), parsed: make([]statement, n), errs: make([]error, n)}
	for i, q := range stmts {
		p.parsed[i], p.errs[i] = c.parse(q)
		p.classes[i] = classify(p.parsed[i], p.errs[i])
	}
	return p, nil
}

// execStatement runs statement i through ExecContext's path.
func (c *Conn) execStatement(ctx context.Context, p multiPlan, i int, args []driver.NamedValue) (driver.Result, error) {
	st, err := c.readyToRun(p.parsed[i], p.errs[i])
	if err != nil {
		return nil, err
	}
	return c.execParsed(ctx, st, p.stmts[i], args)
}

func classify(st statement, err error) stmtClass {
	switch {
	case err != nil:
		return classOther
	case st.kind == kindDML:
		if st.thenReturn {
			return classDMLReturning
		}
		return classDML
	case st.kind == kindDDL:
		return classDDL
	case st.kind == kindClientBegin:
		return classBegin
	case st.kind == kindClientCommit, st.kind == kindClientRollback:
		return classEnd
	case st.kind >= kindClientSet:
		return classClient
	}
	switch st.keyword {
	case "SELECT", "WITH", "GRAPH", "FROM":
		return classQuery
	}
	return classOther
}

// startsImplicit reports whether statement i begins an implicit
// transaction (when the connection has none).
func (p multiPlan) startsImplicit(i int) bool {
	if i == len(p.stmts)-1 {
		return false // a transaction of one statement is what it gets anyway
	}
	switch p.classes[i] {
	case classQuery, classDML, classDMLReturning, classOther:
		return p.classes[i+1] != classDDL // DDL would commit it at once
	}
	return false
}

// implicitReadOnly reports whether the implicit transaction that statement
// i begins can be read-only: only queries until it ends, and no BEGIN
// leaving a transaction open at the end of the string.
func (p multiPlan) implicitReadOnly(i int) bool {
	if p.classes[i] != classQuery {
		return false
	}
	explicitAfter := false
	for _, cl := range p.classes[i+1:] {
		switch cl {
		case classEnd, classDDL:
			return true
		case classBegin:
			explicitAfter = true
		case classDML, classDMLReturning, classOther:
			return false
		}
	}
	return !explicitAfter
}

// runLength is the number of statements from i of the class of statement
// i, when at least two in a row can go as one batch; 1 otherwise.
func (p multiPlan) runLength(i int) int {
	cl := p.classes[i]
	if cl != classDDL && cl != classDML {
		return 1
	}
	j := i + 1
	for j < len(p.stmts) && p.classes[j] == cl {
		j++
	}
	return j - i
}

// multiRun is one run of a string of several statements: their results
// (QueryContext) or counts (ExecContext), and the failure that stopped
// them.
type multiRun struct {
	p        multiPlan
	query    bool
	results  []driver.Rows
	counts   []int64
	err      error // a *StatementError
	implicit bool  // c.tx is the implicit transaction of this run
}

// fail records the failure of statement i (of a batch ending at last).
func (r *multiRun) fail(i, last int, err error) {
	r.err = &StatementError{Index: i, Last: max(last, i), Count: len(r.p.stmts), SQL: r.p.stmts[i], Err: err}
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
	p, err := c.splitMulti(query)
	if err != nil {
		return nil, err
	}
	r := &multiRun{p: p, query: queryMode}
	for i := 0; i < len(p.stmts) && r.err == nil; {
		if err := c.implicitBoundary(ctx, r, i); err != nil {
			r.fail(i, i, err)
			break
		}
		if n := p.runLength(i); n > 1 && !c.inBatch() && (p.classes[i] == classDML || c.tx == nil) {
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
	case c.tx == nil && !c.inBatch() && r.p.startsImplicit(i):
		if _, err := c.BeginTx(ctx, driver.TxOptions{ReadOnly: r.p.implicitReadOnly(i)}); err != nil {
			return err
		}
		r.implicit = true
	case r.implicit && c.tx != nil && r.p.classes[i] == classDDL:
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
	q := r.p.stmts[i]
	if r.p.classes[i] == classBegin && r.implicit {
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
	st, err := c.readyToRun(r.p.parsed[i], r.p.errs[i])
	var res driver.Rows
	if err == nil {
		res, err = c.queryParsed(ctx, st, q, args, opts)
	}
	if more, ok := res.(driver.RowsNextResultSet); err == nil && c.tx != nil && !c.tx.ReadOnly() && !(ok && more.HasNextResultSet()) {
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
	if r.p.classes[i] == classDDL {
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
			if r.p.classes[i] == classDDL {
				r.ran(make([]int64, done)...)
			} else {
				r.ran(be.BatchUpdateCounts[:done]...)
			}
		}
		r.fail(i+done, j-1, err)
		return
	}
	counts := make([]int64, j-i)
	if dr, ok := res.(*Result); ok && r.p.classes[i] == classDML {
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
	return rows.Sequence(r.results, r.err), nil
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
