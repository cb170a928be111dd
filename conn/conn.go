package conn

import (
	"context"
	"database/sql/driver"
	"errors"
	"os"
	"strconv"
	"strings"
	"time"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/spannerfast/spannerfast/dsn"
	"github.com/spannerfast/spannerfast/internal/connstate"
	"github.com/spannerfast/spannerfast/internal/params"
	"github.com/spannerfast/spannerfast/internal/sqlparse"
	"github.com/spannerfast/spannerfast/internal/stmtopts"
	"github.com/spannerfast/spannerfast/internal/stream"
	"github.com/spannerfast/spannerfast/internal/transport"
	txnengine "github.com/spannerfast/spannerfast/internal/txn"
	"github.com/spannerfast/spannerfast/rows"
)

// Conn is one database/sql connection. Connections of a connector share its
// Client (channels and the multiplexed session); a Conn adds per-connection
// settings. Like every driver.Conn it is used by one goroutine at a time.
type Conn struct {
	client     *transport.Client
	statements *sqlparse.Cache // the connector's parse cache (statement.go)
	closed     bool

	// state holds the connection's properties (SET changes them here
	// only), its extension variables, SET LOCAL values, the results SHOW
	// VARIABLE reports and the one-shot options of the next transaction.
	state connstate.Store

	pending stmtopts.Pending // options removed from the current statement's arguments
	// convert encodes an argument (CheckNamedValue): params.Convert, or
	// params.ConvertPostgreSQL on a PostgreSQL-dialect database, chosen
	// with the parse cache's dialect, never per argument.
	convert func(*driver.NamedValue) error

	// stateUnknown marks a connection that an interrupted operation left in
	// a state the driver cannot vouch for; database/sql then discards it.
	stateUnknown bool

	roSelector  *spannerpb.TransactionSelector // for roStaleness, shared by requests
	roStaleness dsn.Staleness

	tx    *txn   // the open transaction, if any
	batch *batch // the active DDL or DML batch, if any (batch.go)

	batchRO *txn          // c.tx when it is a batch read-only transaction (partitions.go)
	stmtReq *QueryOptions // request fields of the running statement's options (stmtopts.go)

	// streamCtx keeps the context of a query whose call ended normally,
	// for the next query made with the same caller context.
	streamCtx stream.ContextPool

	sessions             transport.SessionLease // the session of its requests and the emulator's gate (session.go)
	txnengine.Savepoints                        // the Go API of savepoints: Savepoint, RollbackToSavepoint, ReleaseSavepoint (clientstmt_txn.go)
}

var (
	_ driver.Conn               = (*Conn)(nil)
	_ driver.QueryerContext     = (*Conn)(nil)
	_ driver.ExecerContext      = (*Conn)(nil)
	_ driver.ConnPrepareContext = (*Conn)(nil)
	_ driver.ConnBeginTx        = (*Conn)(nil)
	_ driver.Pinger             = (*Conn)(nil)
	_ driver.NamedValueChecker  = (*Conn)(nil)
	_ driver.Validator          = (*Conn)(nil)
	_ driver.SessionResetter    = (*Conn)(nil)
)

// New returns a connection on c that parses through statements, the
// connector's cache (NewStatementCache; nil: none).
func New(c *transport.Client, statements *sqlparse.Cache) *Conn {
	cn := &Conn{client: c, state: connstate.New(c.Config()), sessions: c.NewSessionLease()}
	cn.Savepoints = txnengine.NewSavepoints(cn.savepoint)
	cn.setStatements(statements)
	return cn
}

// setStatements makes statements the connection's parse cache, and its
// dialect the one its arguments are converted for.
func (c *Conn) setStatements(statements *sqlparse.Cache) {
	c.statements, c.convert = statements, params.Convert
	if statements.Dialect() == sqlparse.PostgreSQL {
		c.convert = params.ConvertPostgreSQL
	}
}

// SetDatabase gives a new connection, before its first statement, what it
// learns of its database when it opens: cfg, the client's configuration
// with the database's dialect (transport.Client.DialectConfig), which its
// properties start at and RESET goes back to, and statements, the
// connector's parse cache for that dialect.
func (c *Conn) SetDatabase(cfg *dsn.Config, statements *sqlparse.Cache) {
	c.state = connstate.New(cfg)
	c.setStatements(statements)
}

