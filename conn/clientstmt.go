package conn

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/spannerfast/spannerfast/dsn"
	"github.com/spannerfast/spannerfast/internal/sqlparse"
)

// Client-side statements change or show this connection's properties; they
// never reach Spanner. They answer as go-sql-spanner's do:
//
//	SET [SPANNER.]name = value           (value quoted or bare; NULL: the default; DEFAULT: the DSN's value)
//	SET my_extension.my_property = value (any name with a dot: kept as text)
//	SET LOCAL name = value               (until the transaction ends)
//	SET TRANSACTION option[, ...]        (the open transaction, before its first statement)
//	SHOW [VARIABLE] [SPANNER.]name       (one row, one column named as written)
//	RESET [SPANNER.]name                 (back to the DSN's value)
//	BEGIN [TRANSACTION] [option[, ...]]
//	COMMIT [TRANSACTION]
//	ROLLBACK [TRANSACTION]
//
// where option is READ ONLY, READ WRITE, ISOLATION LEVEL {SERIALIZABLE |
// REPEATABLE READ} or [NOT] DEFERRABLE (transaction_deferrable for the
// transaction; it has no effect on Spanner and exists for PostgreSQL
// compatibility, which go-sql-spanner offers on PostgreSQL databases only). START is always START BATCH (START TRANSACTION is
// PostgreSQL-only in go-sql-spanner too).
//
// All but SHOW return driver.ResultNoRows from ExecContext and no rows from
// QueryContext.

// lastResults is what the connection's last transaction and read left for
// SHOW VARIABLE commit_timestamp, commit_response and read_timestamp. The
// zero value means a statement or transaction began and nothing has
// committed since; untouched marks a connection (or pooled session) that
// has run nothing yet.
type lastResults struct {
	readTimestamp   time.Time
	commitTimestamp time.Time
	commitResponse  *spannerpb.CommitResponse
	untouched       bool
}

// execClientStatement runs the client-side statements other than SHOW.
func (c *Conn) execClientStatement(ctx context.Context, st statement) (driver.Result, error) {
	var err error
	switch st.kind {
	case kindClientSet:
		err = c.set(st.rest)
	case kindClientReset:
		err = c.reset(variableName(st.rest))
	case kindClientBegin:
		err = c.beginStatement(ctx, st.rest)
	case kindClientCommit, kindClientRollback:
		err = c.endStatement(ctx, st)
	case kindBatchStart, kindBatchRun, kindBatchAbort:
		// RUN BATCH returns the batch's counts.
		return c.execBatchStatement(ctx, st)
	default:
		return nil, status.Errorf(codes.InvalidArgument, "spannerfast: %s does not change anything; use QueryContext", st.keyword)
	}
	if err != nil {
		return nil, err
	}
	return driver.ResultNoRows, nil
}

func (c *Conn) set(rest string) error {
	w, after := firstWord(rest)
	switch w {
	case "TRANSACTION":
		return c.setTransaction(after)
	case "LOCAL":
		return c.setLocal(after)
	}
	name, value, err := splitAssignment(rest)
	if err != nil {
		return err
	}
	if isDefaultValue(rest) {
		return c.reset(name)
	}
	return c.setAssigned(name, value)
}

// setAssigned is SET name = value once parsed; SpannerConn's setters
// (spannerconn.go) share it.
func (c *Conn) setAssigned(name, value string) error {
	c.beforeStateChange()
	if l := c.locals; l != nil && l.has(name) {
		// SET LOCAL's value stays until the transaction ends; this one
		// is what comes back then.
		return l.setSaved(name, value)
	}
	if err := c.setVariable(name, value); err != nil {
		return err
	}
	return c.applyToOpenTxn(name)
}

// setVariable sets a property or an extension variable of the connection.
func (c *Conn) setVariable(name, value string) error {
	if isExtension(name) {
		if c.ext == nil {
			c.ext = map[string]string{}
		}
		c.ext[strings.ToLower(name)] = value
		return nil
	}
	return clientError(c.cfg.SetVariable(name, value))
}

// splitAssignment reads "name = value" (the value quoted or bare).
func splitAssignment(rest string) (name, value string, err error) {
	name, value, ok := strings.Cut(rest, "=")
	if !ok {
		return "", "", status.Errorf(codes.InvalidArgument, "spannerfast: SET needs the form SET name = value, got %q", "SET "+rest)
	}
	return variableName(name), unquote(strings.TrimSpace(value)), nil
}

