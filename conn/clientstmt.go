package conn

import (
	"context"
	"database/sql/driver"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/spannerfast/spannerfast/dsn"
	"github.com/spannerfast/spannerfast/internal/sqlparse"
	"github.com/spannerfast/spannerfast/rows"
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
		err = c.set(st)
	case kindClientReset:
		err = c.reset(st.client.Name)
	case kindClientBegin:
		err = c.beginStatement(ctx, st)
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

// set runs SET, SET LOCAL and SET TRANSACTION.
func (c *Conn) set(st statement) error {
	cs := st.client
	switch cs.Command {
	case sqlparse.CmdSetTransaction:
		return c.setTransaction(st)
	case sqlparse.CmdSetLocal:
		return c.setLocal(st)
	}
	if st.invalid != nil {
		return st.invalid
	}
	if cs.Default {
		return c.reset(cs.Name)
	}
	return c.setAssigned(cs.Name, cs.Value)
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
func (c *Conn) showVariable(st statement) (driver.Rows, error) {
	if st.invalid != nil {
		return nil, st.invalid
	}
	v, err := c.variable(st.client.Name)
	if err != nil {
		return nil, err
	}
	return rows.OneRow([]string{st.client.Column}, v), nil
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

// clientError prefixes a dsn error; it keeps the error's gRPC code
// (InvalidArgument, or FailedPrecondition for a startup or read-only
// property) and its kind for errors.Is.
func clientError(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("spannerfast: %w", err)
}