// QueryStrong runs query, which has no parameters, in a single-use strong
// read on the connection's session with none of the connection's statement
// properties (tags, priority, staleness, partitioning...), as the official
// client's Single().Query: for what the driver asks the database itself.
func (c *Conn) QueryStrong(ctx context.Context, query string) (driver.Rows, error) {
	session, err := c.session(ctx)
	if err != nil {
		return nil, err
	}
	req := &spannerpb.ExecuteSqlRequest{Session: session, Sql: query, Transaction: &spannerpb.TransactionSelector{
		Selector: &spannerpb.TransactionSelector_SingleUse{SingleUse: &spannerpb.TransactionOptions{
			Mode: &spannerpb.TransactionOptions_ReadOnly_{ReadOnly: &spannerpb.TransactionOptions_ReadOnly{
				TimestampBound: &spannerpb.TransactionOptions_ReadOnly_Strong{Strong: true}}}}}}}
	// Not the application's statement: statement_timeout does not bound
	// it (the caller's context does), as go-sql-spanner's detection runs
	// outside its statement properties.
	r, err := c.streamUntil(ctx, new(queryRows), req, false, rows.Options{}, time.Time{}, false)
	if err != nil {
		return nil, err
	}
	return r, nil
}

// props returns the connection's property values in effect (read them;
// change them through c.state).
func (c *Conn) props() *dsn.Config { return c.state.Values() }

// PoisonEnv names the environment variable that turns on poisoning of
// released raw buffers for every connection (a test aid, like the DSN's
// poison_raw_buffers).
const PoisonEnv = "SPANNERFAST_POISON_RAW_BUFFERS"

var poisonFromEnv, _ = strconv.ParseBool(os.Getenv(PoisonEnv))

// errNotYet marks statement kinds that this version does not run yet.
var errNotYet = errors.New("not supported yet")

// QueryContext runs a query in autocommit mode: a single-use read-only
// transaction at read_only_staleness. The first response is read before it
// returns, so a failing query fails here.
func (c *Conn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	opts, args := c.pending.Take(args)
	scope, err := c.withStatementOptions(opts)
	defer scope.end()
	if err != nil {
		return nil, c.statementFailed(err)
	}
	r, err := c.query(ctx, query, args, opts)
	return r, c.statementFailed(err)
}

// parseToRun parses a statement that is about to run. A statement that
// fails to parse still spends the one-shot statement_tag (it belonged to
// that statement), and SET LOCAL values of a transaction that ended are
// settled before anything else runs.
func (c *Conn) parseToRun(query string) (statement, error) {
	if c.closed {
		return statement{}, driver.ErrBadConn
	}
	st, err := c.parse(query)
	return c.readyToRun(st, err)
}

// readyToRun is parseToRun for a text already parsed: the statements of a
// string of several were parsed when it was split (multistatement.go).
func (c *Conn) readyToRun(st statement, err error) (statement, error) {
	if c.closed {
		return statement{}, driver.ErrBadConn
	}
	if err != nil {
		c.takeStatementTag()
		return statement{}, err
	}
	if !st.multi {
		c.settleLocals()
		if err := c.runnable(st); err != nil {
			return statement{}, err
		}
	}
	return st, nil
}

// query runs a statement that returns rows, with the options that came with
// it. Conn.QueryContext and stmt.QueryContext share it.
func (c *Conn) query(ctx context.Context, query string, args []driver.NamedValue, opts QueryOptions) (driver.Rows, error) {
	st, err := c.parseToRun(query)
	if err != nil {
		return nil, err
	}
	opts.NoteQuery(st.multi)
	return c.queryParsed(ctx, st, query, args, opts)
}

// queryParsed is query once query is parsed into st.
func (c *Conn) queryParsed(ctx context.Context, st statement, query string, args []driver.NamedValue, opts QueryOptions) (driver.Rows, error) {
	if st.multi {
		return c.queryMulti(ctx, query, args, opts)
	}
	if opts.ReturnMetadata || opts.ReturnStats {
		r, err := c.queryOne(ctx, st, query, args, opts)
		if err != nil {
			return nil, err
		}
		return rows.WithResultSets(r, opts.ReturnMetadata, opts.ReturnStats), nil
	}
	return c.queryOne(ctx, st, query, args, opts)
}