// isDefaultValue reports whether the value of "name = value" is the bare
// keyword DEFAULT, which sets a property back to the DSN's value, as RESET
// does (go-sql-spanner's SET name = DEFAULT); 'DEFAULT' quoted is text.
func isDefaultValue(rest string) bool {
	_, v, _ := strings.Cut(rest, "=")
	return strings.EqualFold(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), ";")), "DEFAULT")
}

// reset sets a property back to the DSN's value; an extension variable is
// dropped, as go-sql-spanner drops what did not exist when the connection
// was made.
func (c *Conn) reset(name string) error {
	c.beforeStateChange()
	if l := c.locals; l != nil && l.has(name) {
		return l.resetSaved(name, c.client.Config())
	}
	if isExtension(name) {
		delete(c.ext, strings.ToLower(name))
		return nil
	}
	v, err := c.client.Config().Get(name)
	if err == nil {
		err = c.cfg.SetVariable(name, v)
	}
	if err != nil {
		return clientError(err)
	}
	return c.applyToOpenTxn(name)
}

// showVariable answers SHOW VARIABLE with one row of one column, typed as
// go-sql-spanner types it.
func (c *Conn) showVariable(rest string) (driver.Rows, error) {
	w, after := firstWord(rest)
	if w != "VARIABLE" {
		// SHOW name, PostgreSQL's form, which go-sql-spanner accepts on
		// PostgreSQL databases.
		after = rest
	}
	if strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(after), ";")) == "" {
		return nil, status.Errorf(codes.InvalidArgument, "spannerfast: want SHOW VARIABLE name, got %q", "SHOW "+rest)
	}
	written := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(after), ";"))
	v, err := c.variable(variableName(after))
	if err != nil {
		return nil, err
	}
	return &valueRows{columns: []string{written}, values: []driver.Value{v}}, nil
}

// variable returns the value of name: an extension variable, one of the
// results the connection keeps, or a property of its configuration.
func (c *Conn) variable(name string) (driver.Value, error) {
	if isExtension(name) {
		v, ok := c.ext[strings.ToLower(name)]
		if !ok {
			return nil, status.Errorf(codes.InvalidArgument, "spannerfast: unrecognized configuration property %q", strings.ToLower(name))
		}
		return v, nil
	}
	canonical, _ := dsn.CanonicalName(name)
	switch canonical {
	case "commit_timestamp":
		return timeOrNull(c.last.commitTimestamp), nil
	case "read_timestamp":
		return timeOrNull(c.last.readTimestamp), nil
	case "commit_response":
		return c.last.commitResponseText()
	}
	v, err := c.cfg.Value(name)
	return v, clientError(err)
}

// commitResponseText is go-sql-spanner's text of commit_response: "" on a
// connection that has run nothing, "null" once a statement or transaction
// began without a commit to report since (go-sql-spanner clears the value
// then, and a transaction that ran nothing commits nothing: it shows
// "null" too), else the JSON of the official client's CommitResponse (its
// commit timestamp and the commit statistics, if any).
func (l *lastResults) commitResponseText() (driver.Value, error) {
	if l.commitResponse == nil {
		if l.untouched {
			return "", nil
		}
		return "null", nil
	}
	b, err := json.Marshal(struct {
		CommitTs    time.Time
		CommitStats *spannerpb.CommitResponse_CommitStats
	}{l.commitTimestamp, l.commitResponse.GetCommitStats()})
	if err != nil {
		return nil, status.Errorf(codes.Internal, "spannerfast: commit_response: %v", err)
	}
	return string(b), nil
}

// timeOrNull is a TIMESTAMP value: NULL when nothing has set it.
func timeOrNull(t time.Time) driver.Value {
	if t.IsZero() {
		return nil
	}
	return t
}

// isExtension reports whether name (after the spanner. prefix is gone) is
// an extension variable: a name with a dot, which go-sql-spanner keeps as
// text without knowing it.
func isExtension(name string) bool { return strings.Contains(name, ".") }

func variableName(s string) string {
	s = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), ";"))
	if len(s) > 8 && strings.EqualFold(s[:8], "spanner.") {
		s = s[8:]
	}
	return s
}

