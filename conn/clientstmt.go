package conn

import (
	"context"
	"database/sql/driver"

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
//	SHOW TRANSACTION ISOLATION LEVEL     (and READ ONLY, [NOT] DEFERRABLE: their properties)
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
// On a PostgreSQL database internal/sqlparse reads their PostgreSQL forms
// (SET ... TO, SET SESSION, START TRANSACTION, END, ABORT...) into the same
// statements (docs/postgresql.md).
//
// All but SHOW return driver.ResultNoRows from ExecContext and no rows from
// QueryContext.

// resetStatement runs RESET name.
func (c *Conn) resetStatement(st statement) error {
	if st.invalid != nil {
		return st.invalid
	}
	return c.reset(st.client.Name)
}

// showStatement runs SHOW [VARIABLE] name (see showVariable).
func (c *Conn) showStatement(_ context.Context, st statement, _ []driver.NamedValue, _ QueryOptions) (driver.Rows, error) {
	return c.showVariable(st)
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
	// Under a SET LOCAL value the new one comes back when the transaction
	// ends: nothing changes for the open transaction now.
	local := c.state.IsLocal(name)
	if err := c.state.Set(name, value); err != nil || local {
		return err
	}
	return c.applyToOpenTxn(name)
}

// reset sets a property back to the DSN's value; an extension variable is
// dropped, as go-sql-spanner drops what did not exist when the connection
// was made.
func (c *Conn) reset(name string) error {
	local := c.state.IsLocal(name)
	if err := c.state.Reset(name); err != nil || local {
		return err
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
	return c.state.Show(name)
}