// queryOne is query for one statement.
func (c *Conn) queryOne(ctx context.Context, st statement, query string, args []driver.NamedValue, opts QueryOptions) (driver.Rows, error) {
	if opts.Partition != nil {
		// A partition carries its statement: the text is not run.
		c.takeStatementTag()
		return c.runPartition(ctx, opts.Partition, opts)
	}
	if r, ok := clientRouteOf(st); ok {
		return c.queryClient(ctx, r, st, args, opts)
	}
	if r, ok, err := c.queryPartitioned(ctx, st, args, opts); ok {
		return r, err
	}
	// Taken before anything can fail: a one-shot statement_tag belongs to
	// this statement whether or not it gets sent.
	tag := c.takeStatementTag()
	if st.kind == kindDDL {
		if _, err := c.execDDL(ctx, st, query); err != nil {
			return nil, err
		}
		return rows.NoRows(), nil
	}
	if c.tx == nil && st.kind != kindDML {
		return c.queryAutocommit(ctx, st, args, tag, opts)
	}
	if err := c.flushAutoBatch(ctx); err != nil { // the query sees the batch's changes
		return nil, err
	}
	req, err := c.requestFor(ctx, st, args)
	if err != nil {
		return nil, err
	}
	if c.tx != nil {
		if err := c.setDirectedRead(req, c.tx.ReadOnly()); err != nil {
			return nil, err
		}
		req.RequestOptions = c.stmtReq.WithClientContext(c.tx.RequestOptions(tag))
		return c.txQuery(ctx, c.tx, req, opts)
	}
	ctx, cancel := c.statementContext(ctx)
	defer cancel() // the result is buffered and committed before returning
	req.RequestOptions = c.stmtReq.WithClientContext(c.requestOptions(tag))
	if c.props().AutocommitDMLMode == dsn.AutocommitPartitionedNonAtomic && !st.thenReturn {
		// As go-sql-spanner: DML that returns no rows runs as partitioned
		// DML through QueryContext too.
		if _, err := c.execAutocommit(ctx, &txnengine.DML{Req: req}, st.keyword); err != nil {
			return nil, err
		}
		return rows.NoRows(), nil
	}
	return c.queryAutocommitDML(ctx, req, opts)
}

// queryAutocommit runs a query in a single-use read-only transaction. Its
// request is built inside the query's own allocation (queryRows).
func (c *Conn) queryAutocommit(ctx context.Context, st statement, args []driver.NamedValue, tag string, opts QueryOptions) (driver.Rows, error) {
	qr := new(queryRows)
	req := &qr.req
	if err := c.fillRequest(ctx, st, args, req); err != nil {
		return nil, err
	}
	if err := c.setDirectedRead(req, true); err != nil {
		return nil, err
	}
	req.Transaction = c.singleUseReadOnly()
	req.RequestOptions = c.stmtReq.WithClientContext(c.requestOptions(tag))
	r, err := c.streamIn(ctx, qr, req, false, c.rowsOptions(opts))
	if isSessionNotFound(err) {
		// The server lost the session (it never does so silently for a
		// live multiplexed session, but it may after a long idle or a
		// server restart). Nothing was returned to the caller yet, so
		// replace the session and run the query once more.
		c.invalidateSession(req.Session)
		if req.Session, err = c.session(ctx); err != nil {
			return nil, err
		}
		r, err = c.stream(ctx, req, false, c.rowsOptions(opts))
	}
	if err != nil {
		return nil, err
	}
	c.state.NoteRead(r.ReadTimestamp())
	return r, nil
}

// requestFor builds the request of a parsed statement: its SQL with
// parameters bound, the session and the query options. The caller adds the
// transaction selector and request options.
func (c *Conn) requestFor(ctx context.Context, st statement, args []driver.NamedValue) (*spannerpb.ExecuteSqlRequest, error) {
	req := new(spannerpb.ExecuteSqlRequest)
	if err := c.fillRequest(ctx, st, args, req); err != nil {
		return nil, err
	}
	return req, nil
}

// fillRequest is requestFor into req, which must be zero.
func (c *Conn) fillRequest(ctx context.Context, st statement, args []driver.NamedValue, req *spannerpb.ExecuteSqlRequest) error {
	sql, values, types, err := params.Bind(st.sql, st.names, args, c.props().SendTypedStrings)
	if err != nil {
		return err
	}
	session, err := c.session(ctx)
	if err != nil {
		return err
	}
	req.Session, req.Sql, req.Params, req.ParamTypes = session, sql, values, types
	req.QueryOptions = stmtopts.OptimizerOptions(c.props())
	c.stmtReq.ApplyTo(req)
	return nil
}

// isSessionNotFound reports Spanner's "Session not found" error.
func isSessionNotFound(err error) bool {
	s, ok := status.FromError(err)
	return ok && s.Code() == codes.NotFound && strings.Contains(s.Message(), "Session not found")
}