func unquote(v string) string {
	v = strings.TrimSuffix(v, ";")
	v = strings.TrimSpace(v)
	if len(v) >= 2 && (v[0] == '\'' || v[0] == '"') && v[len(v)-1] == v[0] {
		return v[1 : len(v)-1]
	}
	return v
}

// clientError prefixes a dsn error; it keeps the error's gRPC code
// (InvalidArgument, or FailedPrecondition for a startup or read-only
// property) and its kind for errors.Is.
func clientError(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("spannerfast: %w", err)
}

// valueRows is a result made on the client: one row of values, or no rows
// when done starts true.
type valueRows struct {
	columns []string
	values  []driver.Value
	done    bool
}

func (r *valueRows) Columns() []string { return r.columns }
func (r *valueRows) Close() error      { return nil }
func (r *valueRows) Next(dest []driver.Value) error {
	if r.done {
		return io.EOF
	}
	r.done = true
	copy(dest, r.values)
	return nil
}

// BEGIN, COMMIT and ROLLBACK are BeginTx, Tx.Commit and Tx.Rollback: the
// same code, so they send the same requests. database/sql does not know
// about a transaction begun with BEGIN, so it must be used on one *sql.Conn;
// the connection cannot go back to the pool until COMMIT or ROLLBACK.

// txnOptions are the options of BEGIN and SET TRANSACTION.
type txnOptions struct {
	readOnly   *bool
	isolation  sql.IsolationLevel // LevelDefault when not given
	deferrable *bool
}

// parseTxnOptions reads option[, ...] from words (upper case, a trailing
// ";" allowed).
func parseTxnOptions(stmt string, words []string) (txnOptions, error) {
	var o txnOptions
	if n := len(words); n > 0 && words[n-1] == ";" {
		words = words[:n-1]
	}
	for len(words) > 0 {
		switch {
		case hasWords(words, "READ", "ONLY"), hasWords(words, "READ", "WRITE"):
			ro := words[1] == "ONLY"
			o.readOnly, words = &ro, words[2:]
		case hasWords(words, "ISOLATION", "LEVEL", "SERIALIZABLE"):
			o.isolation, words = sql.LevelSerializable, words[3:]
		case hasWords(words, "ISOLATION", "LEVEL", "REPEATABLE", "READ"):
			o.isolation, words = sql.LevelRepeatableRead, words[4:]
		case hasWords(words, "DEFERRABLE"), hasWords(words, "NOT", "DEFERRABLE"):
			d := words[0] == "DEFERRABLE"
			o.deferrable = &d
			if d {
				words = words[1:]
			} else {
				words = words[2:]
			}
		default:
			return o, status.Errorf(codes.InvalidArgument,
				"spannerfast: %s: invalid transaction option at %q: want READ ONLY, READ WRITE, ISOLATION LEVEL {SERIALIZABLE | REPEATABLE READ} or [NOT] DEFERRABLE",
				stmt, strings.Join(words, " "))
		}
		if len(words) > 0 && words[0] == "," {
			words = words[1:]
		}
	}
	return o, nil
}

func hasWords(words []string, want ...string) bool {
	return len(words) >= len(want) && slices.Equal(words[:len(want)], want)
}

// statementWords splits rest into words and drops one optional leading
// TRANSACTION.
func statementWords(rest string) ([]string, error) {
	words, err := sqlparse.Words(rest)
	if len(words) > 0 && words[0] == "TRANSACTION" {
		words = words[1:]
	}
	return words, err
}

// beginStatement runs BEGIN: BeginTx with the statement's options.
func (c *Conn) beginStatement(ctx context.Context, rest string) error {
	words, err := statementWords(rest)
	if err != nil {
		return err
	}
	o, err := parseTxnOptions("BEGIN", words)
	if err != nil {
		return err
	}
	txo := driver.TxOptions{Isolation: driver.IsolationLevel(o.isolation)}
	if o.readOnly != nil {
		txo.ReadOnly = *o.readOnly
	}
	if _, err := c.BeginTx(ctx, txo); err != nil {
		return err
	}
	// The transaction outlives this statement: the context of COMMIT or
	// ROLLBACK governs its end, not BEGIN's.
	c.tx.ctx = nil
	return c.setDeferrable(o.deferrable)
}

