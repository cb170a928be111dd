package conn

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"strconv"
	"strings"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/spannerfast/spannerfast/dsn"
	"github.com/spannerfast/spannerfast/internal/sqlparse"
)

// Transaction statements (BEGIN, COMMIT, ROLLBACK, SET TRANSACTION) and the
// SET LOCAL values that last until the open transaction ends; the property
// statements (SET, SHOW, RESET) are in clientstmt.go.

// BEGIN, COMMIT and ROLLBACK are BeginTx, Tx.Commit and Tx.Rollback: the
// same code, so they send the same requests. database/sql does not know
// about a transaction begun with BEGIN, so it must be used on one *sql.Conn;
// the connection cannot go back to the pool until COMMIT or ROLLBACK.

// isolationLevels are the ISOLATION LEVEL options of BEGIN and SET
// TRANSACTION as database/sql names them.
var isolationLevels = [...]sql.IsolationLevel{
	sqlparse.IsolationDefault:        sql.LevelDefault,
	sqlparse.IsolationSerializable:   sql.LevelSerializable,
	sqlparse.IsolationRepeatableRead: sql.LevelRepeatableRead,
}

// beginStatement runs BEGIN: BeginTx with the statement's options.
func (c *Conn) beginStatement(ctx context.Context, st statement) error {
	if st.invalid != nil {
		return st.invalid
	}
	o := st.client.Txn
	txo := driver.TxOptions{Isolation: driver.IsolationLevel(isolationLevels[o.Isolation])}
	if o.ReadOnly != nil {
		txo.ReadOnly = *o.ReadOnly
	}
	if _, err := c.BeginTx(ctx, txo); err != nil {
		return err
	}
	// The transaction outlives this statement: the context of COMMIT or
	// ROLLBACK governs its end, not BEGIN's.
	c.tx.ctx = nil
	return c.setDeferrable(o.Deferrable)
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
	if st.invalid != nil {
		return st.invalid
	}
	var err error
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
func (c *Conn) setTransaction(st statement) error {
	t := c.tx
	if t == nil {
		return status.Error(codes.FailedPrecondition, "spannerfast: SET TRANSACTION needs an open transaction (BEGIN or BeginTx first)")
	}
	if t.started() {
		return status.Error(codes.FailedPrecondition, "spannerfast: SET TRANSACTION must come before the transaction's first statement")
	}
	if st.invalid != nil {
		return st.invalid
	}
	o := st.client.Txn
	if o.ReadOnly != nil && *o.ReadOnly != t.readOnly {
		var err error
		if t, err = c.replaceTxn(t, *o.ReadOnly); err != nil {
			return err
		}
	}
	if o.Isolation != sqlparse.IsolationDefault && !t.readOnly {
		iso, err := isolationFor(isolationLevels[o.Isolation])
		if err != nil {
			return err
		}
		t.opts.IsolationLevel = iso
	}
	return c.setDeferrable(o.Deferrable)
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
func (c *Conn) setLocal(st statement) error {
	cs := st.client
	if c.tx == nil {
		return status.Errorf(codes.FailedPrecondition,
			"spannerfast: SET LOCAL needs an open transaction: %q", cs.Text)
	}
	if st.invalid != nil {
		return st.invalid
	}
	name, value := cs.Name, cs.Value
	if cs.Default {
		if isExtension(name) {
			// An extension variable did not exist when the connection
			// was made: it is gone for this transaction.
			return c.setLocalExtension(name, nil)
		}
		// The DSN's value, for this transaction.
		var err error
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