// stream runs a streaming query and returns its Rows once the first
// response arrived. Transient failures, whether opening the call, before the
// first response or mid-stream, are retried with backoff until ctx (with
// statement_timeout) ends.
func (c *Conn) stream(ctx context.Context, req *spannerpb.ExecuteSqlRequest, leader bool, ro rows.Options) (*rows.Rows, error) {
	return c.streamIn(ctx, new(queryRows), req, leader, ro)
}

// streamIn is stream in qr, which must be new.
func (c *Conn) streamIn(ctx context.Context, qr *queryRows, req *spannerpb.ExecuteSqlRequest, leader bool, ro rows.Options) (*rows.Rows, error) {
	d, hasDeadline := c.statementDeadline()
	return c.streamUntil(ctx, qr, req, leader, ro, d, hasDeadline)
}

// streamUntil is streamIn bounded by deadline d (when hasDeadline) instead
// of the statement's.
func (c *Conn) streamUntil(ctx context.Context, qr *queryRows, req *spannerpb.ExecuteSqlRequest, leader bool, ro rows.Options, d time.Time, hasDeadline bool) (*rows.Rows, error) {
	q := &qr.stream
	base := q.Prepare(ctx, req, c.client, &c.streamCtx, d, hasDeadline)
	// The metadata go on top, so that the cancellable context below them
	// depends on the caller's context only.
	callCtx := c.client.StreamContext(base, &qr.md, req.Session, leader)
	var resend stream.Reselector
	if req.GetTransaction().GetBegin() != nil {
		resend = &qr.begin
	}
	qr.retry.tel = c.client.Telemetry()
	q.Start(callCtx, c.props().MaxBufferedBytes, &qr.retry, resend)
	// Init reads the first response, so opening the call and its transient
	// failures happen (and are retried) in there; on error it closes the
	// stream, which cancels the call. DirectExecuteContext bounds the wait.
	if err := q.Bound(c.stmtReq.DirectExecuteContext())(qr.rows.Init(q, ro), &qr.rows); err != nil {
		return nil, err
	}
	return &qr.rows, nil
}

// rowsOptions are the options of a statement's rows (see
// stmtopts.QueryOptions.RowsOptions).
func (c *Conn) rowsOptions(o QueryOptions) rows.Options {
	ro := o.RowsOptions(c.props(), poisonFromEnv)
	ro.Errors = (*rowsErrors)(c) // statementFailed, on the error path only
	return ro
}

// singleUseReadOnly returns the transaction selector of autocommit queries.
// Requests only read it, so one is built per staleness setting and shared.
func (c *Conn) singleUseReadOnly() *spannerpb.TransactionSelector {
	if c.roSelector == nil || !c.roStaleness.Equal(c.props().ReadOnlyStaleness) {
		c.roStaleness = c.props().ReadOnlyStaleness
		c.roSelector = &spannerpb.TransactionSelector{Selector: &spannerpb.TransactionSelector_SingleUse{
			SingleUse: &spannerpb.TransactionOptions{Mode: &spannerpb.TransactionOptions_ReadOnly_{
				ReadOnly: c.readOnlyOptions(),
			}},
		}}
	}
	return c.roSelector
}

// readOnlyOptions asks for the read timestamp too, as the official client
// does, so SHOW VARIABLE read_timestamp can answer after a query.
func (c *Conn) readOnlyOptions() *spannerpb.TransactionOptions_ReadOnly {
	ro := c.props().ReadOnlyStaleness.ReadOnly()
	ro.ReturnReadTimestamp = true
	return ro
}

// takeStatementTag returns statement_tag for a statement about to run and
// clears it: it tags only the next statement, as go-sql-spanner's does.
func (c *Conn) takeStatementTag() string {
	return c.state.TakeStatementTag()
}

// requestOptions returns the priority and tag options of a statement
// outside a transaction (see stmtopts.RequestOptions).
func (c *Conn) requestOptions(tag string) *spannerpb.RequestOptions {
	return stmtopts.RequestOptions(c.props(), tag)
}

// ExecContext runs DML, DDL and client-side statements (SET, RESET, batch
// statements).
func (c *Conn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	opts, args := c.pending.Take(args)
	scope, err := c.withStatementOptions(opts)
	defer scope.end()
	if err != nil {
		return nil, c.statementFailed(err)
	}
	r, err := c.exec(ctx, query, args)
	return r, c.statementFailed(err)
}