// setDeferrable sets transaction_deferrable for the open transaction when
// BEGIN or SET TRANSACTION said [NOT] DEFERRABLE.
func (c *Conn) setDeferrable(d *bool) error {
	if d == nil {
		return nil
	}
	return c.setLocalValue("transaction_deferrable", strconv.FormatBool(*d))
}

// endStatement runs COMMIT or ROLLBACK.
func (c *Conn) endStatement(ctx context.Context, st statement) error {
	words, err := statementWords(st.rest)
	if err == nil && len(words) > 0 && !(len(words) == 1 && words[0] == ";") {
		err = status.Errorf(codes.InvalidArgument, "spannerfast: %s: unexpected %q", st.keyword, strings.Join(words, " "))
	}
	if err != nil {
		return err
	}
	if st.kind == kindClientCommit {
		err = c.commit(ctx)
	} else {
		err = c.rollback(ctx)
	}
	c.endTransactionLocals()
	return err
}

// setTransaction runs SET TRANSACTION: it changes the open transaction,
// which must not have run a statement yet.
func (c *Conn) setTransaction(rest string) error {
	t := c.tx
	if t == nil {
		return status.Error(codes.FailedPrecondition, "spannerfast: SET TRANSACTION needs an open transaction (BEGIN or BeginTx first)")
	}
	if t.started() {
		return status.Error(codes.FailedPrecondition, "spannerfast: SET TRANSACTION must come before the transaction's first statement")
	}
	words, err := sqlparse.Words(rest)
	if err != nil {
		return err
	}
	if len(words) == 0 {
		return status.Error(codes.InvalidArgument, "spannerfast: SET TRANSACTION: missing option: want READ ONLY, READ WRITE, ISOLATION LEVEL {SERIALIZABLE | REPEATABLE READ} or [NOT] DEFERRABLE")
	}
	o, err := parseTxnOptions("SET TRANSACTION", words)
	if err != nil {
		return err
	}
	if o.readOnly != nil && *o.readOnly != t.readOnly {
		if t, err = c.replaceTxn(t, *o.readOnly); err != nil {
			return err
		}
	}
	if o.isolation != sql.LevelDefault && !t.readOnly {
		iso, err := isolationFor(o.isolation)
		if err != nil {
			return err
		}
		t.opts.IsolationLevel = iso
	}
	return c.setDeferrable(o.deferrable)
}

// replaceTxn swaps a transaction that has not begun for one of the other
// mode, as BeginTx would have made it.
func (c *Conn) replaceTxn(old *txn, readOnly bool) (*txn, error) {
	var t *txn
	if readOnly {
		var err error
		if t, err = c.newReadOnly(old.session); err != nil {
			return nil, err
		}
		if !old.readOnly {
			c.leaveReadWrite()
		}
	} else {
		if old.readOnly {
			// As BeginTx does for a read-write transaction (emulator).
			ctx := old.ctx
			if ctx == nil {
				ctx = context.Background()
			}
			if err := c.enterReadWrite(ctx); err != nil {
				return nil, err
			}
		}
		t = c.newReadWrite(old.session, spannerpb.TransactionOptions_ISOLATION_LEVEL_UNSPECIFIED, c.cfg.RetryAbortsInternally)
	}
	t.ctx = old.ctx
	c.tx = t
	if c.locals != nil && c.locals.tx == old {
		c.locals.tx = t
	}
	return t, nil
}

// started reports whether the transaction has sent or buffered anything.
func (t *txn) started() bool {
	return t.id != nil || t.seqno > 0 || len(t.log) > 0 || len(t.mutations) > 0 || t.mutationKey != nil || !t.readTS.IsZero()
}

// txnLocals is what SET LOCAL changed in a transaction: the connection's
// values to put back when it ends.
type txnLocals struct {
	tx    *txn        // the transaction the values belong to
	saved *dsn.Config // the connection's properties as they were (plus plain SETs since)
	props map[string]bool
	ext   map[string]*string // extension variables: the value before, nil if unset
}

// setLocal runs SET LOCAL name = value.
func (c *Conn) setLocal(rest string) error {
	if c.tx == nil {
		return status.Errorf(codes.FailedPrecondition,
			"spannerfast: SET LOCAL needs an open transaction: %q", strings.TrimSpace(rest))
	}
	name, value, err := splitAssignment(rest)
	if err != nil {
		return err
	}
	if isDefaultValue(rest) {
		if isExtension(name) {
			// An extension variable did not exist when the connection
			// was made: it is gone for this transaction.
			return c.setLocalExtension(name, nil)
		}
		// The DSN's value, for this transaction.
		if value, err = c.client.Config().Get(name); err != nil {
			return clientError(err)
		}
	}
	return c.setLocalValue(name, value)
}

// setLocalValue sets name to value until the open transaction ends.
func (c *Conn) setLocalValue(name, value string) error {
	if err := c.refuseLateLocal(name); err != nil {
		return err
	}
	if isExtension(name) {
		return c.setLocalExtension(name, &value)
	}
	c.beforeStateChange()
	l := c.localsOfTxn()
	if err := c.setVariable(name, value); err != nil {
		return err
	}
	l.props[l.key(name)] = true
	c.locals = l
	return c.applyToOpenTxn(name)
}

// localsOfTxn returns the open transaction's local values, new if none.
func (c *Conn) localsOfTxn() *txnLocals {
	if c.locals != nil {
		return c.locals
	}
	return &txnLocals{tx: c.tx, saved: c.cfg.Clone(), props: map[string]bool{}, ext: map[string]*string{}}
}

// setLocalExtension sets an extension variable until the open transaction
// ends; nil removes it for that time.
func (c *Conn) setLocalExtension(name string, value *string) error {
	c.beforeStateChange()
	l := c.localsOfTxn()
	key := l.key(name)
	if _, ok := l.ext[key]; !ok {
		var before *string
		if v, ok := c.ext[key]; ok {
			before = &v
		}
		l.ext[key] = before
	}
	c.locals = l
	if value == nil {
		delete(c.ext, key)
		return nil
	}
	return c.setVariable(name, *value)
}

// key is the name under which a local value is remembered.
func (l *txnLocals) key(name string) string {
	if canonical, ok := dsn.CanonicalName(name); ok {
		return canonical
	}
	return strings.ToLower(name)
}

func (l *txnLocals) has(name string) bool {
	key := l.key(name)
	_, ext := l.ext[key]
	return l.props[key] || ext
}

// setSaved changes the value that comes back at the end of the transaction.
func (l *txnLocals) setSaved(name, value string) error {
	if isExtension(name) {
		l.ext[l.key(name)] = &value
		return nil
	}
	return clientError(l.saved.SetVariable(name, value))
}

// resetSaved makes RESET's value the one that comes back.
func (l *txnLocals) resetSaved(name string, dsnCfg *dsn.Config) error {
	if isExtension(name) {
		l.ext[l.key(name)] = nil
		return nil
	}
	v, err := dsnCfg.Get(name)
	if err == nil {
		err = l.saved.SetVariable(name, v)
	}
	return clientError(err)
}

// endTransactionLocals puts back the values SET LOCAL changed. Ending a
// transaction calls it; statements also call it (through settleLocals) when
// the transaction the values belong to is gone.
func (c *Conn) endTransactionLocals() {
	l := c.locals
	if l == nil {
		return
	}
	c.locals = nil
	for name := range l.props {
		if v, err := l.saved.Get(name); err == nil {
			_ = c.cfg.SetVariable(name, v) // the value was valid before
		}
	}
	for name, v := range l.ext {
		switch {
		case v == nil:
			delete(c.ext, name)
		case c.ext == nil:
			c.ext = map[string]string{name: *v}
		default:
			c.ext[name] = *v
		}
	}
}

// settleLocals ends the local values of a transaction that ended through
// database/sql (Tx.Commit, Tx.Rollback) before the next statement runs.
func (c *Conn) settleLocals() {
	if c.locals != nil && c.locals.tx != c.tx {
		c.endTransactionLocals()
	}
}

// firstWord splits off the first word of s, upper-cased.
func firstWord(s string) (word, rest string) {
	s = strings.TrimLeft(s, " \t\r\n\f")
	i := 0
	for i < len(s) && (s[i] == '_' || (s[i]|0x20 >= 'a' && s[i]|0x20 <= 'z') || (i > 0 && s[i] >= '0' && s[i] <= '9')) {
		i++
	}
	return strings.ToUpper(s[:i]), s[i:]
}