// exec runs a statement that returns no rows. Conn.ExecContext and
// stmt.ExecContext share it.
func (c *Conn) exec(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	st, err := c.parseToRun(query)
	if err != nil {
		return nil, err
	}
	return c.execParsed(ctx, st, query, args)
}

// execParsed is exec once query is parsed into st.
func (c *Conn) execParsed(ctx context.Context, st statement, query string, args []driver.NamedValue) (driver.Result, error) {
	if st.multi {
		return c.execMulti(ctx, query, args)
	}
	if r, ok := clientRouteOf(st); ok {
		return c.execClient(ctx, r, st)
	}
	tag := c.takeStatementTag()
	switch st.kind {
	case kindQuery:
		// go-sql-spanner runs the query and then fails with
		// FailedPrecondition; spannerfast fails the same way without
		// sending it.
		return nil, status.Errorf(codes.FailedPrecondition,
			"spannerfast: Exec of a query (%s ...) returns no rows: run it with QueryContext; nothing was sent", st.keyword)
	case kindDDL:
		return c.execDDL(ctx, st, query)
	}
	ctx, cancel := c.statementContext(ctx)
	defer cancel()
	if r, ok, err := c.autoBatchDML(ctx, st, tag, args); ok || err != nil {
		return r, err
	}
	if b := c.activeBatch(); b != nil && b.kind == batchDML {
		return c.bufferDML(b, st, args)
	}
	req, err := c.requestFor(ctx, st, args)
	if err != nil {
		return nil, err
	}
	s := &txnengine.DML{Req: req}
	if c.tx != nil {
		req.RequestOptions = c.stmtReq.WithClientContext(c.tx.RequestOptions(tag))
		return c.txExec(ctx, c.tx, s, st.keyword)
	}
	req.RequestOptions = c.stmtReq.WithClientContext(c.requestOptions(tag))
	return c.execAutocommit(ctx, s, st.keyword)
}

// Ping runs SELECT 1.
func (c *Conn) Ping(ctx context.Context) error {
	r, err := c.QueryContext(ctx, "SELECT 1", nil)
	if err != nil {
		return err
	}
	dest := make([]driver.Value, 1)
	err = r.Next(dest)
	r.Close()
	if err != nil {
		return err
	}
	return nil
}

// CheckNamedValue accepts every value the parameter encoder can send, so
// database/sql does not narrow spanner.Null*, civil.Date, big.Rat or slices
// to its default types first.
//
// QueryOptions among the arguments are removed and apply to the statement
// they came with only (see stmtopts.Pending).
func (c *Conn) CheckNamedValue(nv *driver.NamedValue) error {
	return c.pending.Check(nv, c.convert)
}

// Prepare returns a statement that runs through the connection.
func (c *Conn) Prepare(query string) (driver.Stmt, error) {
	return c.PrepareContext(context.Background(), query)
}

// PrepareContext returns a statement; Spanner has no server-side prepare, so
// nothing is sent.
func (c *Conn) PrepareContext(_ context.Context, query string) (driver.Stmt, error) {
	return &stmt{conn: c, query: query}, nil
}

// IsValid reports whether the connection can go back to the pool: not
// closed, and in a state the driver knows.
func (c *Conn) IsValid() bool { return !c.closed && !c.stateUnknown && c.tx == nil }

// ResetSession runs when database/sql hands a pooled connection to a new
// user. Everything a previous user changed (SET, a one-shot statement_tag,
// options of an interrupted statement) goes back to the DSN's values, so no
// setting outlives the db.Conn or statement that made it.
//
// A transaction still open (its user gave the connection back without
// ending it) is rolled back first; if that fails the connection is dropped.
func (c *Conn) ResetSession(ctx context.Context) error {
	if c.closed || c.stateUnknown {
		return driver.ErrBadConn
	}
	if c.tx != nil {
		if err := c.rollback(ctx); err != nil {
			return driver.ErrBadConn
		}
	}
	c.batch = nil // a batch never outlives its user
	c.state.ResetAll()
	c.pending = stmtopts.Pending{}
	return nil
}

// Close releases the connection (the connector's session and channels stay
// open). An open transaction (database/sql closes a connection left in one
// without ResetSession) is rolled back, bounded by txn.RollbackTimeout; as
// in go-sql-spanner its failure is not Close's: Spanner ends it itself.
func (c *Conn) Close() error {
	if c.tx != nil && !c.closed {
		_ = c.rollback(context.Background())
	}
	c.closed = true
	c.streamCtx.Close()
	c.sessions.Close()
	return nil
}
